#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/footprint.sh: what fpusoakd holds in memory, per process (issue 20).
#
#   bench/footprint.sh [--maps N] [--kv] [--activity S] PID
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
# --activity S then watches the same processes for S seconds and prints,
# per process, its CPU (schedstat of every thread: % of one CPU), its
# wakeups (voluntary context switches of every thread: each is a sleep
# that something had to end), and what it wrote (/proc/PID/io write_bytes:
# the pages it dirtied, for the core the database and its WAL; wchar: the
# bytes its write calls passed), per second; with --kv as "ACTIVITY
# key=value ..." lines.
#
# Two processes in all (cat and one awk): in a TCG guest every fork costs a
# good part of a second.  POSIX sh + awk, so busybox runs it too.
maps=0 kv=0 act=0
while [ $# -gt 1 ]; do
	case $1 in
	--maps) maps=$2; shift ;;
	--kv) kv=1 ;;
	--activity) act=$2; shift ;;
	*) break ;;
	esac
	shift
done
case ${1:-} in '' | *[!0-9]*) echo "usage: bench/footprint.sh [--maps N] [--kv] [--activity S] PID" >&2; exit 64 ;; esac
case $act in '' | *[!0-9]*) echo "footprint: --activity wants whole seconds" >&2; exit 64 ;; esac
[ -r "/proc/$1/smaps_rollup" ] || { echo "footprint: no /proc/$1/smaps_rollup (gone, or a kernel before 4.14)" >&2; exit 1; }

# cat, not awk FILE...: a process that ends between the glob and the read is skipped, not fatal.
# Each stat line is "pid (comm) state ppid ..."; comm may hold spaces and parens, so cut at the last ") ".
table() { # table KV
cat /proc/[0-9]*/stat 2>/dev/null | awk -v core="$1" -v kv="$2" -v maps="$maps" '
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
}

# snapshot: per process, a "P pid role" line, then its threads' schedstat and status and its io.
snapshot() {
	for _p in $procs; do
		echo "P ${_p#*:} ${_p%%:*} $(cut -d' ' -f22 "/proc/${_p#*:}/stat" 2>/dev/null)"
		cat /proc/"${_p#*:}"/task/*/schedstat /proc/"${_p#*:}"/task/*/status "/proc/${_p#*:}/io" 2>/dev/null
	done
}

if [ "$act" -eq 0 ]; then
	table "$1" "$kv"
	exit 0
fi
all=$(table "$1" 1)
[ "$kv" = 1 ] && echo "$all" || table "$1" 0
procs=$(echo "$all" | awk '$2 != "component=total" { sub(/component=/, "", $2); sub(/pid=/, "", $3); print $2 ":" $3 }')
before=$(snapshot)
sleep "$act"
after=$(snapshot)
printf '%s\n--\n%s\n' "$before" "$after" | awk -v s="$act" -v kv="$kv" '
BEGIN { phase = 0 }
/^--$/ { phase = 1; next }
/^P / { pid = $2; role[pid] = $3; start[phase, pid] = $4; if (!(pid in seen)) { seen[pid] = 1; order[++n] = pid }; next }
NF == 3 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { cpu[phase, pid] += $1; next }
$1 == "voluntary_ctxt_switches:" { vol[phase, pid] += $2; next }
$1 == "nonvoluntary_ctxt_switches:" { inv[phase, pid] += $2; next }
$1 == "write_bytes:" { wb[phase, pid] = $2; next }
$1 == "wchar:" { wc[phase, pid] = $2; next }
END {
	if (!kv) printf "\nover %d s, per second: %-7s %7s %8s %12s %12s %12s\n", s, "", "pid", "CPU %", "wakeups/s", "written kB/s", "wchar kB/s"
	for (i = 1; i <= n; i++) {
		p = order[i]
		# A process that ended or was replaced (another start time) in between has no figures.
		if (!((1, p) in start) || start[0, p] != start[1, p]) { gone = gone " " role[p] "(" p ")"; continue }
		c = (cpu[1, p] - cpu[0, p]) / 1e9 / s * 100; w = (vol[1, p] - vol[0, p]) / s
		b = (wb[1, p] - wb[0, p]) / 1024 / s; x = (wc[1, p] - wc[0, p]) / 1024 / s
		iv = (inv[1, p] - inv[0, p]) / s
		if (kv) printf "ACTIVITY component=%s pid=%s seconds=%d cpu_pct=%.3f wakeups_per_s=%.1f preempted_per_s=%.1f write_kb_per_s=%.2f wchar_kb_per_s=%.2f\n", role[p], p, s, c, w, iv, b, x
		else printf "%-30s %7s %8.3f %12.1f %12.2f %12.2f\n", role[p], p, c, w, b, x
	}
	if (gone != "") printf "%s not measured (ended or restarted during the window):%s\n", kv ? "ACTIVITY-NOTE" : "", gone
}'
