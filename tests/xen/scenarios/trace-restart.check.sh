# SPDX-License-Identifier: GPL-2.0-only
# Scenario "trace-restart" (host side, after the boot): the killed run's
# instance was there after the kill and gone after the restart, which says
# it removed it; the other tracer's instance and its setting are untouched.
t=$SC_OUT/trace-restart.txt
db=$SC_OUT/fpusoakd.db
line() { sed -n "s/^$1 //p" "$t" | tail -1; }
sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
if [ ! -f "$t" ]; then
	fail "no trace-restart.txt from the guest"
elif grep -q '^no-tracefs' "$t"; then
	skip "no tracefs in this guest: the crash-restart test of the trace instance did not run"
else
	run=$(line running)
	pid=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' <<<"$run")
	inst=$(grep -o "fpusoakd-$pid-[0-9]*" <<<"$run" | head -1)
	check "the first daemon made its instance ($run)" test -n "$inst"
	check "after SIGKILL its instance is still there, triggers set ($(line killed); $(line killed-triggers) triggers)" \
		test "$(grep -c "\<$inst\>" <<<"$(line killed)")" = 1 -a "$(line killed-triggers)" = 3
	check "after the restart it is gone, and the restarted daemon's own too ($(line restarted))" \
		test "$(line restarted)" = "other-tracer "
	check "the other tracer's instance and its setting are untouched (enable: $(line foreign) -> $(line foreign-after))" \
		test "$(line foreign-after)" = 1
	if [ -f "$db" ]; then
		check "the killed run is marked crash" test "$(sq "SELECT end_reason FROM v_runs WHERE run_id = 1")" = crash
		note2=$(sq "SELECT text FROM run_notes WHERE run_id = 2 AND kind = 'tracefs'")
		check "the restarted run says it removed a stale instance (${note2:0:60}...)" grep -q "removed a stale instance" <<<"$note2"
	else
		fail "no DB from the trace-restart scenario"
	fi
fi
