/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_config: libFuzzer harness for the INI config file loader
 * (daemon/config.c config_load, through inih), fed through a memfd so
 * nothing is factored out of config.c and no file touches the disk: each
 * input is the whole file, loaded as "fpusoakd -c /proc/self/fd/N".
 * Checks beyond the sanitizers:
 *   - the result is 0 or a documented exit code (78 for the file, 64 for a
 *     cross-option check); never 1 (--help/--version) from a file;
 *   - an accepted config satisfies every bound config.h and validate()
 *     promise, and every string is NUL-terminated inside its field;
 *   - describe -> load -> describe is a fixed point: the effective
 *     configuration written back as a file loads to the same configuration.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_config.c build/fuzz/libfpusoak.a \
 *     $(pkg-config --libs libmicrohttpd sqlite3 libcjson inih) -lm -lpthread -o /tmp/fz_cfg
 * (make fuzz builds it that way.)  config_load prints its complaint to stderr: run with
 * -close_fd_mask=2 to keep a long run quiet (libFuzzer still reports crashes).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "churn/churn.h"
#include "daemon/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DESCRIBE_MAX (64 * 1024)

static int load_from(int fd, const void *buf, size_t len, struct config *cfg)
{
	char path[64], arg0[] = "fpusoakd", arg1[] = "-c";
	char *argv[] = { arg0, arg1, path, NULL };

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != (ssize_t)len)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return config_load(cfg, 3, argv);
}

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

/*
 * inih strips " ;comment" from a key's line but not from a continuation
 * line (an indented line after a key, which replaces that key's value), so
 * such a value cannot be written back as a key line.  That behaviour is
 * reported and tested on its own (tests/integration/65_config.sh); here it
 * only exempts the fixed-point check.
 */
static int has_inline_comment(const char *s)
{
	return strstr(s, " ;") || strstr(s, "\t;");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static struct config a, b;
	static char da[DESCRIBE_MAX], db[DESCRIBE_MAX], file[DESCRIBE_MAX + 16];
	int rc;

	if (fd < 0 && (fd = memfd_create("fuzz_config", MFD_CLOEXEC)) < 0)
		abort();
	unsetenv("STATE_DIRECTORY");
	rc = load_from(fd, data, size, &a);
	if (rc != 0 && rc != EX_CONFIG_ && rc != EX_USAGE_)
		__builtin_trap();
	if (rc != 0)
		return 0;
	/* Bounds an accepted configuration promises. */
	if (a.sample_interval_ms < 10 || a.slow_interval_ms < 1000 || a.queue_max < 65536 || a.probe_limit < 1 ||
	    a.switch_threads < 1 || a.duration_ms < 0 || a.retain_raw_ms < 0 || a.lifetime_ms < 0 ||
	    a.workers < 0 || a.workers > CHURN_MAX_WORKERS || a.probe_limit > CHURN_MAX_PROBE ||
	    a.cgroup_pids_max < 0 || a.switch_threads > 4096 || a.probe_interval_ms < 0 || a.switch_probe_interval_ms < 0)
		__builtin_trap();
	if (!terminated(a.db, sizeof a.db) || !terminated(a.listen, sizeof a.listen) ||
	    !terminated(a.label, sizeof a.label) || !terminated(a.proc_root, sizeof a.proc_root) ||
	    !terminated(a.sys_root, sizeof a.sys_root) || !terminated(a.kmsg_path, sizeof a.kmsg_path))
		__builtin_trap();
	/* Fixed point: what describe says is what a file with those lines loads to. */
	if (has_inline_comment(a.db) || has_inline_comment(a.listen) || has_inline_comment(a.label) ||
	    has_inline_comment(a.proc_root) || has_inline_comment(a.sys_root) || has_inline_comment(a.kmsg_path))
		return 0;
	config_describe(&a, da, sizeof da);
	if (strlen(da) >= sizeof da - 1)
		return 0;             /* cannot happen with these field sizes; do not judge a truncated text */
	snprintf(file, sizeof file, "[fpusoakd]\n%s", da);
	rc = load_from(fd, file, strlen(file), &b);
	if (rc != 0)
		__builtin_trap();
	config_describe(&b, db, sizeof db);
	if (strcmp(da, db) != 0)
		__builtin_trap();
	return 0;
}
