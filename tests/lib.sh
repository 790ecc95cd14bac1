# Shell side of the test convention: source this from integration scripts.
# Each check prints PASS:/FAIL:/SKIP: lines that tests/run.sh counts.
T_NAME=${T_NAME:-$(basename "$0")}
T_FAILS=0
pass() { echo "PASS: $T_NAME: $*"; }
fail() { echo "FAIL: $T_NAME: $*"; T_FAILS=$((T_FAILS + 1)); }
skip() { echo "SKIP: $T_NAME: $*"; }
check() { # check "description" command...
	local d=$1; shift
	if "$@" >/dev/null 2>&1; then pass "$d"; else fail "$d"; fi
}
t_done() { [ "$T_FAILS" -eq 0 ]; exit $?; }
