#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/footprint.sh: what fpusoakd holds in memory, per process (issue 20).
#
#   bench/footprint.sh [--maps N] [--kv] PID
#
# PID is the daemon (its core).  Every process of the daemon is listed: the
# core itself and its children (the spawner, the web process), each with
# Rss, Pss, Locked, Pss_Anon and Pss_File from /proc/PID/smaps_rollup, in
# kB, and LockedRss: the Rss of its mappings marked VM_LOCKED ("lo" in
# smaps' VmFlags), counted whole (Locked: is proportional, so a page shared
# with another process counts half; in a guest with nothing to share it
# with, LockedRss is what stays pinned).  Workers (the spawner's children)
# are counted, never included: they are the experiment, not the instrument.
#
# The sums are issue 20's goals:
#   locked-core  Locked of the part that must never stall (the core: sampler,
#                SQLite writer, kernel-log and trace readers; the spawner:
#                churn control), goal <= 3 MB;
#   total        Pss of every fpusoakd process, workers excluded, goal <= 6 MB
#                with the report idle.
# --maps N adds, per process, the N mappings (grouped by file, or [heap],
# [stack], [anon]) with the most Rss, from /proc/PID/smaps.
# --kv prints one "FOOTPRINT key=value ..." line per process and one for
# the total instead of the table (the Xen guest scenario's console lines).
#
# Two processes in all (cat and one awk): in a TCG guest every fork costs a
# good part of a second.  POSIX sh + awk, so busybox runs it too.
maps=0 kv=0
while [ $# -gt 1 ]; do
	case $1 in
	--maps) maps=$2; shift ;;
	--kv) kv=1 ;;
	*) break ;;
	esac
	shift
done
case ${1:-} in '' | *[!0-9]*) echo "usage: bench/footprint.sh [--maps N] [--kv] PID" >&2; exit 64 ;; esac
[ -r "/proc/$1/smaps_rollup" ] || { echo "footprint: no /proc/$1/smaps_rollup (gone, or a kernel before 4.14)" >&2; exit 1; }

