/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test.h: the unit-test convention.
 *
 * Each check prints one line "PASS: file: what" or "FAIL: file:line: what";
 * tests/run.sh counts those lines across every unit and integration test, so
 * the final "N passed, N failed" covers everything that ran.  A test binary
 * exits 1 if any check failed.
 */
#ifndef FPUSOAK_TEST_H
#define FPUSOAK_TEST_H

#include <stdio.h>
#include <string.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

static int t_failed;

#define T_CHECK(cond, ...) do { \
	if (cond) { printf("PASS: %s: ", __FILE__); printf(__VA_ARGS__); printf("\n"); } \
	else { t_failed++; printf("FAIL: %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); \
	       printf("  [%s]\n", #cond); } \
} while (0)

#define T_EQ_I(a, b, ...) do { long long t_a = (long long)(a), t_b = (long long)(b); \
	T_CHECK(t_a == t_b, __VA_ARGS__); \
	if (t_a != t_b) printf("      got %lld, want %lld\n", t_a, t_b); } while (0)

#define T_EQ_S(a, b, ...) do { const char *t_a = (a), *t_b = (b); \
	int t_ok = t_a && t_b && strcmp(t_a, t_b) == 0; T_CHECK(t_ok, __VA_ARGS__); \
	if (!t_ok) printf("      got \"%s\", want \"%s\"\n", t_a ? t_a : "(null)", t_b ? t_b : "(null)"); } while (0)

/* Skips are printed and counted separately; they are never a pass. */
#define T_SKIP(...) do { printf("SKIP: %s: ", __FILE__); printf(__VA_ARGS__); printf("\n"); } while (0)

#define T_DONE() return t_failed ? 1 : 0

/* Read a fixture file into a static buffer; returns length or -1. */
static inline long t_fixture(const char *name, char *buf, size_t cap)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	if (!f) return -1;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
	return (long)n;
}

/* Append to a bounded string; a full buffer makes the comparison fail. */
static inline void t_app(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static inline void t_app(char *out, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	if (n < cap)
		vsnprintf(out + n, cap - n, fmt, ap);
	va_end(ap);
}

/* Run an independent awk program over path into out: the expected side of a parser check; 0 or -1. */
static inline int t_awk_file(const char *prog, const char *path, char *out, size_t cap)
{
	char cmd[4096];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof cmd, "awk '%s' '%s'", prog, path);
	if (!(f = popen(cmd, "r")))
		return -1;
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	return pclose(f) == 0 && n < cap - 1 ? 0 : -1;
}

/* Write data to a fresh temp file; path receives its name (the caller unlinks it); 0 or -1. */
static inline int t_write_tmp(const char *data, size_t len, char *path, size_t pathlen)
{
	int fd;

	snprintf(path, pathlen, "/tmp/fpusoak-test.XXXXXX");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

#endif
