#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd inside real Xen 4.17 PV guests under QEMU TCG.
#
# Stage dom0 (default): Xen boots Debian's kernel as the dom0 with an
# initramfs that runs the stage's scenarios (tests/xen/scenarios/) one after
# the other.  Stage domu (--stage domu): the dom0 starts Debian's toolstack and
# `xl create`s a PV domU (64 MB, a small kernel built here) that runs the
# scenarios (see domu-host.sh).
# Either way every scenario's files come back over the console (gzip + base64
# + sha256, guest-lib.sh) and its NAME.check.sh checks them here.
#
# Artifacts: dom0 stage in $BUILD/xen/, domu stage in $BUILD/xen/domu/:
# console.log (the serial console), console-domu.log (domu: the domU's
# console, kept by xenconsoled), boot/ (the guest's /proc files at boot),
# <scenario>/ (what each scenario exported: fpusoakd.db, report.html,
# proc/...), times.txt (figures of this run), prepare.log, mkinitramfs.log.
#
# Env knobs: XEN_SCENARIOS (dom0 stage) / XEN_DOMU_SCENARIOS (domu stage):
# scenario names in run order, default all that apply to the stage but
# those whose conf sets SC_DEFAULT=0 (opt-in: they run only when named);
# XEN_PAYLOAD=auto|daemon|standin (auto: the daemon if built); XEN_HARD_CAP
# seconds for QEMU (default: boot allowance + the scenarios' budgets);
# XEN_NO_REPORT=1 (no forwarded port, the dom0 stage's report is not fetched);
# XEN_DOMU_KERNEL=small|generic|cloud (the domU's kernel: small, the default, is
# tinyconfig + tests/xen/kernel/pv-small.config built from Debian's source of
# the dom0's version, prepare-kernel.sh, cached; generic is the dom0's image,
# cloud Debian's cloud flavour of it: README for why neither runs the soak in
# 64 MB), XEN_DOMU_MEMORY (MB the domU runs with, default 64 with the small
# kernel, 128 with the generic one, 96 with the cloud one),
# XEN_DOMU_BOOT_MEMORY (MB the domU is built with before it balloons down to
# XEN_DOMU_MEMORY: default 64 for the small kernel, 96 for the generic one,
# 66 for the cloud one, never below XEN_DOMU_MEMORY; domu-host.sh).
# Diagnostics: XEN_QEMU_CPU (default max,-smap), XEN_QEMU_ACCEL (tcg,thread=single in the
# dom0 stage, tcg in the domu stage), XEN_LOCKUP_S (150: QEMU is stopped once the guest reports
# a soft lockup that long),
# XEN_CMDLINE_EXTRA (appended to Xen's command line), XEN_DOMU_CMDLINE_EXTRA
# (appended to the domU kernel's), XEN_DOMU_DATA_MB (a writable ext2 disk of
# that size for the domU, mounted at /data there, its files copied to
# $BUILD/xen/domu/data/ after the boot; default 0, none), XEN_DOMU_CPUS (the
# domU's CPU affinity, default 1), XEN_DOM0_NOISE=1 (the dom0 forks busily
# while the domU runs: the load that shows the corruption described below).  The scenarios have their own (e.g.
# XEN_SOAK_SECONDS, see scenarios/*.conf.sh).
# KVM is never used: Xen under KVM hangs on this kind of machine, TCG boots.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
stage=${XEN_STAGE:-dom0}
if [ "${1:-}" = --stage ]; then stage=$2; shift 2; fi
T_NAME=${T_NAME:-xen-$stage}
# shellcheck source=tests/lib.sh disable=SC1091
. "$repo/tests/lib.sh"
# shellcheck source=tests/xen/host-lib.sh
. "$here/host-lib.sh"
info() { echo "INFO: $T_NAME: $*"; }
now_ms() { date +%s%3N; }

BUILD=${BUILD:-$repo/build}
FPUSOAKD=${FPUSOAKD:-$BUILD/fpusoakd}
payload=${XEN_PAYLOAD:-auto}
case "$stage" in
dom0) out=$BUILD/xen; want=${XEN_SCENARIOS:-} ;;
domu) out=$BUILD/xen/domu; want=${XEN_DOMU_SCENARIOS:-} ;;
*) fail "unknown stage '$stage' (dom0 or domu)"; t_done ;;
esac
t0=$(now_ms)
mkdir -p "$out"
times=$out/times.txt
: >"$times"
tm() { echo "$1=$2" >>"$times"; }

