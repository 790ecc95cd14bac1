#!/usr/bin/env bash
# fpusoakd inside a real Xen 4.17 PV guest (dom0) under QEMU TCG.
#
# Boots Debian's Xen and kernel with an initramfs that runs a bounded soak,
# reads everything back from the serial console (the DB as gzip+base64 with a
# sha256, /proc files between markers), fetches the report over QEMU's
# user-mode network (host side bound to 127.0.0.1 only), and checks the DB with
# sqlite3 against facts taken from the guest kernel independently of the daemon.
#
# Artifacts in $BUILD/xen/: console.log, fpusoakd-xen.db, report.html,
# proc/<name> (the guest's /proc files after the soak), times.txt.
#
# Env knobs: XEN_PAYLOAD=auto|daemon|standin (auto: the daemon if built),
# XEN_SOAK_SECONDS (default 150), XEN_HARD_CAP seconds for QEMU (default 420),
# XEN_FPUSOAKD_ARGS (replaces the churn/probe flags chosen from --help),
# XEN_NO_REPORT=1 (run the daemon with --listen none, skip the report check).
# KVM is never used: Xen under KVM hangs on this kind of machine, TCG boots.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
T_NAME=${T_NAME:-xen}
# shellcheck source=tests/lib.sh disable=SC1091
. "$repo/tests/lib.sh"
info() { echo "INFO: $T_NAME: $*"; }

BUILD=${BUILD:-$repo/build}
FPUSOAKD=${FPUSOAKD:-$BUILD/fpusoakd}
out=$BUILD/xen
soak=${XEN_SOAK_SECONDS:-150}
hardcap=${XEN_HARD_CAP:-420}
payload=${XEN_PAYLOAD:-auto}
t0=$(date +%s%3N)
mkdir -p "$out"

# ------------------------------------------------------------ preparation
prep_log=$out/prepare.log
bash "$here/prepare.sh" >"$prep_log" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	skip "Xen PV test bed cannot be prepared here: $(grep 'cannot prepare' "$prep_log" | tail -1)"
	t_done
elif [ "$rc" != 0 ]; then
	fail "prepare.sh exited $rc (see $prep_log)"
	t_done
fi
# shellcheck disable=SC1091
. "${XEN_CACHE:-$here/cache}/env"
info "xen $XEN_VERSION, $LINUX_VERSION, qemu $(qemu-system-x86_64 --version | head -1 | awk '{print $4}')"

if [ "$payload" = auto ]; then
	if [ -x "$FPUSOAKD" ]; then payload=daemon; else payload=standin; fi
fi
args='' probe_at=''
if [ "$payload" = daemon ]; then
	[ -x "$FPUSOAKD" ] || { fail "XEN_PAYLOAD=daemon but $FPUSOAKD is not built"; t_done; }
	help=$("$FPUSOAKD" --help 2>&1)
	if [ -n "${XEN_FPUSOAKD_ARGS+set}" ]; then
		args=$XEN_FPUSOAKD_ARGS
	else
		# Churn sized for the emulated guest (~176 fork+AVX lifecycles/s at
		# most); one capacity probe in guest scope, started by SIGUSR1 from
		# /init a quarter into the soak: churn runs before and after it, and
		# the fill (16-45 s under TCG, thrashing near the end) has time to end.
		if grep -q -- '--workers' <<<"$help"; then
			args="--workers 8 --spawn-rate 40 --lifetime 200ms --fpu auto"
		fi
		if grep -q -- '--probe-interval' <<<"$help"; then
			args="$args --probe-interval 0 --probe-scope guest --probe-limit 4000"
			probe_at=$((soak / 4))
		fi
		# The FPU-cost probe is another test's subject; keep this soak to one probe.
		if grep -q -- '--switch-probe-interval' <<<"$help"; then
			args="$args --switch-probe-interval 0"
		fi
	fi
elif [ -x "$FPUSOAKD" ]; then
	skip "XEN_PAYLOAD=$payload: sqlite3 stand-in payload, daemon checks not run"
else
	skip "fpusoakd not built ($FPUSOAKD): running the sqlite3 stand-in payload, daemon checks not run"
fi
info "payload $payload, soak ${soak}s, daemon flags: ${args:-(none)}${probe_at:+, SIGUSR1 (capacity probe) at ${probe_at}s}"

