# SPDX-License-Identifier: GPL-2.0-only
# fpusoakd — see README.md.  `make run` and `make test` are all a newcomer needs.

PREFIX    ?= /usr/local
DESTDIR   ?=
SBINDIR   ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
UNITDIR   ?= /lib/systemd/system
SYSCONFDIR ?= /etc
LIBEXECDIR ?= $(PREFIX)/libexec/fpusoakd

CC      ?= cc
PKGS     = libmicrohttpd sqlite3 libcjson inih
# Debian 12 package for each pkg-config name above, same order.
DEBPKGS  = libmicrohttpd-dev libsqlite3-dev libcjson-dev libinih-dev
# The daemon's core links only what it runs: every library mapped into a locked process is loaded,
# relocated and has its constructors run, and those pages stay locked (issue 20).  The HTTP and JSON
# libraries (and libgnutls, which Debian's libmicrohttpd pulls in) are the web process's alone.
CORE_PKGS = sqlite3 inih
WEB_PKGS  = libmicrohttpd sqlite3 libcjson
RUNTOOLS = sqlite3 curl

BUILD   ?= build
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter -Wno-format-truncation
HARDEN   = -D_FORTIFY_SOURCE=2 -fstack-protector-strong
# Full RELRO; and every symbol bound at load, which spawner/spawner_fork.c needs before it stops
# forking the daemon's libraries into each worker (a lazy binding there would need them).
LDHARDEN = -Wl,-z,relro,-z,now
OPT     ?= -O2 -g
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS  += -std=gnu11 $(OPT) $(WARN) $(HARDEN) -I. -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
LDLIBS  += $(PKG_LIBS) -lm -lpthread
CORE_LIBS = $(shell pkg-config --libs $(CORE_PKGS) 2>/dev/null) -lm
WEB_LIBS  = $(shell pkg-config --libs $(WEB_PKGS) 2>/dev/null) -lm -lpthread
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
CFLAGS  += -DFPUSOAK_VERSION='"$(VERSION)"' -DFPUSOAK_LIBEXECDIR='"$(LIBEXECDIR)"'