# ------------------------------------------------------------ preparation
# The two stages may run at once (make test runs them side by side, tests/run.sh): each
# prepares the shared cache (prepare.sh starts it over when incomplete) and its scenarios build
# modules there, so the whole preparation holds a lock on the cache, up to the boot.
prep_cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
mkdir -p "$(dirname "$prep_cache")"
exec {prep_lock}>"$prep_cache.lock"
flock "$prep_lock"
prep_log=$out/prepare.log
tp=$(now_ms)
bash "$here/prepare.sh" >"$prep_log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	skip "Xen PV test bed cannot be prepared here: $(grep 'cannot prepare' "$prep_log" | tail -1)"
	t_done
elif [ "$rc" != 0 ]; then
	fail "prepare.sh exited $rc (see $prep_log)"
	t_done
fi
cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
# shellcheck disable=SC1091
. "$cache/env"
export KVER MODDIR KERNEL KCONFIG XEN_VERSION LINUX_VERSION
if [ "$stage" = domu ]; then
	XEN_DOMU_KERNEL=${XEN_DOMU_KERNEL:-small} bash "$here/prepare-domu.sh" >>"$prep_log" 2>&1
	rc=$?
	if [ "$rc" = 77 ]; then
		skip "the domU stage's toolstack cannot be prepared here: $(grep 'cannot prepare' "$prep_log" | tail -1)"
		t_done
	elif [ "$rc" != 0 ]; then
		fail "prepare-domu.sh exited $rc (see $prep_log)"
		t_done
	fi
	# shellcheck disable=SC1091
	. "$cache/domu/env"
	# The domU's kernel (prepare-domu.sh fetches the cloud one when asked, prepare-kernel.sh builds
	# the small one once per source version and fragment).
	DOMU_KDIR=''
	case "${XEN_DOMU_KERNEL:-small}" in
	small)
		# Without the cache's lock while it builds: prepare-kernel.sh has its own (kernel.lock), and a
		# cold build (15-60 min on 2 busy cores) under this one held the dom0 stage, which started
		# beside it and needs no kernel, until its time limit (90_xen: 2,700 s, 34 min of them waiting).
		flock -u "$prep_lock"
		kenv=$(bash "$here/prepare-kernel.sh" {prep_lock}>&- 2>>"$prep_log")
		rc=$?
		flock "$prep_lock"
		if [ "$rc" = 77 ]; then
			skip "the domU's small kernel cannot be built here: $(grep 'cannot prepare' "$prep_log" | tail -1)"
			t_done
		elif [ "$rc" != 0 ] || [ ! -f "$kenv" ]; then
			fail "prepare-kernel.sh exited $rc: $(grep '^prepare-kernel:' "$prep_log" | tail -1)"
			t_done
		fi
		# shellcheck disable=SC1090
		. "$kenv"
		# The 2014 guest's size.  The builder maps this image (16-30 MB up) and its boot pages
		# well below 64 MB, so it is built at its size: no balloon.
		domu_def_mem=64 domu_min_boot=64 domu_reserve_mb=20 ;;
	cloud)
		# shellcheck disable=SC1091
		. "$cache/domu/kernel.env"
		# 96: at 80 the soak's guest-scope fill ends in a kernel panic
		# (README).  The builder needs ~65.1 MB for this image and its
		# initramfs (domu-host.sh), so a smaller domU is built at 66.
		domu_def_mem=96 domu_min_boot=66 domu_reserve_mb=64 ;;
	generic)
		DOMU_KERNEL=$KERNEL DOMU_KCONFIG=$KCONFIG DOMU_KVER=$KVER DOMU_MODDIR=$MODDIR
		DOMU_LINUX_VERSION=$LINUX_VERSION domu_def_mem=128 domu_min_boot=96 domu_reserve_mb=64 ;;
	*) fail "XEN_DOMU_KERNEL=${XEN_DOMU_KERNEL} (small, generic or cloud)"; t_done ;;
	esac
	# Scenarios that build a module for the domU build it for this kernel: against its own tree
	# (DOMU_KDIR, the small kernel) or its release's headers.
	export DOMU_KERNEL DOMU_KCONFIG DOMU_KVER DOMU_MODDIR DOMU_LINUX_VERSION DOMU_KDIR
