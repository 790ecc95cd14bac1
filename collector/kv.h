/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kv: parse "name value" files: /proc/vmstat ("pgfault 123") and
 * /proc/meminfo ("MemFree:   123 kB").
 *
 * Names are kept as the kernel prints them (without meminfo's ':').  A
 * snapshot holds at most KV_MAX entries; more is an error, not a silent cut.
 */
#ifndef FPUSOAK_KV_H
#define FPUSOAK_KV_H

#include <stddef.h>
#include <stdint.h>

#define KV_MAX 512
#define KV_NAME_MAX 48

struct kv_entry {
	char name[KV_NAME_MAX];   /* NUL-terminated, [A-Za-z0-9_()] only */
	uint64_t value;           /* vmstat: as printed; meminfo: kB (or a bare count for HugePages_*) */
};

struct kv_set {
	int n;
	struct kv_entry e[KV_MAX];
};

/* Parse /proc/vmstat text (values are printed unsigned); 0 or -1 on malformed input. */
int vmstat_parse(const char *buf, size_t len, struct kv_set *out);

/* Parse /proc/meminfo text (values in kB, or unitless); 0 or -1 on malformed input. */
int meminfo_parse(const char *buf, size_t len, struct kv_set *out);

/* In /proc/PID/status text, the "NAME:<blanks>N kB" line's N into *kb: 0, or -1 if absent or not that form. */
int kv_status_kb(const char *buf, size_t len, const char *name, uint64_t *kb);

/* Look up name; returns 0 and sets *v, or -1 if absent. Linear: sets are small. */
int kv_get(const struct kv_set *s, const char *name, uint64_t *v);

#endif
