#!/usr/bin/env bash
# A real browser on a real daemon: headless Chromium (Debian's chromium, driven by
# playwright-core from npm) loads /, /runs/{id} and /compare from fpusoakd on a
# loopback port and must see no console error, page error or failed request, and
# the SVG charts drawn.  The DB is seeded with tests/unit/testdb.h's known content
# (every report section filled, hostile strings included); the daemon adds its own
# live run.  Screenshots stay in $BUILD/test-artifacts/browser/.  Skips visibly when
# chromium cannot be installed; falls back to chromium --dump-dom without npm.
. "$(dirname "$0")/../lib.sh"
need curl:curl python3:python3 sqlite3:sqlite3
FPUSOAKD=${FPUSOAKD:-build/fpusoakd}
BUILD=${BUILD:-$PWD/build}
art=$BUILD/test-artifacts/browser
tmp=$(mktemp -d /tmp/fpusoak-browser-XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if ! command -v chromium >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing chromium (apt-get)"
		DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y --no-install-recommends chromium >"$tmp/apt.log" 2>&1 ||
			{ DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -qq >/dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y --no-install-recommends chromium >"$tmp/apt.log" 2>&1; }
	fi
	if ! command -v chromium >/dev/null; then
		skip "chromium is not installed and could not be installed (apt-get install chromium): no browser test"
		t_done
	fi
fi
mkdir -p "$art" "$BUILD/browser"
rm -f "$art"/*.png

# The seeded DB: runs 1 and 3 with every table of the report, run 2 empty.
cc -std=gnu11 -O1 -I. -I"$BUILD/gen" tests/browser/seed.c "$BUILD/libfpusoak.a" $(pkg-config --libs sqlite3) -lm \
	-o "$BUILD/browser/seed" 2>"$tmp/cc.log" || { fail "build tests/browser/seed.c: $(head -3 "$tmp/cc.log")"; t_done; }
db=$("$BUILD/browser/seed" "$tmp") || { fail "seed the database"; t_done; }

port=$(free_port)
"$FPUSOAKD" --db "$db" --listen 127.0.0.1:$port --workers 0 --probe-interval 0 --switch-probe-interval 0 \
	--kmsg none --sample-interval 500ms --label "browser <b>live</b>" >"$tmp/daemon.log" 2>&1 &
pid=$!
for i in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.05; done
check "daemon serves the seeded DB on 127.0.0.1:$port" curl -fs "http://127.0.0.1:$port/healthz"
live=$(sqlite3 -batch -noheader "$db" "SELECT max(run_id) FROM runs")
sleep 1.5   # a few live samples for /

pages=("index=/:3" "run1=/runs/1:20" "live=/runs/$live:5" "compare=/compare?a=1&b=3:4")
if [ ! -d "$BUILD/browser/node_modules/playwright-core" ] && command -v npm >/dev/null; then
	(cd "$BUILD/browser" && timeout 180 npm install --no-audit --no-fund --silent playwright-core@1 >"$tmp/npm.log" 2>&1) ||
		echo "npm install playwright-core failed: $(tail -2 "$tmp/npm.log")"
fi
if [ -d "$BUILD/browser/node_modules/playwright-core" ] && command -v node >/dev/null; then
	cp tests/browser/check.mjs "$BUILD/browser/check.mjs"   # resolves playwright-core from $BUILD/browser/node_modules
	timeout 120 node "$BUILD/browser/check.mjs" "http://127.0.0.1:$port" "$art" "${pages[@]}"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "check.mjs exited $rc (timeout or crash)"
else
	# No npm: chromium's own headless modes.  Console errors come from its log (CONSOLE lines).
	echo "playwright-core unavailable: using chromium --dump-dom / --screenshot"
	for spec in "${pages[@]}"; do
		name=${spec%%=*}; rest=${spec#*=}; path=${rest%:*}; min=${rest##*:}
		ud=$(mktemp -d "$tmp/ud-XXXXXX")
		flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
		       --disable-component-update --disable-sync --user-data-dir="$ud" --enable-logging=stderr --v=0)
		timeout 60 chromium "${flags[@]}" --dump-dom "http://127.0.0.1:$port$path" >"$tmp/$name.dom" 2>"$tmp/$name.err"
		n=$(grep -o '<svg' "$tmp/$name.dom" | wc -l)
		[ "$n" -ge "$min" ] && pass "$path: $n SVG charts in the DOM (>= $min)" || fail "$path: $n SVG charts, want >= $min"
		grep -qiE 'CONSOLE\(|Uncaught|Refused to' "$tmp/$name.err" && fail "$path: console output: $(grep -iE 'CONSOLE|Uncaught|Refused' "$tmp/$name.err" | head -2)" ||
			pass "$path: no console errors in chromium's log"
		timeout 60 chromium "${flags[@]}" --window-size=1200,4000 --screenshot="$art/$name.png" "http://127.0.0.1:$port$path" >/dev/null 2>&1
		check "$path: screenshot $art/$name.png" test -s "$art/$name.png"
	done
fi
kill -TERM "$pid"; wait "$pid"; rc=$?; pid=
[ $rc -eq 0 ] && pass "daemon stopped cleanly after the browser session" || fail "daemon exit $rc: $(tail -3 "$tmp/daemon.log")"
t_done