fi
tm prepare_s $(( ($(now_ms) - tp) / 1000 ))
info "xen $XEN_VERSION, $LINUX_VERSION${DOMU_LINUX_VERSION:+ (domU: $DOMU_LINUX_VERSION)}, qemu $(qemu-system-x86_64 --version | head -1 | awk '{print $4}')${TOOLS_VERSION:+, toolstack $TOOLS_VERSION}"

if [ "$payload" = auto ]; then
	if [ -x "$FPUSOAKD" ]; then payload=daemon; else payload=standin; fi
fi
if [ "$payload" = daemon ]; then
	[ -x "$FPUSOAKD" ] || { fail "XEN_PAYLOAD=daemon but $FPUSOAKD is not built"; t_done; }
elif [ -x "$FPUSOAKD" ]; then
	skip "XEN_PAYLOAD=$payload: sqlite3 stand-in payload, daemon checks not run"
else
	skip "fpusoakd not built ($FPUSOAKD): running the sqlite3 stand-in payload, daemon checks not run"
fi
export PAYLOAD=$payload FPUSOAKD BUILD XEN_CACHE=$cache

# ------------------------------------------------------------ scenarios
staging=$out/staging
rm -rf "$staging"
mkdir -p "$staging"
runlist='' budget_sum=0
if [ -z "$want" ]; then
	for n in $(scenario_optin "$stage"); do
		echo "scenario $n: opt-in (SC_DEFAULT=0), not in the default set; $([ "$stage" = dom0 ] && echo XEN_SCENARIOS || echo XEN_DOMU_SCENARIOS)=$n runs it"
	done
fi
for n in $(scenario_names "$stage" "$want"); do
	scenario_prepare "$n" "$stage" "$staging"
	rc=$?
	if [ "$rc" = 0 ]; then
		runlist="${runlist:+$runlist }$n"
		b=$(. "$staging/$n/env"; echo "$SC_BUDGET")
		budget_sum=$((budget_sum + b + 30))
	elif [ "$rc" = 77 ]; then
		skip "scenario $n: $(cat "$staging/$n/skip")"
	else
		fail "scenario $n: prepare failed: $(cat "$staging/$n/error" 2>/dev/null) $(tail -3 "$staging/$n/prepare.log" | tr '\n' ' ')"
	fi
done
for n in $want; do
	case " $(scenario_names "$stage" "$n" | tr '\n' ' ') " in
	*" $n "*) ;;
	*) skip "scenario $n does not apply to the $stage stage or does not exist" ;;
	esac
done
# The cache is ready and every module built: the other stage may prepare.
exec {prep_lock}>&-
if [ -z "$runlist" ]; then
	fail "no scenario to run in the $stage stage"
	t_done
fi
# Boot (and for a domU, the toolstack and its boot) plus every scenario's
# budget and export time.
case "$stage" in
dom0) hardcap=${XEN_HARD_CAP:-$((180 + budget_sum))} ;;
domu) hardcap=${XEN_HARD_CAP:-$((300 + budget_sum))} ;;
esac
info "payload $payload, scenarios: $runlist (QEMU hard cap ${hardcap}s)"

# A free loopback port for the report (dom0 stage); the guest listens on 8089.
port=
if [ "$stage" = dom0 ] && [ -z "${XEN_NO_REPORT:-}" ] && command -v curl >/dev/null; then
	for _ in 1 2 3 4 5 6 7 8; do
		p=$((20000 + RANDOM % 30000))
		if ! ss -ltnH "sport = :$p" 2>/dev/null | grep -q .; then port=$p; break; fi
	done
fi

initrd=$out/initrd.gz disk=$out/payload.img
tb=$(now_ms)
mkargs=(--payload "$payload" --scenarios "$staging" --list "$runlist")
[ "$payload" = daemon ] && mkargs+=(--daemon "$FPUSOAKD")
if [ "$stage" = dom0 ]; then
	bash "$here/mkinitramfs.sh" --stage dom0 --out "$initrd" --disk "$disk" --port "${port:+8089}" "${mkargs[@]}" \
		2>"$out/mkinitramfs.log"
	rc=$?
