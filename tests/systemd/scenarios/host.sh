# SPDX-License-Identifier: GPL-2.0-only
# Host checks, no root needed (sourced by tests/systemd/run.sh): the units verified, their security
# exposure, their man: links, and fpusoakd.conf against fpusoakd --help.

# ---------------------------------------------------------------- host checks

# A copy of the units that systemd-analyze can check on this host: ExecStart
# points at the binary built in this checkout (or /bin/true when there is
# none yet, said so).  man: links are checked against man/ in the checkout
# by this script, not by systemd-analyze, whose check runs man(1): a minimal
# system has no man viewer, and the page is what matters, not the viewer.
host_checks() {
	local t bin out exposure doc f bad=""
	if ! command -v systemd-analyze >/dev/null; then
		skip "host unit checks (verify, security, man: links, config): systemd-analyze not installed (Debian: systemd; as root this test installs it)"
		return
	fi
	t=$(mktemp -d) || return
	bin=$repo/build/fpusoakd
	if [ ! -x "$bin" ]; then
		note "build/fpusoakd not built: host verify uses ExecStart=/bin/true"
		bin=/bin/true
	fi
	sed "s#^ExecStart=/usr/local/sbin/fpusoakd#ExecStart=$bin#" "$repo/fpusoakd.service" >"$t/fpusoakd.service"
	cp "$repo/fpusoakd.socket" "$t/fpusoakd.socket" 2>/dev/null
	if systemd-analyze verify --man=no "$t/fpusoakd.service" "$t/fpusoakd.socket" >"$t/verify" 2>&1 &&
		[ ! -s "$t/verify" ]; then
		pass "systemd-analyze verify --man=no fpusoakd.service fpusoakd.socket is clean (host, ExecStart=$bin)"
	else
		fail "systemd-analyze verify reports problems (host)"
		show "$t/verify"
	fi
	for doc in $(sed -n 's/^Documentation=//p' "$repo/fpusoakd.service" "$repo/fpusoakd.socket" | tr ' ' '\n' |
		sed -n 's/^man:\([^(]*\)(\([0-9]\))$/\1.\2/p' | sort -u); do
		f=$repo/man/$doc
		[ -f "$f" ] && grep -qi "^\.TH ${doc%.*} ${doc##*.} " "$f" || bad="$bad $doc"
	done
	[ -n "$doc" ] && [ -z "$bad" ] && pass "every Documentation=man: link of the units names a page in man/ ($doc, .TH matches)" ||
		fail "Documentation=man: links without a page in man/:${bad:- none found}"
	# --offline=yes rates the file alone, as a reader of the unit would.
	out=$(systemd-analyze security --offline=yes "$repo/fpusoakd.service" 2>&1)
	exposure=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for fpusoakd.service: \([0-9.]*\).*/\1/p')
	if [ -n "$exposure" ]; then
		timing "security exposure (systemd-analyze security --offline=yes) $exposure"
		if awk -v e="$exposure" 'BEGIN { exit !(e <= 2.5) }'; then
			pass "security exposure $exposure <= 2.5"
		else
			fail "security exposure $exposure > 2.5"
			printf '%s\n' "$out" | grep '✗' | sed 's/^/      | /'
		fi
	else
		fail "systemd-analyze security gave no exposure figure"
		printf '%s\n' "$out" | sed -n '1,10p' | sed 's/^/      | /'
	fi
	# Every unset protection carries a reason: "# X= not set: why".
	local missing=""
	for d in $(printf '%s\n' "$out" | sed -n 's/^✗ \([A-Za-z]*\)=.*/\1/p' | sort -u); do
		case $d in
		SystemCallFilter) grep -q '^# SystemCallFilter=~@[a-z-]* not set:' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		RestrictAddressFamilies) grep -q '^RestrictAddressFamilies=' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		CapabilityBoundingSet) grep -q '^# CAP_[A-Z_]*:' "$repo/fpusoakd.service" || missing="$missing $d" ;;
		Delegate|DeviceAllow) grep -q "^$d=" "$repo/fpusoakd.service" || missing="$missing $d" ;;
		*) grep -q "^# $d=.* not set:\|^# .*$d=.*not set:" "$repo/fpusoakd.service" || missing="$missing $d" ;;
		esac
	done
	if [ -z "$missing" ]; then
		pass "every protection left off in fpusoakd.service has a reason in a comment"
	else
		fail "protections left off without a '# X= not set: why' comment:$missing"
	fi
	# The commented default config names every option the daemon has.
	if [ -x "$repo/build/fpusoakd" ]; then
		local opts absent=""
		opts=$("$repo/build/fpusoakd" --help 2>/dev/null | sed -n 's/^ *--\([a-z-]*\) [A-Z:]*.*/\1/p')
		for o in $opts; do
			case $o in config | help | version) continue ;; esac
			grep -q "^#$o = \|^#$o =\$" "$repo/fpusoakd.conf" || absent="$absent $o"
		done
		if [ -n "$opts" ] && [ -z "$absent" ]; then
			pass "fpusoakd.conf has a commented default for every option in --help ($(echo $opts | wc -w))"
		else
			fail "fpusoakd.conf lacks options from fpusoakd --help:${absent:- (no options parsed from --help)}"
		fi
	else
		skip "fpusoakd.conf against --help: build/fpusoakd not built"
	fi
	rm -rf "$t"
}
