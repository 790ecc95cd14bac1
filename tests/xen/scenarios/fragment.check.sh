# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (host side, after the boot): the positive control.  Draft: the runs are
# there and sane; the comparisons follow.
db=$SC_OUT/fpusoakd.db
sq() { sqlite3 -batch -noheader "$db" "$@" 2>&1; }
if [ ! -f "$db" ]; then
	fail "no DB from the fragment scenario"
	return 0 2>/dev/null || exit 0
fi
check "DB passes PRAGMA integrity_check" test "$(sq 'PRAGMA integrity_check')" = ok
for r in 1 2; do
	lab=$(sq "SELECT label FROM v_runs WHERE run_id = $r")
	n=$(sq "SELECT count(*) FROM v_samples WHERE run_id = $r")
	check "run $r ($lab): $n samples over ${FRAG_SECONDS}s, at least 180" test "$n" -ge 180
done