else
	# The domU's boot files, then the dom0's, which carry them.
	# A domU smaller than its kernel can be built into (the generic image:
	# ~84 MB, domu-host.sh) is built at XEN_DOMU_BOOT_MEMORY and ballooned
	# down to its size.
	domu_mem=${XEN_DOMU_MEMORY:-$domu_def_mem}
	domu_boot_mem=${XEN_DOMU_BOOT_MEMORY:-$((domu_mem > domu_min_boot ? domu_mem : domu_min_boot))}
	[ "$domu_boot_mem" -ge "$domu_mem" ] || domu_boot_mem=$domu_mem
	dinitrd=$out/domu-initrd.img ddisk=$out/domu-payload.img
	denv=$out/domu.env
	# A writable disk for what is too big for the console or must not live in the domU's RAM
	# (XEN_DOMU_DATA_MB: a long run's DB in a 64 MB guest); the host reads it back after the boot.
	ddata=''
	case "${XEN_DOMU_DATA_MB:-0}" in
	0) ;;
	*[!0-9]*) fail "XEN_DOMU_DATA_MB wants a number of MB"; t_done ;;
	*)
		ddata=$out/domu-data.img
		rm -rf "$ddata" "$out/data"
		truncate -s "${XEN_DOMU_DATA_MB}M" "$ddata" && mke2fs -q -F -t ext2 -L fpusoak-data "$ddata" ||
			{ fail "cannot make the domU's data disk $ddata"; t_done; }
		;;
	esac
	{
		echo "DOMU_MEMORY='$domu_mem'"
		echo "DOMU_BOOT_MEMORY='$domu_boot_mem'"
		echo "DOM0_NOISE='${XEN_DOM0_NOISE:-0}'"
		echo "DOMU_CPUS='${XEN_DOMU_CPUS:-1}'"
		echo "DOMU_CMDLINE_EXTRA='${XEN_DOMU_CMDLINE_EXTRA:-}'"
		echo "DOMU_DATA='$([ -n "$ddata" ] && echo 1 || echo 0)'"
		# The domU's own hard cap, inside the dom0: its scenarios plus boot.
		echo "DOMU_TIMEOUT='$((120 + budget_sum))'"
	} >"$denv"
	# The domU's initramfs xz'd: see mkinitramfs.sh --compress.
	bash "$here/mkinitramfs.sh" --stage domu --out "$dinitrd" --disk "$ddisk" --port 8089 "${mkargs[@]}" \
		--moddir "$DOMU_MODDIR" --compress xz 2>"$out/mkinitramfs.log" &&
		bash "$here/mkinitramfs.sh" --stage domu-host --out "$initrd" --disk "$disk" --port '' \
			--tools "$TOOLS_ROOT" --domu-kernel "$DOMU_KERNEL" --domu-initrd "$dinitrd" --domu-env "$denv" \
			2>>"$out/mkinitramfs.log"
	rc=$?
fi
if [ "$rc" != 0 ]; then
	fail "mkinitramfs.sh failed: $(tail -1 "$out/mkinitramfs.log")"
	t_done
fi
tm build_boot_files_s $(( ($(now_ms) - tb) / 1000 ))

# ------------------------------------------------------------ boot
# -cpu max offers the widest FPU TCG emulates (AVX2); its SMAP emulation
# crashes Xen's PV dom0 at its first bounce frame, so SMAP is left out (Xen
# hides SMAP from PV guests anyway).  The programs and libraries come on a
# read-only virtio disk (page cache, not pinned ramfs); in the domu stage a
# second one is the domU's disk, which the dom0 passes on with blkback.
# restrict=on: the guest reaches nothing, only the forwarded loopback port
# reaches it.  Memory: the dom0 gets a fixed amount (dom0_mem with the same
# max, so it never balloons), the rest of QEMU's RAM stays in Xen's heap for
# the domU.
console=$out/console.log
# Nothing from an earlier run may pass for this one's.
rm -rf "$console" "$out/console-domu.log" "$out/boot" "$out/dom0" "$out/.fetch"
for n in $runlist; do rm -rf "${out:?}/$n"; done
net=(-net none)
if [ -n "$port" ]; then
	# shellcheck disable=SC2054 # QEMU option values are comma lists
	net=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:8089"
		-device e1000,netdev=n0,romfile=)
