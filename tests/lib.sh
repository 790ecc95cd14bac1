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

# build/bench/churn_bench (the churn engine alone), rebuilt when the library or its source is newer;
# its path on stdout, or 1 with the compiler's first lines on stderr.  Same libraries as the daemon.
churn_bench_path() {
	local bench=${BUILD:-$PWD/build}/bench/churn_bench lib=${BUILD:-$PWD/build}/libfpusoak.a
	if [ ! -x "$bench" ] || [ "$lib" -nt "$bench" ] || [ bench/churn_bench.c -nt "$bench" ]; then
		mkdir -p "$(dirname "$bench")"
		# --no-as-needed: the bench itself calls none of these, but 31_churn_caps wants its spawner
		# to have libraries to shed, as the daemon's has (without libsystemd nothing else was mapped).
		cc -std=gnu11 -O2 -I. bench/churn_bench.c "$lib" -Wl,--no-as-needed \
			$(pkg-config --libs libmicrohttpd sqlite3 libcjson inih 2>/dev/null) -Wl,--as-needed -lm -lpthread \
			-o "$bench" || return 1
	fi
	echo "$bench"
}
