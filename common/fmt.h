/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fmt: small formatters shared by the pages, the API, the charts and the
 * command line — timestamps (always UTC), durations, and numbers for
 * tables and axes.
 * Pure; each writes a NUL-terminated string into out and returns out.
 */
#ifndef FPUSOAK_FMT_H
#define FPUSOAK_FMT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_TIME_LEN 32   /* enough for every time format here */

/* "2024-06-01T12:00:00.000Z" (the v_* views' ts format). */
const char *fmt_time_iso(int64_t ms, char *out, size_t outlen);

/* "2024-06-01 12:00:00" (UTC), for tables. */
const char *fmt_time_human(int64_t ms, char *out, size_t outlen);

/* "2024-06-01T12:00:05" (UTC, the second ms falls in), the value of an <input type=datetime-local step=1>:
 * minutes alone made a window's defaults drop its last seconds (issue 31). */
const char *fmt_time_input(int64_t ms, char *out, size_t outlen);

/* A duration for people: "850ms", "12s", "5m 03s", "3h 04m", "2d 03h". Negative gives "-". */
const char *fmt_duration(int64_t ms, char *out, size_t outlen);

/* A number for tables and CSV: integers exactly, others with up to 10 significant digits; NaN/inf give "". */
const char *fmt_num(double v, char *out, size_t outlen);

/* A figure for people: 4 significant digits ("%.4g"; whole numbers from 1e4 up), -0 as 0, infinities as inf/-inf, NaN as "". */
const char *fmt_sig(double v, char *out, size_t outlen);

/* A short axis label: 4 significant digits with k/M/G/T suffixes ("1.5k", "250", "0.25"). */
const char *fmt_si(double v, char *out, size_t outlen);

/* Bytes as MiB with one decimal ("19.4 MiB"); NaN/inf give "". */
const char *fmt_mib(double bytes, char *out, size_t outlen);
/* fmt_si with prec significant digits (1..17): what tells two close axis ticks apart ("1.0001M"). */
const char *fmt_si_prec(double v, int prec, char *out, size_t outlen);

#endif