fi
disks=(-drive "file=$disk,format=raw,if=virtio,readonly=on")
[ "$stage" = domu ] && disks+=(-drive "file=$ddisk,format=raw,if=virtio,readonly=on")
[ -n "${ddata:-}" ] && disks+=(-drive "file=$ddata,format=raw,if=virtio")
# The dom0 of the domu stage gets more: xl holds the decompressed domU kernel
# (~43 MB) while it builds the domain, which OOMs a 160 MB dom0.
# And one vCPU pinned to CPU 0, the domU's pinned to CPU 1 (domu-host.sh):
# under QEMU TCG, Xen 4.17 switching vCPUs of two PV domains on one CPU
# corrupts user processes of either (segfaults reading thread-local storage
# at a foreign address, e.g. "segfault at 70657267": "grep" from the other
# domain; 3-14 per 6000 execs with both domains busy, the same with
# -fsgsbase, pcid=0, an Intel vendor or single-threaded TCG); pinned so
# that no CPU runs both, the same load gave none.
dom0_mem=160 qemu_mem=512 xen_args=''
# Single-threaded TCG in the dom0 stage: with one host thread per vCPU (QEMU's default), a guest
# that patches its kernel text while both vCPUs run (text_poke_bp: enabling or disabling a
# tracepoint) hung with soft lockups on both vCPUs, three times in fpusoakd's runs and at once in
# a shell loop toggling one event (scenario tracepoke), while one thread for both vCPUs ran that
# loop 2,173 times in 240 s.  It costs little here: the default dom0 stage took 733 s against 701 s.
accel=tcg,thread=single
if [ "$stage" = domu ]; then
	dom0_mem=256
	xen_args="dom0_max_vcpus=1 dom0_vcpus_pin"
	# One vCPU per domain, each pinned to its own CPU: no cross-vCPU text patching inside a guest.
	accel=tcg
fi
xen_args="$xen_args${XEN_CMDLINE_EXTRA:+ $XEN_CMDLINE_EXTRA}"
# The forwarded port is chosen free (above) but may be taken before QEMU binds it (another test
# bed or program on this machine): QEMU then exits at once ("Could not set up host forwarding
# rule"), and a new port is tried, up to 4 times.  Ports are not retried otherwise.
for qtry in 1 2 3 4; do
	tboot=$(now_ms)
	timeout -k 5 "$hardcap" qemu-system-x86_64 -m "$qemu_mem" -smp 2 -cpu "${XEN_QEMU_CPU:-max,-smap}" -accel "${XEN_QEMU_ACCEL:-$accel}" \
		-display none -no-reboot -monitor none -serial "file:$console" "${net[@]}" "${disks[@]}" \
		-kernel "$XEN_ELF" -append "console=com1 dom0_mem=${dom0_mem}M,max:${dom0_mem}M${xen_args:+ $xen_args}" \
		-initrd "$KERNEL console=hvc0 panic=1,$initrd" </dev/null >"$out/qemu.log" 2>&1 &
	qpid=$!
	# Only the timeout wrapper we started (and so its QEMU) is ever killed.
	trap 'kill "$qpid" 2>/dev/null' EXIT
	[ -n "$port" ] || break
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$qpid" 2>/dev/null || break; sleep 0.3; done
	kill -0 "$qpid" 2>/dev/null && break
	grep -qi 'host forwarding' "$out/qemu.log" || break
	wait "$qpid"
	info "QEMU could not forward 127.0.0.1:$port (taken since it was chosen): another port (try $((qtry + 1)))"
	for _ in 1 2 3 4 5 6 7 8; do
		p=$((20000 + RANDOM % 30000))
		if ! ss -ltnH "sport = :$p" 2>/dev/null | grep -q .; then port=$p; break; fi
	done
	net=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:8089" -device e1000,netdev=n0,romfile=)
	rm -f "$console"
done

