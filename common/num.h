/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * num: bounded number parsing over (buf, len).
 *
 * Every integer that comes from the kernel, a config file, a flag or an
 * HTTP query goes through here.  The rules follow redis' string2ll: no
 * leading '+', no whitespace, no leading zeros (except "0" itself), no
 * overflow, and the whole span must be consumed unless the caller asks
 * for the end pointer.
 */
#ifndef FPUSOAK_NUM_H
#define FPUSOAK_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Parse the whole of buf[0..len) as a decimal int64; 0 on success, -1 on junk/overflow/empty. */
int num_parse_i64(const char *buf, size_t len, int64_t *out);

/* Parse the whole of buf[0..len) as a decimal uint64 (no sign); 0 or -1. */
int num_parse_u64(const char *buf, size_t len, uint64_t *out);

/* Parse a leading run of decimal digits as uint64, set *used to digits consumed; 0 or -1 (none/overflow). */
int num_prefix_u64(const char *buf, size_t len, uint64_t *out, size_t *used);

/* Parse hex digits (optional "0x") of the whole span as uint64; 0 or -1. */
int num_parse_hex(const char *buf, size_t len, uint64_t *out);

/* Parse a duration "250ms", "1s", "5m", "2h", "1d" (bare number = seconds) into ms; 0 or -1. */
int num_parse_duration_ms(const char *s, int64_t *out_ms);

/* Parse a size "4096", "256K", "64M", "2G" (binary units, optional trailing B/iB) into bytes; 0 or -1. */
int num_parse_size(const char *s, uint64_t *out_bytes);

/* Format ms as the shortest exact duration string ("1500ms", "2h"); returns out. */
const char *num_format_duration(int64_t ms, char *out, size_t outlen);

#endif