# cat, not awk FILE...: a process that ends between the glob and the read is skipped, not fatal.
# Each stat line is "pid (comm) state ppid ..."; comm may hold spaces and parens, so cut at the last ") ".
cat /proc/[0-9]*/stat 2>/dev/null | awk -v core="$1" -v kv="$kv" -v maps="$maps" '
function readfile(f,    line, s) { s = ""; while ((getline line < f) > 0) s = s line "\n"; close(f); return s }
function role(pid,    c) {
	c = readfile("/proc/" pid "/comm"); sub(/\n$/, "", c)
	if (c == "fpusoakd-web") return "web"
	if (c ~ /^fpusoakd-spawne/ || c == "fpusoakd") return "spawner"   # the static spawner, or the forked copy
	return "child"
}
# One process: its smaps_rollup figures, LockedRss and threads into the arrays, index n.
function measure(r, pid,    f, line, a, rss, lr) {
	f = "/proc/" pid "/smaps_rollup"
	if ((getline line < f) <= 0) return
	n++; R[n] = r; P[n] = pid
	while ((getline line < f) > 0) {
		split(line, a, " ")
		if (a[1] == "Rss:") RSS[n] = a[2]; else if (a[1] == "Pss:") PSS[n] = a[2]
		else if (a[1] == "Locked:") LCK[n] = a[2]; else if (a[1] == "Pss_Anon:") PA[n] = a[2]
		else if (a[1] == "Pss_File:") PF[n] = a[2]
	}
	close(f)
	f = "/proc/" pid "/smaps"; lr = 0
	while ((getline line < f) > 0) {
		split(line, a, " ")
		if (a[1] == "Rss:") rss = a[2]
		else if (a[1] == "VmFlags:") { for (i = 2; i in a; i++) if (a[i] == "lo") lr += rss }
	}
	close(f)
	LR[n] = lr
	f = "/proc/" pid "/status"
	while ((getline line < f) > 0) { split(line, a, " "); if (a[1] == "Threads:") TH[n] = a[2] }
	close(f)
}
# The m mappings of pid with the most Rss, grouped by file name or [heap]/[stack]/[anon].
function bymap(label, pid, m,    f, line, a, key, nk, k, i, j, t, keys, rs, ps, ls, parts) {
	f = "/proc/" pid "/smaps"; nk = 0
	while ((getline line < f) > 0) {
		if (line ~ /^[0-9a-f]+-[0-9a-f]+ /) {
			split(line, a, " ")
			key = (6 in a) ? a[6] : "[anon]"
			if (key !~ /^\[/) { k = split(key, parts, "/"); key = parts[k] }
			if (!(key in rs)) { keys[++nk] = key; rs[key] = 0; ps[key] = 0; ls[key] = 0 }

			continue
		}
		split(line, a, " ")
		if (a[1] == "Rss:") rs[key] += a[2]; else if (a[1] == "Pss:") ps[key] += a[2]
		else if (a[1] == "Locked:") ls[key] += a[2]
	}
	close(f)
	for (i = 2; i <= nk; i++)      # insertion sort by Rss, descending: a few dozen keys
		for (j = i; j > 1 && rs[keys[j]] > rs[keys[j - 1]]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
	printf "\n%s (%s): the %d mappings with the most Rss (kB)\n%9s %9s %9s  %s\n", label, pid, m, "Rss", "Pss", "Locked", "mapping"
	for (i = 1; i <= nk && i <= m; i++)
		if (rs[keys[i]] > 0) printf "%9d %9d %9d  %s\n", rs[keys[i]], ps[keys[i]], ls[keys[i]], keys[i]
}
{ pid = $1; sub(/.*\) /, ""); parent[pid] = $2 }
END {
	measure("core", core)
	for (p in parent) if (parent[p] == core) { r = role(p); if (r != "") measure(r, p); if (r == "spawner") sp[p] = 1 }
	for (p in parent) if (parent[p] in sp) workers++
	for (i = 1; i <= n; i++) {
		trss += RSS[i]; tpss += PSS[i]; tlck += LCK[i]; tlr += LR[i]
		if (R[i] == "core" || R[i] == "spawner") { clck += LCK[i]; clr += LR[i] }
	}
	if (kv) {
		for (i = 1; i <= n; i++)
			printf "FOOTPRINT component=%s pid=%s rss_kb=%d pss_kb=%d locked_kb=%d pss_anon_kb=%d pss_file_kb=%d locked_rss_kb=%d threads=%d\n",
				R[i], P[i], RSS[i], PSS[i], LCK[i], PA[i], PF[i], LR[i], TH[i]
		printf "FOOTPRINT component=total processes=%d workers_excluded=%d rss_kb=%d pss_kb=%d locked_kb=%d locked_core_kb=%d locked_rss_core_kb=%d\n",
			n, workers, trss, tpss, tlck, clck, clr
	} else {
		printf "%-9s %7s %8s %8s %9s %8s %8s %9s %7s\n", "component", "pid", "Rss kB", "Pss kB", "Locked kB", "PssAnon",
			"PssFile", "LockedRss", "threads"
		for (i = 1; i <= n; i++)
			printf "%-9s %7s %8d %8d %9d %8d %8d %9d %7d\n", R[i], P[i], RSS[i], PSS[i], LCK[i], PA[i], PF[i], LR[i], TH[i]
		printf "%-9s %7s %8d %8d %9d %8s %8s %9d\n", "total", "", trss, tpss, tlck, "", "", tlr
		printf "locked-core (core + spawner): Locked %d kB, LockedRss %d kB (goal <= 3072); total Pss %d kB (goal <= 6144); workers excluded: %d\n",
			clck, clr, tpss, workers
	}
	if (maps > 0) for (i = 1; i <= n; i++) bymap(R[i], P[i], maps)
}'
