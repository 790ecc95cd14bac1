#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# contrib/prometheus/fpusoakd.rules.yml: `promtool check rules` is clean, every alert has a
# summary and a description, and `promtool test rules` passes the tests beside it (each alert
# fires where it must and stays quiet where it must not; the fleet recording rules by label and
# kernel).  tests/integration/56_prometheus.sh loads the same file into a real Prometheus.
# Skips visibly without promtool (Debian: prometheus).
. "$(dirname "$0")/../lib.sh"
dir=$(cd "$(dirname "$0")/../../contrib/prometheus" && pwd)
if ! command -v promtool >/dev/null; then
	skip "promtool is not installed (Debian: apt-get install prometheus): rules not checked"
	t_done
fi
out=$(promtool check rules "$dir/fpusoakd.rules.yml" 2>&1)
if [ $? = 0 ] && ! grep -qi 'warn' <<<"$out"; then
	pass "promtool check rules fpusoakd.rules.yml: $(grep -o '[0-9]* rules found' <<<"$out")"
else
	fail "promtool check rules: $out"
fi
# Each alert carries both annotations, and each alert is named in a test file.
for a in $(sed -n 's/^ *- alert: //p' "$dir/fpusoakd.rules.yml"); do
	ann=$(awk -v a="$a" '$0 ~ "- alert: "a"$" { on = 1; next } on && /- (alert|record):/ { on = 0 } on && /^ *(summary|description):/ { sub(/:.*/, ""); gsub(/ /, ""); print }' \
		"$dir/fpusoakd.rules.yml" | sort | tr '\n' ' ')
	check "alert $a has summary and description annotations ($ann)" test "$ann" = "description summary "
	# An evaluation of this alert expecting it quiet ("exp_alerts: []") and one expecting it to fire.
	quiet=$(cat "$dir"/*.test.yml | grep -A1 "alertname: $a\$" | grep -c 'exp_alerts: \[\]')
	fires=$(cat "$dir"/*.test.yml | grep -A1 "alertname: $a\$" | grep -c 'exp_alerts: *$')
	check "alert $a is tested: $fires evaluations where it fires, $quiet where it must not" test "$fires" -ge 1 -a "$quiet" -ge 1
done
cd "$dir" || exit 1
for f in *.test.yml; do
	out=$(promtool test rules "$f" 2>&1)
	if [ $? = 0 ]; then
		pass "promtool test rules $f: $(grep -c 'alertname:' "$f") alert evaluations and $(grep -c '^ *- expr:' "$f") expressions pass"
	else
		fail "promtool test rules $f"
		sed -n '1,40p' <<<"$out" | sed 's/^/      | /'
	fi
done
t_done
