#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# test-timeout: 900
# A real browser on real pages: headless Chromium (Debian's chromium, driven by playwright-core from
# npm) at 1280x800 with JavaScript off loads the report and checks what tests/browser/check.mjs lists:
# HTTP 200, no console error or failed request, charts drawn; the headline inside the first 800 px of
# a run page and of /, the verdict table on the first screen of a compare; no two legend or tick
# labels overlapping and every axis's tick labels unique; no horizontal scroll; every link answering
# 200; "compare selected" on /runs opening the comparison.
#   1. the daemon, live, on a DB seeded with tests/unit/testdb.h's content (every report section
#      filled, hostile strings included): /, a seeded run, the live run, a compare, /runs;
#   2. fpusoakd serve on two DBs: a 1-hour run (bench/genhistory --hours 1, this machine's zones)
#      and the seeded DB the daemon is still writing: the 1-hour run's page (and its height, held
#      under 5,000 px), a compare across the two files, /runs over both.
# Screenshots (full page and first screen) go to $BUILD/test-logs/browser/.  What it needs and
# installs itself as root on Debian (like the Xen and systemd suites): chromium, nodejs and npm
# (apt-get), then playwright-core from npm into $BUILD/browser/, pinned: 1.65.1 on Node >= 20,
# 1.61.1 (the last for Node 18) on Debian 12's Node 18.  Skips visibly when chromium cannot be
# installed; without node/npm/playwright-core, says so (SKIP) and falls back to chromium --dump-dom.
. "$(dirname "$0")/../lib.sh"
need curl:curl python3:python3 sqlite3:sqlite3
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
BUILD=${BUILD:-$PWD/build}
art=$BUILD/test-logs/browser
tmp=$(mktemp -d /tmp/fpusoak-browser-XXXXXX)
pid= spid=
cleanup() {
	[ -n "$spid" ] && kill -TERM "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Debian packages for the commands missing among chromium, node, npm (command:package).
want=
for cp in chromium:chromium node:nodejs npm:npm; do command -v "${cp%%:*}" >/dev/null || want="$want ${cp#*:}"; done
if [ -n "$want" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing$want (apt-get)"
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y --no-install-recommends $want >"$tmp/apt.log" 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y --no-install-recommends $want >"$tmp/apt.log" 2>&1; } ||
		echo "apt-get install$want failed: $(tail -2 "$tmp/apt.log")"
fi
if ! command -v chromium >/dev/null; then
	skip "chromium is not installed and could not be installed (as root: apt-get install chromium): no browser test"
	t_done
fi
mkdir -p "$art" "$BUILD/browser"
rm -f "$art"/*.png

# The seeded DB: runs 1 and 3 with every table of the report, run 2 empty.
libs=$(fpusoak_ldlibs)
cc -std=gnu11 -O1 -I. -I"$BUILD/gen" tests/browser/seed.c "$BUILD/libfpusoak.a" $libs \
	-o "$BUILD/browser/seed" 2>"$tmp/cc.log" || { fail "build tests/browser/seed.c: $(head -3 "$tmp/cc.log")"; t_done; }
db=$("$BUILD/browser/seed" "$tmp") || { fail "seed the database"; t_done; }
# A 1-hour run on this machine's zones (the page whose height is measured).
cc -std=gnu11 -O2 -I. bench/genhistory.c "$BUILD/libfpusoak.a" $libs -o "$BUILD/browser/genhistory" 2>"$tmp/cc2.log" ||
	{ fail "build bench/genhistory.c: $(head -3 "$tmp/cc2.log")"; t_done; }
"$BUILD/browser/genhistory" --db "$tmp/hour.db" --hours 1 >"$tmp/gen.log" 2>&1 || { fail "genhistory --hours 1: $(tail -2 "$tmp/gen.log")"; t_done; }

port=$(free_port)
"$FPUSOAKD" --db "$db" --listen 127.0.0.1:$port --workers 0 --probe-interval 0 --switch-probe-interval 0 \
	--kmsg none --sample-interval 500ms --label "browser <b>live</b>" >"$tmp/daemon.log" 2>&1 &
pid=$!
for i in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
check "daemon serves the seeded DB on 127.0.0.1:$port" curl -fs "http://127.0.0.1:$port/healthz"
live=$(sqlite3 -batch -noheader "$db" "SELECT max(run_id) FROM runs")
# A few live samples for /, waited for in the DB: ticks are committed in groups of up to 5 s
# (README "Crash safety"), so a fixed sleep raced the first group.
for i in $(seq 300); do
	n=$(sqlite3 -batch -noheader "file:$db?mode=ro" "SELECT count(*) FROM samples WHERE run_id=$live" 2>/dev/null)
	[ "${n:-0}" -ge 3 ] && break; sleep 0.05
done
[ "${n:-0}" -ge 3 ] && pass "the live run has $n samples in the DB (>= 3, for /'s charts)" ||
	fail "the live run has ${n:-no} samples in the DB after 15 s (want >= 3)"

"$FPUSOAKD" serve --db "$tmp/hour.db" --db "$db" --listen 127.0.0.1:0 2>"$tmp/serve.err" &
spid=$!
for i in $(seq 100); do sport=$(sed -n 's#^fpusoakd serve: http://127.0.0.1:\([0-9]*\)/.*#\1#p' "$tmp/serve.err"); [ -n "$sport" ] && break; sleep 0.05; done
[ -n "$sport" ] && pass "fpusoakd serve on the 1-hour DB and the seeded DB the daemon writes" || fail "serve did not start: $(cat "$tmp/serve.err")"

# NAME=PATH|MIN_SVGS|KIND[|MAX_HEIGHT] (tests/browser/check.mjs)
daemon_pages=("index=/|2|run" "run1=/runs/1|10|run" "live=/runs/$live|3|run" "compare=/compare?a=1&b=3|2|compare" "runs=/runs|0|runs")
serve_pages=("hour=/runs/hour:1|8|run|5000" "cross-compare=/compare?a=hour:1&b=test:1|1|compare" "serve-runs=/runs|0|runs"
	     "serve-index=/|1|run")
# playwright-core pinned to a release that supports this Node (its package.json "engines"), each in
# its own folder so a Node upgrade never runs a stale one.
pwdir= why=
if command -v node >/dev/null; then
	nodemajor=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
	if [ "$nodemajor" -ge 20 ]; then pwver=1.65.1; elif [ "$nodemajor" -ge 18 ]; then pwver=1.61.1; else pwver=; fi
	pwver=${PLAYWRIGHT_CORE_VERSION:-$pwver}   # to try another release by hand
	if [ -z "$pwver" ]; then
		why="node $(node --version) is older than 18 (playwright-core needs >= 18)"
	else
		pwdir=$BUILD/browser/pw-$pwver
		mkdir -p "$pwdir"
		# Its own package.json: npm installs into the nearest folder holding one (or node_modules).
		[ -f "$pwdir/package.json" ] || echo '{ "private": true }' >"$pwdir/package.json"
		if [ ! -d "$pwdir/node_modules/playwright-core" ] && command -v npm >/dev/null; then
			(cd "$pwdir" && timeout 300 npm install --no-audit --no-fund --loglevel=error "playwright-core@$pwver" \
				>"$tmp/npm.log" 2>&1) || echo "npm install playwright-core@$pwver failed: $(tail -2 "$tmp/npm.log")"
		fi
		[ -d "$pwdir/node_modules/playwright-core" ] ||
			{ why="playwright-core@$pwver could not be installed from npm (npm $(command -v npm >/dev/null && echo present || echo missing)$(grep -m 1 -o 'reason: .*' "$tmp/npm.log" 2>/dev/null | sed 's/^/; /'))"; pwdir=; }
	fi
else
	why="node is not installed and could not be installed (as root: apt-get install nodejs npm)"
fi
if [ -n "$pwdir" ]; then
	echo "browser: $(chromium --version 2>/dev/null | head -1), node $(node --version), playwright-core $pwver"
	cp tests/browser/check.mjs "$pwdir/check.mjs"   # resolves playwright-core from $pwdir/node_modules
	timeout 300 node "$pwdir/check.mjs" "http://127.0.0.1:$port" "$art" "${daemon_pages[@]}"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check.mjs (daemon) exited $rc (timeout or crash)"
	timeout 300 node "$pwdir/check.mjs" "http://127.0.0.1:$sport" "$art" "${serve_pages[@]}"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check.mjs (serve) exited $rc (timeout or crash)"
else
	# No npm: chromium's own headless modes.  Console errors come from its log (CONSOLE lines).
	skip "$why: the layout checks (first screen, overlaps, unique ticks, links, height, picker) are not run"
	for spec in "${daemon_pages[@]}"; do
		name=${spec%%=*}; rest=${spec#*=}; path=${rest%%|*}
		ud=$(mktemp -d "$tmp/ud-XXXXXX")
		flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
		       --disable-component-update --disable-sync --user-data-dir="$ud" --enable-logging=stderr --v=0)
		timeout 60 chromium "${flags[@]}" --dump-dom "http://127.0.0.1:$port$path" >"$tmp/$name.dom" 2>"$tmp/$name.err"
		grep -q '<html' "$tmp/$name.dom" && pass "$path: chromium renders it" || fail "$path: chromium rendered nothing"
		grep -qiE 'CONSOLE\(|Uncaught|Refused to' "$tmp/$name.err" && fail "$path: console output: $(grep -iE 'CONSOLE|Uncaught|Refused' "$tmp/$name.err" | head -2)" ||
			pass "$path: no console errors in chromium's log"
		timeout 60 chromium "${flags[@]}" --window-size=1280,4000 --screenshot="$art/$name.png" "http://127.0.0.1:$port$path" >/dev/null 2>&1
		check "$path: screenshot $art/$name.png" test -s "$art/$name.png"
	done
fi
kill -TERM "$spid"; wait "$spid"; rc=$?; spid=
[ $rc -eq 0 ] && pass "serve stopped cleanly after the browser session" || fail "serve exit $rc: $(tail -3 "$tmp/serve.err")"
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] && pass "daemon stopped cleanly after the browser session" || fail "daemon exit $rc: $(tail -3 "$tmp/daemon.log")"
t_done