# The host fetches the report of each serving scenario (SC_SERVE=1) over the
# forwarded port while its daemon runs: first as soon as it is up, then every
# XEN_REPORT_REFETCH seconds (70); the last good copy is kept.
declare -A fetched_first=() fetched_last=()
refetch=${XEN_REPORT_REFETCH:-70}
# A guest kernel that soft-locks does not come back: the three times it happened in this test bed
# (CPUs stuck in text_poke_bp's IPI while a tracepoint was (un)registered, under TCG) it went on
# for 5-17 minutes until killed by hand, and the hard cap would have spent the suite's time budget
# on it.  The host stops QEMU once the guest reports a CPU stuck for XEN_LOCKUP_S seconds (150).
lockup_s=${XEN_LOCKUP_S:-150}
lockup=''
while kill -0 "$qpid" 2>/dev/null; do
	lockup=$(con_lockup "$console" "$lockup_s")
	if [ -n "$lockup" ]; then
		kill "$qpid" 2>/dev/null
		break
	fi
	if [ -n "$port" ]; then
		cur=$(sed -n 's/^===FPUSOAK-DAEMON-UP scenario=\([^ ]*\) .*/\1/p' "$console" 2>/dev/null | tail -1)
		if [ -n "$cur" ] && [ "$(. "$staging/$cur/env" 2>/dev/null; echo "${SC_SERVE:-0}")" = 1 ] &&
			! grep -aq "^===FPUSOAK-DAEMON-EXIT scenario=$cur " "$console"; then
			t=$(now_ms)
			if [ -z "${fetched_last[$cur]:-}" ] || [ $((t - fetched_last[$cur])) -ge $((refetch * 1000)) ]; then
				mkdir -p "$out/.fetch"
				if curl -fsS -m 20 -o "$out/.fetch/$cur.html.tmp" "http://127.0.0.1:$port/" 2>/dev/null; then
					mv "$out/.fetch/$cur.html.tmp" "$out/.fetch/$cur.html"
					fetched_last[$cur]=$t
					[ -n "${fetched_first[$cur]:-}" ] || fetched_first[$cur]=$((t - tboot))
				fi
			fi
		fi
	fi
	sleep 3
done
wait "$qpid"
qrc=$?
trap - EXIT
tend=$(now_ms)
tr -d '\r' <"$console" >"$console.txt" 2>/dev/null && mv "$console.txt" "$console"

if [ -n "$lockup" ]; then
	fail "the guest kernel hung ('$lockup' in $console; the stack follows it there): QEMU stopped after $(( (tend - tboot) / 1000 ))s instead of the ${hardcap}s hard cap"
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail "QEMU hit the ${hardcap}s hard cap (killed); see $console"
elif [ "$qrc" != 0 ]; then
	fail "QEMU exited $qrc: $(tail -2 "$out/qemu.log" | tr '\n' ' ')"
else
	pass "QEMU ran Xen + dom0$([ "$stage" = domu ] && echo ' + domU') and exited by itself in $(( (tend - tboot) / 1000 ))s"
fi
tm qemu_s $(( (tend - tboot) / 1000 ))

# ------------------------------------------------------------ the guest's console
if grep -q 'Hypervisor detected: Xen PV' "$console"; then
	pass "guest kernel says Hypervisor detected: Xen PV"
else
	fail "no 'Hypervisor detected: Xen PV' in $console"
fi
check "payload disk mounted in the dom0" grep -q '^===FPUSOAK-PAYLOAD-DISK mounted===$' "$console"

# export_checks LOG DIR: decode every export of LOG into DIR, one check each.
export_checks() {
	local status tag detail
	while read -r status tag detail; do
		if [ "$status" = ok ]; then
			pass "export $tag recovered intact ($detail)"
		else
			fail "export $tag not recovered: $detail"
		fi
	done < <(decode_exports "$1" "$2")
	sed -n 's/^===FPUSOAK-EXPORT-MISSING \(.*\)===$/\1/p' "$1" | while read -r tag detail; do
		echo "FAIL: $T_NAME: export $tag: the guest had no such file ($detail)"
	done
	# No console at all (QEMU did not start) is its own failure, not an arithmetic error here.
	local missing
	missing=$(grep -c '^===FPUSOAK-EXPORT-MISSING ' "$1" 2>/dev/null)
	T_FAILS=$((T_FAILS + ${missing:-0}))
}

