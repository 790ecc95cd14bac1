#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Layout of store/ (issue 15): every production .c file there stays under LAYOUT_MAX_LINES
# lines (a file that grows past it is doing two jobs: split it by role), and the writer's
# and the reader's internal headers (store/writer.h, store/reader.h) are included by store/
# files only: everything else goes through store/store.h and store/query.h.
# Reads the source tree only (run from the top of it, as make test does).
. "$(dirname "$0")/../lib.sh"
max=${LAYOUT_MAX_LINES:-800}

n=0
for f in store/*.c; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	lines=$(wc -l < "$f")
	if [ "$lines" -le "$max" ]; then
		pass "$f: $lines lines (at most $max)"
	else
		fail "$f: $lines lines, more than $max: split it by role"
	fi
done
[ "$n" -gt 0 ] || fail "no store/*.c found: run from the top of the source tree"

# Every C file of the project outside store/, tests and benches included.
outside=$(find . -path ./build -prune -o -path ./store -prune -o \( -name '*.c' -o -name '*.h' \) -print | sort)
for h in writer reader; do
	users=$(grep -l "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"store/$h\.h\"" $outside 2>/dev/null | tr '\n' ' ')
	if [ -z "$users" ]; then
		pass "store/$h.h is included by store/ files only"
	else
		fail "store/$h.h is internal to store/ but included by: $users"
	fi
done
t_done
