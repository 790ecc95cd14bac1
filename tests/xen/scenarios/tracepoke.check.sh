# SPDX-License-Identifier: GPL-2.0-only
# Scenario "tracepoke" (host side, after the boot): the guest came through its loop.  A hung guest
# is reported by run.sh (soft lockup); this says how far the loop got.
t=$SC_OUT/tracepoke.txt
if [ ! -f "$t" ]; then
	fail "no tracepoke.txt from the guest"
elif grep -q '^no-tracefs' "$t"; then
	skip "no tracefs in this guest"
else
	info "tracepoke: $(tr '\n' ' ' <"$t")"
	check "the guest toggled mm_page_alloc in an instance and came back ($(tr '\n' ' ' <"$t"))" grep -q '^toggles [1-9]' "$t"
	sc_time tracepoke_toggles "$(sed -n 's/^toggles \([0-9]*\).*/\1/p' "$t")"
	sc_time tracepoke_cpus "$(sed -n 's/^cpus //p' "$t")"
fi