scon=$console    # the console the scenarios ran on
domid=''
if [ "$stage" = domu ]; then
	# The dom0's own exports (its boot files, the domU's console log, the
	# toolstack's logs) go to dom0/, the domU's to where the dom0 stage's go.
	rm -rf "$out/dom0"
	export_checks "$console" "$out/dom0"
	toolstack=$(con_marker "$console" TOOLSTACK)
	if [ -n "$toolstack" ] && [ "$(con_kv ok "$toolstack")" = 1 ]; then
		pass "toolstack started in the dom0: $toolstack"
	else
		fail "toolstack did not start in the dom0: ${toolstack:-no TOOLSTACK marker} (see $console)"
	fi
	created=$(con_marker "$console" DOMU-CREATED)
	domid=$(con_kv domid "$created")
	if [ -n "$created" ]; then
		pass "xl created the PV domU: $created"
	else
		fail "xl create failed: $(con_marker "$console" DOMU-FAILED) (see $out/dom0/domu/xl.log)"
	fi
	ended=$(con_marker "$console" DOMU-END)
	check "the domU powered itself off (${ended:-no DOMU-END marker})" test "$(con_kv how "$ended")" = poweroff
	scon=$out/console-domu.log
	if [ -f "$out/dom0/domu/console.log" ]; then
		tr -d '\r' <"$out/dom0/domu/console.log" >"$scon"
	else
		fail "the domU's console log did not come back from the dom0"
		: >"$scon"
	fi
	check "domU kernel says Hypervisor detected: Xen PV" grep -q 'Hypervisor detected: Xen PV' "$scon"
	check "payload disk (xen-blkfront) mounted in the domU" grep -q '^===FPUSOAK-PAYLOAD-DISK mounted===$' "$scon"
	# Xen's view of the domU's memory once its balloon is done (xl list: MB).
	xmem=$(awk '$1 == "fpusoak-domu" { print $3 }' "$out/dom0/domu/xl-list.log" 2>/dev/null)
	check "Xen gives the domU ${domu_mem} MB (xl list says '${xmem:-nothing}')" test "${xmem:-0}" = "$domu_mem"
	# and its maximum (memory/static-max, kB: maxmem, or xl mem-max after a balloon).
	xmax=$(cat "$out/dom0/domu/xl-maxmem.log" 2>/dev/null)
	check "the domU's maximum is ${domu_mem} MB (static-max says '${xmax:-nothing}' kB)" test "${xmax:-0}" = $((domu_mem * 1024))
	if [ "$domu_mem" -lt "$domu_boot_mem" ]; then
		bal=$(con_marker "$scon" BALLOON)
		check "the domU ballooned from ${domu_boot_mem} to ${domu_mem} MB before its scenarios ($bal)" test "$(con_kv reached "$bal")" = 1
	fi
	tm domu_memory_mb "$domu_mem"
	tm domu_boot_memory_mb "$domu_boot_mem"
	tm domu_create_to_poweroff_s "$(con_kv seconds "$ended")"
	tm toolstack_start_s "$(con_kv seconds "$toolstack")"
fi

if [ -n "${ddata:-}" ]; then
	# What the domU wrote to its data disk, without mounting it here (debugfs reads the image).
	mkdir -p "$out/data"
	if PATH=$PATH:/sbin:/usr/sbin debugfs -R "rdump / $out/data" "$ddata" >"$out/data.log" 2>&1; then
		pass "the domU's data disk read back: $(find "$out/data" -type f | wc -l) files, $(du -sk "$out/data" | cut -f1) kB in $out/data"
	else
		fail "cannot read the domU's data disk $ddata: $(tail -1 "$out/data.log")"
	fi
	check "the domU mounted its data disk ($(con_marker "$scon" DATA-DISK))" test "$(con_marker "$scon" DATA-DISK)" = mounted
