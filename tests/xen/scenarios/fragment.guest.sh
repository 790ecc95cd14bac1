# SPDX-License-Identifier: GPL-2.0-only
# Scenario "fragment" (guest side): run 1 without the fragmenting load, run 2 with
# --fragment heavy, FRAG_SECONDS each, in one DB; then the DB and the /proc files.
db=/tmp/fragment.db
LABEL=fragment-off
daemon_start "$db" --duration "${FRAG_SECONDS}s" --fragment off
daemon_wait
rc1=$?
LABEL=fragment-heavy
daemon_start "$db" --duration "${FRAG_SECONDS}s" --fragment heavy
daemon_wait
rc2=$?
export_db fpusoakd.db "$db"
export_proc meminfo pagetypeinfo vmstat
[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
