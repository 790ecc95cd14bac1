#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Layout of store/ (issue 15): every production .c file there stays under LAYOUT_MAX_LINES
# lines (a file that grows past it is doing two jobs: split it by role), the writer's and the
# reader's internal headers are included by store/ files only (everything else goes through
# store/store.h and store/query.h), and struct store has one owner: it is defined in store/writer.c
# alone, which hands each of the writer's files only the part of it that file works on (issue 33).
# The programs' rooms (issue 33): each program that runs as its own process has its body in a
# folder of its own (the spawner in spawner/, a worker's life in worker/, the fragmenting load in
# fragload/, the cgroup handle in cgroup/), its main() in cmd/, and churn/ keeps the daemon's side
# only: no program's body is defined there.  And no production function keeps state of its own
# in a function-local static (const tables aside): what outlives a call lives in its program's one
# context struct (STYLE: one context, no other mutable globals).
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
for h in statements dims tick write rollup_write retain migrate reader; do
	users=$(grep -l "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"store/$h\.h\"" $outside 2>/dev/null | tr '\n' ' ')
	if [ -z "$users" ]; then
		pass "store/$h.h is included by store/ files only"
	else
		fail "store/$h.h is internal to store/ but included by: $users"
	fi
done
owners=$(grep -l '^struct store {' $(ls */*.c */*.h | grep -v '^tests/\|^bench/') 2>/dev/null | tr '\n' ' ')
[ "$owners" = "store/writer.c " ] && pass "struct store is defined in store/writer.c alone" ||
	fail "struct store is defined in '${owners% }', not in store/writer.c alone"

# Where each program's body is defined: "function folder".
for fd in "spawner_main spawner" "spawner_exec_main spawner" "fragload_main fragload" "fragload_exec_main fragload" \
	  "worker_run worker" "probe_switch_child spawner" "cgroup_open cgroup" "churn_open churn"; do
	set -- $fd
	where=$(grep -l "^[a-z].*[ *]$1(" $(ls */*.c | grep -v '^tests/\|^bench/') 2>/dev/null | tr '\n' ' ')
	case "$where" in
	"$2/"*.c" ") pass "$1 is defined in $2/ ($where)" ;;
	*) fail "$1 is defined in '${where% }', not in $2/" ;;
	esac
done
extra=$(ls churn/*.[ch] 2>/dev/null | grep -v '^churn/churn\.[ch]$' | tr '\n' ' ')
[ -z "$extra" ] && pass "churn/ holds the daemon's side only (churn.c, churn.h)" || fail "churn/ holds more than the daemon's side: $extra"
statics=$(grep -nE '^[[:space:]]+static ' $(ls */*.c | grep -v '^tests/\|^bench/\|^kmod/') | grep -v 'static const' | head -5)
[ -z "$statics" ] && pass "no function-local mutable static in production code" ||
	fail "function-local mutable statics (move them into the program's context): $(echo "$statics" | tr '\n' ' ')"
for m in spawner_main web_main main; do
	[ -f "cmd/$m.c" ] && pass "cmd/$m.c holds a program's main()" || fail "cmd/$m.c is missing"
done
t_done