# -Wno-format-truncation: snprintf into bounded buffers is how we truncate on purpose.
# Every module folder feeds one static library; cmd/ holds the programs' entries: cmd/main.c (with
# cmd/front.c, which runs and supervises the web process) is fpusoakd, the daemon's core; cmd/web_main.c is fpusoakd-web, the web process (`fpusoakd serve` and
# `fpusoakd report` exec it); cmd/spawner_main.c the churn spawner the core execs (static: see
# spawner/spawner.h).  Each links only its own libraries: a web symbol reaching the core fails its link.
LIBDIRS  = common collector analysis cgroup worker spawner fragload churn store report web cli daemon
LIBSRC   = $(wildcard $(addsuffix /*.c,$(LIBDIRS)))
LIBOBJ   = $(patsubst %.c,$(BUILD)/obj/%.o,$(LIBSRC)) $(BUILD)/obj/gen/schema.o
CMDOBJ   = $(BUILD)/obj/cmd/main.o $(BUILD)/obj/cmd/front.o $(BUILD)/obj/cmd/import.o
WEBOBJ   = $(BUILD)/obj/cmd/web_main.o $(BUILD)/obj/cmd/serve.o
UNITSRC  = $(wildcard tests/unit/test_*.c)
UNITBIN  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNITSRC))
INTEG    = $(sort $(wildcard tests/integration/*.sh))
SCHEMA   = $(sort $(wildcard schema/*.sql))

.PHONY: test-quick print-ldlibs soak test-deps all deps run test check unit integration install uninstall clean bench fuzz test-systemd test-xen test-xen-domu deb deb-deps kmod
all: $(BUILD)/fpusoakd $(BUILD)/fpusoakd-web $(BUILD)/fpusoakd-spawner

# deps: check pkg-config; install missing -dev packages with apt-get when root.
deps:
	@missing=""; for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	for t in $(RUNTOOLS) pkg-config; do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "deps: missing:$$missing"; \
	cmd="apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends build-essential pkg-config $(DEBPKGS) $(RUNTOOLS)"; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "deps: running apt-get update && $$cmd"; \
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $$cmd || exit 1; \
	else echo "deps: as root, run: $$cmd"; exit 1; fi

# test-deps: tools the test suite calls (command:package), what clang needs to link libFuzzer
# (libclang-rt-N-dev is only a Recommends of clang), and what `make deb` builds with (deb-deps).
# Suites that need heavier machinery (qemu for Xen, debootstrap/nspawn for systemd, chromium)
# install it themselves and skip visibly when they cannot.
TESTTOOLS = promtool:prometheus prometheus:prometheus clang:clang valgrind:valgrind python3:python3 curl:curl \
	sqlite3:sqlite3 pgrep:procps ss:iproute2 lintian:lintian busybox:busybox-static
test-deps:
	@$(MAKE) --no-print-directory deb-deps || echo "test-deps: without them tests/integration/75_deb.sh skips"
	@missing=""; for tp in $(TESTTOOLS); do command -v $${tp%%:*} >/dev/null || missing="$$missing $${tp#*:}"; done; \
	cv=$$(clang -dumpversion 2>/dev/null | cut -d. -f1); \
	[ -n "$$cv" ] || cv=$$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$$/\1/p' | head -n 1); \
	[ -n "$$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null | grep /)" ] || missing="$$missing libclang-rt-$${cv:-14}-dev"; \
	missing=$$(echo $$missing | tr ' ' '\n' | grep . | sort -u | sed 's/^/ /' | tr -d '\n'); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	cmd="apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends$$missing"; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "test-deps: running apt-get update && $$cmd"; \
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $$cmd || exit 1; \
	else echo "test-deps: missing$$missing; tests that need them will skip (as root: $$cmd)"; fi

$(BUILD)/gen/schema.c: $(SCHEMA) tools/embed.sh
	@mkdir -p $(@D)
	sh tools/embed.sh $(SCHEMA) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/schema.o: $(BUILD)/gen/schema.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/schema.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libfpusoak.a: $(LIBOBJ)
	rm -f $@; ar rcs $@ $^

$(BUILD)/fpusoakd: $(CMDOBJ) $(BUILD)/libfpusoak.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(LDHARDEN) -o $@ $^ $(CORE_LIBS)

$(BUILD)/fpusoakd-web: $(WEBOBJ) $(BUILD)/libfpusoak.a
	$(CC) $(CFLAGS) $(LDFLAGS) $(LDHARDEN) -o $@ $^ $(WEB_LIBS)

# -static-pie: glibc's libc.a and rcrt1.o come with libc6-dev (build-essential); the archive
# brings in only what the spawner calls (no libsystemd, SQLite or HTTP).  A sanitizer build
# cannot link statically: its daemon runs the spawner in its forked copy.
$(BUILD)/fpusoakd-spawner: $(BUILD)/obj/cmd/spawner_main.o $(BUILD)/libfpusoak.a
	@case "$(LDFLAGS)" in *sanitize*) echo "fpusoakd-spawner: not built with sanitizers"; rm -f $@; exit 0;; esac; \
	echo "$(CC) ... -static-pie -o $@"; \
	$(CC) $(CFLAGS) $(LDHARDEN) -static-pie -o $@ $^ -lm

# The reference prober of the observer-effect test (bench/miniprobe.c, tests/xen/scenarios/footprint):
# static like the spawner, so its workers are forks of an address space of the same shape.
$(BUILD)/bench/miniprobe: $(BUILD)/obj/bench/miniprobe.o $(BUILD)/libfpusoak.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDHARDEN) -static-pie -o $@ $^ -lm

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libfpusoak.a tests/unit/test.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(LDHARDEN) -o $@ $< $(BUILD)/libfpusoak.a $(LDLIBS)

# The golden test's dumper (tests/integration/12_golden.sh): the report on a fixed database.
$(BUILD)/tests/golden_dump: tests/golden/golden_dump.c $(BUILD)/libfpusoak.a tests/unit/testdb.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $(LDHARDEN) -o $@ $< $(BUILD)/libfpusoak.a $(LDLIBS)

# print-ldlibs: the libraries a program linked with libfpusoak.a needs (the unit tests' list): the
# programs tests and bench/ build outside make (tests/lib.sh fpusoak_ldlibs) take it from here, so
# the list lives in one place (a hand-kept copy named libsystemd after it was dropped, issue 34).
print-ldlibs:
	@echo $(LDLIBS)

run: deps all
	$(BUILD)/fpusoakd $(RUNFLAGS)

unit: deps $(UNITBIN)
integration: deps all $(UNITBIN) $(BUILD)/tests/golden_dump

# test: unit tests, the sanitizer build of the unit tests, integration tests
# against this machine's kernel; one closing "N passed, N failed" line.
test: deps test-deps all $(UNITBIN) $(BUILD)/tests/golden_dump
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" asan-units >/dev/null
	FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) ASAN_OPTIONS=detect_leaks=1 \
		tests/run.sh $(UNITBIN) $(patsubst $(BUILD)/tests/%,build/asan/tests/%,$(UNITBIN)) $(INTEG)

# test-quick: the inner loop: the unit tests and the host integration tests, up to 4 at once
# (tests/run.sh TEST_JOBS; a "# test-alone" script runs by itself); no sanitizer build (make check),
# no fuzzing pass (make fuzz), no Xen, no browser, no booted systemd, no package build.
# The longest first (44_verdict_pair alone is ~4 minutes), so the pool never waits on one at the end.
QUICK_SKIP = %/55_browser.sh %/66_fuzz.sh %/75_deb.sh %/80_systemd.sh %/90_xen.sh %/91_xen_domu.sh
QUICK_FIRST = $(filter %/44_verdict_pair.sh %/56_prometheus.sh %/42_verdict.sh %/63_locked.sh %/45_fragment.sh,$(INTEG))
test-quick: deps all $(UNITBIN) $(BUILD)/tests/golden_dump
	FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) TEST_JOBS=4 \
		tests/run.sh $(QUICK_FIRST) $(UNITBIN) $(filter-out $(QUICK_SKIP) $(QUICK_FIRST),$(INTEG))

# check: the whole unit suite under ASan+UBSan only.
check: deps
	@$(MAKE) --no-print-directory BUILD=build/asan OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" asan-units
	TEST_LOGDIR=build/asan/test-logs tests/run.sh $(patsubst $(BUILD)/tests/%,build/asan/tests/%,$(UNITBIN))

asan-units: $(UNITBIN) $(BUILD)/fpusoakd $(BUILD)/fpusoakd-web

install: all
	install -D -m 0755 $(BUILD)/fpusoakd $(DESTDIR)$(SBINDIR)/fpusoakd
	install -D -m 0755 $(BUILD)/fpusoakd-spawner $(DESTDIR)$(LIBEXECDIR)/fpusoakd-spawner
	install -D -m 0755 $(BUILD)/fpusoakd-web $(DESTDIR)$(LIBEXECDIR)/fpusoakd-web
	install -D -m 0644 man/fpusoakd.8 $(DESTDIR)$(MANDIR)/man8/fpusoakd.8
	@mkdir -p $(BUILD)
	sed -e 's#/usr/local/sbin/fpusoakd#$(SBINDIR)/fpusoakd#' -e 's#/etc/fpusoakd/#$(SYSCONFDIR)/fpusoakd/#' \
		fpusoakd.service >$(BUILD)/fpusoakd.service
	install -D -m 0644 $(BUILD)/fpusoakd.service $(DESTDIR)$(UNITDIR)/fpusoakd.service
	[ ! -f fpusoakd.socket ] || install -D -m 0644 fpusoakd.socket $(DESTDIR)$(UNITDIR)/fpusoakd.socket
	[ -e $(DESTDIR)$(SYSCONFDIR)/fpusoakd/fpusoakd.conf ] || \
		install -D -m 0644 fpusoakd.conf $(DESTDIR)$(SYSCONFDIR)/fpusoakd/fpusoakd.conf

# deb: the Debian packages (debian/), built by dpkg-buildpackage -us -uc -b from a copy of
# this tree so that nothing is written beside the checkout; .deb, .changes and .buildinfo
# land in $(BUILD)/deb/ (the build's log in $(BUILD)/deb/build.log).  fpusoakd-dkms is built
# when kmod/ exists, else the build profile pkg.fpusoakd.nodkms leaves it out.
# DEB_BUILD_OPTIONS=nocheck skips the unit tests the package build runs.
DEBPROFILE = $(if $(wildcard kmod/.),,-Ppkg.fpusoakd.nodkms)
deb: deb-deps
	@rm -rf $(BUILD)/deb; mkdir -p $(BUILD)/deb/src/fpusoakd
	@if git rev-parse --git-dir >/dev/null 2>&1; then git ls-files -co --exclude-standard; \
	 else find . -path ./build -prune -o -type f -print; fi | \
	 while read -r f; do [ -f "$$f" ] && printf '%s\n' "$$f"; done | tar -cf - -T - | tar -xf - -C $(BUILD)/deb/src/fpusoakd
	@echo "dpkg-buildpackage -us -uc -b $(DEBPROFILE) (log: $(BUILD)/deb/build.log)"
	@cd $(BUILD)/deb/src/fpusoakd && FPUSOAKD_GITREV=$(VERSION) dpkg-buildpackage -us -uc -b $(DEBPROFILE) \
		>../../build.log 2>&1 || { tail -n 40 ../../build.log; exit 1; }
	@mv $(BUILD)/deb/src/*.deb $(BUILD)/deb/src/*.changes $(BUILD)/deb/src/*.buildinfo $(BUILD)/deb/
	@rm -rf $(BUILD)/deb/src
	@ls -1 $(BUILD)/deb/*.deb

# deb-deps: debian/control's Build-Depends (debhelper, dh-dkms, the -dev packages), installed
# with apt-get build-dep when root, else the command is printed.
deb-deps:
	@command -v dpkg-checkbuilddeps >/dev/null || { echo "deb-deps: dpkg-dev is missing (apt-get install dpkg-dev)"; exit 1; }; \
	dpkg-checkbuilddeps $(DEBPROFILE) 2>/dev/null && exit 0; \
	cmd="apt-get build-dep -y --no-install-recommends $(DEBPROFILE) ./"; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "deb-deps: $$(dpkg-checkbuilddeps $(DEBPROFILE) 2>&1 | sed 's/^dpkg-checkbuilddeps: error: //')"; \
		echo "deb-deps: running apt-get update && $$cmd"; \
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive $$cmd || exit 1; \
	else echo "deb-deps: as root, run: $$cmd"; exit 1; fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/fpusoakd $(DESTDIR)$(LIBEXECDIR)/fpusoakd-spawner $(DESTDIR)$(LIBEXECDIR)/fpusoakd-web \
	      $(DESTDIR)$(MANDIR)/man8/fpusoakd.8 \
	      $(DESTDIR)$(UNITDIR)/fpusoakd.service $(DESTDIR)$(UNITDIR)/fpusoakd.socket

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj $(BUILD)/tests -name '*.d' 2>/dev/null)

# kmod: the fpusoak_gfp module (kmod/README), built out of tree against KDIR (default: the running
# kernel's headers) in $(BUILD)/kmod/, so the source folder stays clean.  Never loaded by make.
KDIR ?= /lib/modules/$(shell uname -r)/build
KMODSRC = kmod/fpusoak_gfp.c kmod/fpusoak_gfp.h kmod/Kbuild
kmod: $(KMODSRC)
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "kmod: no kernel build tree at $(KDIR) (install linux-headers-$$(uname -r), or pass KDIR=)"; exit 1; fi
	@mkdir -p $(BUILD)/kmod
	cp $(KMODSRC) $(BUILD)/kmod/
	$(MAKE) -C $(KDIR) M=$(abspath $(BUILD)/kmod) modules
	@echo "kmod: $(BUILD)/kmod/fpusoak_gfp.ko"

# The booted-systemd and Xen PV suites on their own (make test runs them too).
test-systemd: deps all
	FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) tests/run.sh tests/integration/80_systemd.sh
test-xen: deps all
	FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) tests/run.sh tests/integration/90_xen.sh
test-xen-domu: deps all
	FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) tests/run.sh tests/integration/91_xen_domu.sh

# fuzz: every tests/fuzz/fuzz_*.c under libFuzzer+ASan+UBSan for FUZZ_SECONDS each.
# Corpora start from tests/fixtures/ and grow in build/fuzz/corpus/ (never in the tree).
FUZZ_SECONDS ?= 60
FUZZSRC = $(wildcard tests/fuzz/fuzz_*.c)
fuzz: deps
	@$(MAKE) --no-print-directory CC=clang BUILD=build/fuzz OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" \
		WARN="-Wall -Wno-unused-parameter" build/fuzz/libfpusoak.a
	@mkdir -p build/fuzz/bin build/fuzz/corpus build/fuzz/artifacts
	@for f in $(FUZZSRC); do n=$$(basename $$f .c); \
		clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $$f build/fuzz/libfpusoak.a $(LDLIBS) -o build/fuzz/bin/$$n || exit 1; \
		mkdir -p build/fuzz/corpus/$$n; \
		echo "== $$n ($(FUZZ_SECONDS)s)"; \
		build/fuzz/bin/$$n -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -close_fd_mask=2 \
			-artifact_prefix=build/fuzz/artifacts/$$n- build/fuzz/corpus/$$n tests/fixtures/ \
			$$([ -d tests/reliability/fuzz-seeds/$$n ] && echo tests/reliability/fuzz-seeds/$$n/) >build/fuzz/$$n.log 2>&1; rc=$$?; \
		grep -E 'stat::number_of_executed_units|ERROR|SUMMARY|Done' build/fuzz/$$n.log; [ $$rc = 0 ] || exit 1; \
	done

# bench: figures next to their peers from the same run (see bench/RESULTS.md); not timed tests.
bench: deps all
	bench/run.sh $(BENCH_ARGS)

# soak: the long reliability suite (SOAK=1): 50 SIGKILLs, 20 fills to OOM, 60 s of full disk and of a
# locked DB, 10,000 hostile requests, 60 s per fuzz harness, 5 min under valgrind, and an hour of the
# daemon at every default with its capacity probes (69_probe_scale: ticks lost, each probe's count and
# fill time).  About 90 minutes.
soak: deps all
	SOAK=1 TEST_TIMEOUT=4500 FPUSOAKD=$(abspath $(BUILD)/fpusoakd) BUILD=$(abspath $(BUILD)) \
		tests/run.sh $(sort $(wildcard tests/integration/6*.sh))