# A free loopback port for the report; the guest listens on 8089.
port=
if [ -z "${XEN_NO_REPORT:-}" ] && command -v curl >/dev/null; then
	for _ in 1 2 3 4 5 6 7 8; do
		p=$((20000 + RANDOM % 30000))
		if ! ss -ltnH "sport = :$p" 2>/dev/null | grep -q .; then port=$p; break; fi
	done
fi

initrd=$out/initrd.gz disk=$out/payload.img
if ! bash "$here/mkinitramfs.sh" --out "$initrd" --disk "$disk" --payload "$payload" --daemon "$FPUSOAKD" \
	--seconds "$soak" --port "${port:+8089}" --args "$args" --probe-at "$probe_at" 2>"$out/mkinitramfs.log"; then
	fail "mkinitramfs.sh failed: $(tail -1 "$out/mkinitramfs.log")"
	t_done
fi

# ------------------------------------------------------------ boot
# -cpu max offers the widest FPU TCG emulates (AVX2); its SMAP emulation
# crashes Xen's PV dom0 at its first bounce frame, so SMAP is left out (Xen
# hides SMAP from PV guests anyway).  The programs and libraries come on a
# read-only virtio disk (page cache, not pinned ramfs).  restrict=on: the guest reaches nothing,
# only the forwarded loopback port reaches it.
console=$out/console.log
rm -f "$console" "$out/fpusoakd-xen.db" "$out/report.html"
net=(-net none)
if [ -n "$port" ]; then
	# shellcheck disable=SC2054 # QEMU option values are comma lists
	net=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:8089"
		-device e1000,netdev=n0,romfile=)
fi
tboot=$(date +%s%3N)
timeout -k 5 "$hardcap" qemu-system-x86_64 -m 512 -smp 2 -cpu max,-smap -accel tcg \
	-display none -no-reboot -monitor none -serial "file:$console" "${net[@]}" \
	-drive "file=$disk,format=raw,if=virtio,readonly=on" \
	-kernel "$XEN_ELF" -append "console=com1 dom0_mem=160M,max:160M" \
	-initrd "$KERNEL console=hvc0 panic=1,$initrd" </dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
# Only the timeout wrapper we started (and so its QEMU) is ever killed.
trap 'kill "$qpid" 2>/dev/null' EXIT

fetched=
if [ -n "$port" ]; then
	# Fetch once the daemon has had time for some samples, retrying while the
	# guest is up; the last good copy is kept.
	while kill -0 "$qpid" 2>/dev/null; do
		if grep -aq '===FPUSOAK-PAYLOAD-EXIT' "$console" 2>/dev/null; then break; fi
		if grep -aq '===FPUSOAK-PAYLOAD-START' "$console" 2>/dev/null &&
			curl -fsS -m 20 -o "$out/report.html.tmp" "http://127.0.0.1:$port/" 2>/dev/null; then
			mv "$out/report.html.tmp" "$out/report.html"
			fetched=$(( $(date +%s%3N) - tboot ))
			# One more fetch later in the soak makes the kept report fuller.
			sleep $((soak / 2))
			curl -fsS -m 20 -o "$out/report.html.tmp" "http://127.0.0.1:$port/" 2>/dev/null &&
				mv "$out/report.html.tmp" "$out/report.html"
			break
		fi
		sleep 3
	done
fi
wait "$qpid"
qrc=$?
trap - EXIT
tend=$(date +%s%3N)
tr -d '\r' <"$console" >"$console.txt" 2>/dev/null && mv "$console.txt" "$console"

if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	fail "QEMU hit the ${hardcap}s hard cap (killed); see $console"
elif [ "$qrc" != 0 ]; then
	fail "QEMU exited $qrc: $(tail -2 "$out/qemu.log" | tr '\n' ' ')"
else
	pass "QEMU ran Xen + dom0 and exited by itself in $(( (tend - tboot) / 1000 ))s"
fi

# ------------------------------------------------------------ console facts
marker() { sed -n "s/^===FPUSOAK-$1 \(.*\)===\$/\1/p" "$console" | tail -1; }
kv() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }
if grep -q 'Hypervisor detected: Xen PV' "$console"; then
	pass "guest kernel says Hypervisor detected: Xen PV"
else
	fail "no 'Hypervisor detected: Xen PV' in $console"