fi
genv=$(con_marker "$scon" ENV)
hv=$(con_kv hypervisor "$genv") gt=$(con_kv guest_type "$genv")
check "guest /sys/hypervisor says xen/PV (got '$hv'/'$gt')" test "$hv/$gt" = xen/PV
export_checks "$scon" "$out"
gup=$(con_marker "$scon" GUEST-UP)
memtotal=$(awk '/^MemTotal:/ {print $2}' "$out/boot/proc/meminfo" 2>/dev/null)
tm memtotal_kb "$memtotal"
tm memfree_boot_kb "$(awk '/^MemFree:/ {print $2}' "$out/boot/proc/meminfo" 2>/dev/null)"
if [ "$stage" = domu ]; then
	# What a domU of that size can show: never more than the domain, and the
	# rest is the kernel's own: Debian's keeps ~47 MB of a PV domU (text, data,
	# a 17 MB bss) plus the memory map, so 64 MB is a loose bound on it; the
	# small kernel kept 13.9 MB of a 64 MB domU, and 20 MB bounds it.
	check "domU MemTotal ${memtotal:-?} kB is that of a ${domu_mem} MB domain (<= $((domu_mem * 1024)), > $(((domu_mem - domu_reserve_mb) * 1024)))" \
		test "${memtotal:-0}" -le $((domu_mem * 1024)) -a "${memtotal:-0}" -gt $(((domu_mem - domu_reserve_mb) * 1024))
	# The kernel's own account at boot: "Memory: 47064K/65148K available (... 17828K reserved ...)".
	kmem=$(grep -a -m1 -o 'Memory: [0-9]*K/[0-9]*K available ([^)]*)' "$scon")
	tm kernel_memory_line "$(echo "$kmem" | sed -E 's/Memory: ([0-9]+)K\/([0-9]+)K available.*[ (]([0-9]+)K reserved.*/available=\1 present=\2 reserved=\3/')"
	tm domu_kernel "${XEN_DOMU_KERNEL:-small} $DOMU_KVER"
fi
first_start=$(sed -n 's/^===FPUSOAK-SCENARIO-START .* epoch=\([0-9]*\)===$/\1/p' "$scon" | head -1)
[ -n "$first_start" ] && tm boot_to_first_scenario_s $(( first_start - tboot / 1000 ))

# ------------------------------------------------------------ each scenario
for n in $runlist; do
	end=$(sed -n "s/^===FPUSOAK-SCENARIO-END $n \(.*\)===\$/\1/p" "$scon" | tail -1)
	src=$(con_kv rc "$end") capped=$(con_kv capped "$end") el=$(con_kv elapsed "$end")
	b=$(. "$staging/$n/env"; echo "$SC_BUDGET")
	if [ -z "$end" ]; then
		fail "scenario $n: no end on the console (guest stopped or hung before it ended)"
	elif [ "$capped" = 1 ]; then
		fail "scenario $n stopped at its ${b}s budget (rc=$src after ${el}s)"
	else
		check "scenario $n exited 0 inside the guest in ${el}s of its ${b}s budget (rc=${src:-none})" test "${src:-x}" = 0
	fi
	[ -n "$el" ] && tm "$n.elapsed_s" "$el"
	# The check, with the scenario's env as the guest had it.
	# shellcheck disable=SC2034 # these are for the sourced NAME.check.sh
	(
		SC_OUT=$out/$n STAGE=$stage GUEST_ENV=$genv T_BOOT_MS=$tboot console=$scon DOMU_ID=$domid
		GUEST_UP_EPOCH=$(con_kv epoch "$gup")
		REPORT_FILE='' REPORT_FIRST_S=''
		if [ -n "$port" ]; then
			REPORT_VIA=host
			if [ -f "$out/.fetch/$n.html" ]; then
				REPORT_FILE=$out/.fetch/$n.html REPORT_FIRST_S=$(( ${fetched_first[$n]:-0} / 1000 ))
			else
				REPORT_FILE=/dev/null
			fi
		elif [ "$stage" = domu ]; then
			REPORT_VIA=guest
		else
			REPORT_VIA=none
		fi
		sc_time() { echo "$n.$1=$2" >>"$times"; }
		mkdir -p "$SC_OUT"
		# shellcheck disable=SC1090,SC1091
		. "$staging/$n/env"
		if [ -f "$XEN_SCENARIO_DIR/$n.check.sh" ]; then
			# shellcheck disable=SC1090
			. "$XEN_SCENARIO_DIR/$n.check.sh"
		else
			skip "scenario $n has no check ($n.check.sh)"
		fi
		exit "$T_FAILS"
	)
	T_FAILS=$((T_FAILS + $?))
done
rm -rf "$out/.fetch"

tm total_s $(( ($(now_ms) - t0) / 1000 ))
info "measured: $(tr '\n' ' ' <"$times")"
t_done
