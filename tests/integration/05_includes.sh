#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The shape of the code, from its #include lines (a grep, no compiler):
#   1. no include cycle between modules: a module is a file without its extension (web/page.c and
#      web/page.h are one), an edge is '#include "dir/name.h"'; a cycle is a strongly connected
#      component of more than one module.  The finder is first run on a planted cycle, so a finder
#      that finds nothing cannot pass for a tree without cycles;
#   2. the layers (docs/architecture.md): nothing below the renderers includes them (web/, and cli/,
#      the text one): not common, collector, analysis, cgroup, worker, spawner, fragload, churn, store,
#      report or daemon; nothing but cmd/ includes cmd/, and the programs' rooms (cgroup/, worker/, spawner/, fragload/: code that runs
#      in the spawner, its workers and the fragmenting load) include only each other, collector/,
#      common/ and kmod/'s UAPI header: none of them reaches the daemon's side (churn/, daemon/),
#      the store, the report or the web;
#      and the renderers (web/, cli/) read only through report/: no store/ header, no query_ call
#      (report/read.h hands them the rows they draw, the report/ modules every figure);
#   3. no production .c over MAX_LINES lines (store/ is checked by its own rule, 05_layout.sh).
# No exceptions: a file over the limit is split by role, a cycle is broken (spawner/churn_proto.h is
# how churn.h, spawner.h and probe.h share the spawner's types without including each other).
. "$(dirname "$0")/../lib.sh"
cd "$(dirname "$0")/../.." || exit 1
MAX_LINES=800
PROD="common collector analysis cgroup worker spawner fragload churn store report web cli daemon cmd"
BELOW_WEB="common collector analysis cgroup worker spawner fragload churn store report daemon"
PROGRAMS="cgroup worker spawner fragload"
PROGRAM_MAY="cgroup worker spawner fragload collector common kmod"
tmp=$(mktemp -d /tmp/fpusoak-includes-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

files=$(for d in $PROD; do ls "$d"/*.c "$d"/*.h 2>/dev/null; done)
[ -n "$files" ] || { fail "no source files found under $PROD"; t_done; }

# 1. Module graph: "from to" per include of one of our headers.
for f in $files; do
	from=${f%.*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\/[A-Za-z0-9_]*\)\.h".*/\1/p' "$f" |
		while read -r to; do echo "$from $to"; done
done | sort -u >"$tmp/edges"
# Strongly connected components of more than one module are the cycles.
cat >"$tmp/scc.py" <<'EOF_PY'
import sys
g = {}
for line in open(sys.argv[1]):
    a, b = line.split()
    g.setdefault(a, set()).add(b)
    g.setdefault(b, set())
index, low, stack, on, out = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in sorted(g[v]):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        scc = []
        while True:
            w = stack.pop(); on.discard(w); scc.append(w)
            if w == v: break
        if len(scc) > 1: out.append(" ".join(sorted(scc)))
sys.setrecursionlimit(10000)
for v in sorted(g):
    if v not in index: visit(v)
print("\n".join(out))
EOF_PY
# The finder on a planted cycle (a -> b -> c -> a, beside a chain d -> a): it must name exactly a b c.
printf '%s\n' "x/a x/b" "x/b x/c" "x/c x/a" "x/d x/a" >"$tmp/planted"
planted=$(python3 "$tmp/scc.py" "$tmp/planted") || { fail "the cycle finder failed on the planted cycle"; t_done; }
check "the cycle finder names a planted cycle (x/a x/b x/c; got: ${planted:-nothing})" test "$planted" = "x/a x/b x/c"
python3 "$tmp/scc.py" "$tmp/edges" >"$tmp/cycles" || { fail "the cycle finder failed"; t_done; }
cycles=0
while read -r scc; do
	[ -n "$scc" ] || continue
	fail "include cycle between modules: $scc"; cycles=$((cycles + 1))
done <"$tmp/cycles"
[ "$cycles" -eq 0 ] && pass "no include cycle between modules ($(wc -l <"$tmp/edges") include edges)"

# 2. Layers.
bad=$(for d in $BELOW_WEB; do grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(web\|cli\)/' "$d"/*.[ch] 2>/dev/null; done)
[ -z "$bad" ] && pass "nothing in $BELOW_WEB includes web/ or cli/" || fail "a renderer included from below it: $(echo "$bad" | tr '\n' ' ')"
bad=$(for d in $PROD; do [ "$d" = cmd ] || grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"cmd/' "$d"/*.[ch] 2>/dev/null; done)
[ -z "$bad" ] && pass "only cmd/ includes cmd/" || fail "cmd/ included from a module: $(echo "$bad" | tr '\n' ' ')"

bad=
for d in $PROGRAMS; do
	for f in "$d"/*.[ch]; do
		for to in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/.*/\1/p' "$f"); do
			case " $PROGRAM_MAY " in *" $to "*) ;; *) bad="$bad $f->$to/" ;; esac
		done
	done
done
[ -z "$bad" ] && pass "the programs' rooms ($PROGRAMS) include only $PROGRAM_MAY" ||
	fail "a program's room reaches above it:$bad"

bad=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"store/' web/*.[ch] cli/*.[ch] 2>/dev/null)
[ -z "$bad" ] && pass "web/ and cli/ include nothing from store/ (report/ is their only reader)" ||
	fail "a renderer includes store/: $(echo "$bad" | tr '\n' ' ')"
bad=$(grep -Hn '\bquery_[a-z_]*(' web/*.c cli/*.c 2>/dev/null | grep -v 'struct query_' | head -5)
[ -z "$bad" ] && pass "web/ and cli/ call no query_ function" || fail "a renderer reads the store itself: $(echo "$bad" | tr '\n' ' ')"

# 3. File size.
over=0 n=0 biggest=0 bigname=
for f in $(for d in $PROD; do [ "$d" = store ] || ls "$d"/*.c 2>/dev/null; done); do
	lines=$(wc -l <"$f")
	n=$((n + 1))
	[ "$lines" -gt "$biggest" ] && { biggest=$lines; bigname=$f; }
	[ "$lines" -le "$MAX_LINES" ] && continue
	fail "$f is $lines lines: over $MAX_LINES (split it by role)"; over=$((over + 1))
done
[ "$n" -gt 0 ] || fail "no production .c found outside store/"
[ "$over" -eq 0 ] && [ "$n" -gt 0 ] && pass "no production .c over $MAX_LINES lines outside store/ ($n files; the largest: $bigname, $biggest)"
t_done