fi
env=$(marker ENV)
hv=$(kv hypervisor "$env") gt=$(kv guest_type "$env")
check "guest /sys/hypervisor says xen/PV (got '$hv'/'$gt')" test "$hv/$gt" = xen/PV

mkdir -p "$out/proc"
for f in meminfo buddyinfo zoneinfo pagetypeinfo slabinfo vmstat buddyinfo.boot meminfo.boot cpuinfo; do
	sed -n "/^===FPUSOAK-FILE-BEGIN $f===\$/,/^===FPUSOAK-FILE-END $f===\$/p" "$console" |
		sed '1d;$d' >"$out/proc/$f"
done
check "guest /proc/buddyinfo came out over the console" grep -q '^Node 0, zone' "$out/proc/buddyinfo"

check "payload disk mounted in the guest" grep -q '^===FPUSOAK-PAYLOAD-DISK mounted===$' "$console"
exitline=$(marker PAYLOAD-EXIT)
prc=$(kv rc "$exitline")
check "payload exited 0 inside the guest (rc=${prc:-none}; 143/137 = stopped by the guest timeout)" test "${prc:-x}" = 0

# ------------------------------------------------------------ the DB
db=$out/fpusoakd-xen.db
sum=$(marker DB-SHA256)
sed -n '/^===FPUSOAK-DB-BEGIN/,/^===FPUSOAK-DB-END===$/p' "$console" | sed '1d;$d' |
	grep -E '^[A-Za-z0-9+/=]+$' | base64 -d >"$db.gz" 2>/dev/null
got=$(sha256sum "$db.gz" | cut -d' ' -f1)
if [ -n "$sum" ] && [ "$got" = "$sum" ] && gunzip -c "$db.gz" >"$db" 2>/dev/null; then
	pass "DB recovered intact from the console (sha256 $got, $(wc -c <"$db") bytes)"
else
	fail "DB not recovered from the console (sha256 sent '${sum:-none}', decoded '$got')"
	rm -f "$db"
fi
rm -f "$db.gz"

sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
has() { [ "$(sq "SELECT count(*) FROM sqlite_master WHERE name = '$1'")" = 1 ]; }
if [ -f "$db" ]; then
	check "DB passes PRAGMA integrity_check" test "$(sq 'PRAGMA integrity_check')" = ok
	run=$(sq "SELECT max(run_id) FROM v_runs")
	row=$(sq "SELECT hypervisor || '/' || guest_type FROM v_runs WHERE run_id = $run")
	check "run $run records hypervisor/guest_type xen/PV (got '$row')" test "$row" = xen/PV
	rel=$(sq "SELECT kernel_release FROM v_runs WHERE run_id = $run")
	check "run records the guest's kernel release ($rel = $(kv release "$env"))" test "$rel" = "$(kv release "$env")"
	reason=$(sq "SELECT end_reason FROM v_runs WHERE run_id = $run")
	# --duration ends a run on its own; either word means the daemon was not killed.
	case "$reason" in
	stopped | duration) pass "daemon ended the run itself (end_reason=$reason)" ;;
	*) fail "run did not end cleanly (end_reason='$reason')" ;;
	esac

	# Zones seen in the DB are the zones the guest's kernel lists.
	kz=$(awk '{ sub(",", "", $2); print $2 "/" $4 }' "$out/proc/buddyinfo" | sort -u | tr '\n' ' ')
	dz=$(sq "SELECT DISTINCT node || '/' || zone FROM v_buddyinfo WHERE run_id = $run ORDER BY 1" | tr '\n' ' ')
	check "buddyinfo zones in the DB match the guest's /proc/buddyinfo ($dz)" test "$kz" = "$dz"
	if has v_samples; then
		ns=$(sq "SELECT count(*) FROM v_samples WHERE run_id = $run")
		# 1 s sampling over the soak; half of it is a loose floor for TCG jitter.
		check "samples recorded ($ns over a ${soak}s soak, want >= $((soak / 2)))" test "$ns" -ge $((soak / 2))
		first=$(sq "SELECT min(ts_ms) FROM v_samples WHERE run_id = $run")
	else
		nb=$(sq "SELECT count(DISTINCT ts_ms) FROM v_buddyinfo WHERE run_id = $run")
		check "buddyinfo samples recorded ($nb over ${soak}s, want >= $((soak / 2)))" test "$nb" -ge $((soak / 2))
		first=$(sq "SELECT min(ts_ms) FROM v_buddyinfo WHERE run_id = $run")
	fi

	if [ "$payload" != daemon ]; then
		:
	elif ! has v_churn; then
		skip "churn accounting: no v_churn view in this daemon yet"
	else
		cols=" $(sq "SELECT name FROM pragma_table_info('v_churn')" | tr '\n' ' ') "
		need="population spawned exited killed_sigkill killed_sigsegv killed_sigill killed_other"
		miss=; for c in $need; do case "$cols" in *" $c "*) ;; *) miss="$miss $c" ;; esac; done
		if [ -n "$miss" ]; then
			skip "churn accounting: v_churn lacks$miss (has:$cols)"
		else
			# v_churn rows are per-interval counts: over the run, every worker
			# spawned has exited, been killed, or is alive at the last row.
			# (oom_killed is a subset of the kills, exited_error of the exits.)
			acc=$(sq "SELECT sum(spawned), sum(exited),
				sum(killed_sigkill + killed_sigsegv + killed_sigill + killed_other),
				(SELECT population FROM v_churn WHERE run_id = $run ORDER BY ts_ms DESC LIMIT 1)
				FROM v_churn WHERE run_id = $run" | tr '|' ' ')
			read -r sp ex ki pop <<<"$acc"
			if [ "${sp:-0}" -gt 0 ] 2>/dev/null && [ "$sp" -eq $((ex + ki + pop)) ]; then
				pass "churn accounting: spawned $sp = exited $ex + killed $ki + population $pop"
			else
				fail "churn accounting: spawned '$sp' != exited '$ex' + killed '$ki' + population '$pop'"
			fi
		fi
	fi

	if [ "$payload" != daemon ]; then
		:
	elif ! has v_probes; then
		skip "capacity probe: no v_probes view in this daemon yet"
	else
		# detail is "scope=guest limit=... ready=... mem_peak=..." (key=value).
		pr=$(sq "SELECT CAST(result AS INTEGER) || '|' || coalesce(stop_reason, '') FROM v_probes
			WHERE run_id = $run AND kind = 'capacity' AND ' ' || detail || ' ' LIKE '% scope=guest %'
			ORDER BY ts_ms DESC LIMIT 1")
		cap=${pr%%|*} why=${pr#*|}
		if [ "${cap:-0}" -gt 0 ] 2>/dev/null && [ -n "$why" ]; then
			pass "guest-scope capacity probe: $cap workers held, stopped by '$why'"
		else
			fail "no guest-scope capacity probe with a positive count and a stop reason (got '$pr')"
			cap=
		fi
	fi
fi

if [ -z "$port" ]; then
	skip "report not fetched: ${XEN_NO_REPORT:+XEN_NO_REPORT set, }no curl or no free loopback port"
elif grep -q 'xen-pv-testbed' "$out/report.html" 2>/dev/null; then
	pass "report fetched from the guest over 127.0.0.1:$port ($(wc -c <"$out/report.html") bytes, first at +$((fetched / 1000))s)"
else
	fail "report naming run label xen-pv-testbed not fetched from the guest (127.0.0.1:$port)"
fi

# ------------------------------------------------------------ measurements
up=$(marker PAYLOAD-START)
pstart=$(kv epoch "$up")
{
	echo "total_s=$(( ($(date +%s%3N) - t0) / 1000 ))"
	echo "qemu_s=$(( (tend - tboot) / 1000 ))"
	echo "guest_uptime_at_payload_s=$(kv uptime "$up")"
	[ -n "$pstart" ] && echo "boot_to_payload_s=$(( pstart - tboot / 1000 ))"
	[ -n "${first:-}" ] && echo "boot_to_first_sample_s=$(( (first - tboot) / 1000 ))"
	[ -n "${cap:-}" ] && echo "capacity_guest=$cap"
	echo "memtotal_kb=$(awk '/^MemTotal:/ {print $2}' "$out/proc/meminfo.boot")"
	echo "memfree_boot_kb=$(awk '/^MemFree:/ {print $2}' "$out/proc/meminfo.boot")"
	echo "memfree_end_kb=$(awk '/^MemFree:/ {print $2}' "$out/proc/meminfo")"
} >"$out/times.txt"
info "measured: $(tr '\n' ' ' <"$out/times.txt")"
t_done
