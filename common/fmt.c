/* SPDX-License-Identifier: GPL-2.0-only */
/* fmt: formatting helpers; see fmt.h. */
#include "common/fmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Split ms into a UTC struct tm and the millisecond remainder; 0 or -1. */
static int split(int64_t ms, struct tm *tm, int *msrem)
{
	time_t s = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);

	*msrem = (int)(ms - (int64_t)s * 1000);
	return gmtime_r(&s, tm) ? 0 : -1;
}

const char *fmt_time_iso(int64_t ms, char *out, size_t outlen)
{
	struct tm tm;
	int r;

	if (split(ms, &tm, &r) < 0)
		snprintf(out, outlen, "?");
	else
		snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, r);
	return out;
}

const char *fmt_time_human(int64_t ms, char *out, size_t outlen)
{
	struct tm tm;
	int r;

	if (split(ms, &tm, &r) < 0)
		snprintf(out, outlen, "?");
	else
		snprintf(out, outlen, "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return out;
}

const char *fmt_time_input(int64_t ms, char *out, size_t outlen)
{
	struct tm tm;
	int r;

	if (split(ms, &tm, &r) < 0)
		snprintf(out, outlen, "?");
	else
		snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return out;
}

const char *fmt_duration(int64_t ms, char *out, size_t outlen)
{
	int64_t s = ms / 1000;

	if (ms < 0)
		snprintf(out, outlen, "-");
	else if (ms < 1000)
		snprintf(out, outlen, "%lldms", (long long)ms);
	else if (s < 60)
		snprintf(out, outlen, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(out, outlen, "%lldm %02llds", (long long)(s / 60), (long long)(s % 60));
	else if (s < 86400)
		snprintf(out, outlen, "%lldh %02lldm", (long long)(s / 3600), (long long)(s / 60 % 60));
	else
		snprintf(out, outlen, "%lldd %02lldh", (long long)(s / 86400), (long long)(s / 3600 % 24));
	return out;
}

/* Decimal digits of u (> 0 or 0) into out backwards from end; returns the first digit's position. */
static char *utoa_rev(uint64_t u, char *end)
{
	do
		*--end = (char)('0' + u % 10);
	while (u /= 10);
	return end;
}

/*
 * "%.10g" for 1e-4 <= |v| < 1e10 (where %g prints fixed-point) without
 * printf: scale to 10 significant digits in long double (64-bit mantissa,
 * so the rounding decision matches printf's exact one except within ~1e-9
 * of a half), ties to even as glibc does, strip trailing zeros.  A series
 * of 33,000 means spent ~20% of an API request in printf's multi-precision
 * path.  1 when written, 0 to fall back to snprintf.
 */
static int fast_g10(double v, char *out, size_t outlen)
{
	static const long double p10[] = { 1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L,
					   1e11L, 1e12L, 1e13L, 1e14L };
	static const long double pw[] = { 1e-3L, 1e-2L, 1e-1L, 1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L,
					  1e8L, 1e9L, 1e10L };
	long double a = fabsl((long double)v), scaled, fl;
	uint64_t r, ip, fp;
	char buf[40], *e = buf + sizeof buf, *p;
	int x, d;

	if (!(a >= 1e-4L && a < 1e10L) || outlen < 24)
		return 0;
	for (x = -4; x < 9 && a >= pw[x + 4]; x++)           /* x = floor(log10(a)): a >= 10^(x + 1) */
		;
	for (;;) {
		d = 9 - x;                                     /* decimals for 10 significant digits */
		scaled = a * p10[d];
		fl = floorl(scaled);
		r = (uint64_t)fl;
		if (scaled - fl > 0.5L || (scaled - fl == 0.5L && (r & 1)))
			r++;
		if (r < 10000000000ULL)
			break;
		if (++x > 9)                                   /* rounds up to 1e10: %g goes exponential */
			return 0;
	}
	ip = r / (uint64_t)p10[d];
	fp = r % (uint64_t)p10[d];
	*--e = '\0';
	if (fp) {
		int nd = d;
		while (fp % 10 == 0) {
			fp /= 10;
			nd--;
		}
		p = utoa_rev(fp, e);
		while (e - p < nd)                             /* leading zeros of the fraction */
			*--p = '0';
		*--p = '.';
		e = p;
	}
	p = utoa_rev(ip, e);
	if (v < 0)
		*--p = '-';
	memcpy(out, p, (size_t)(buf + sizeof buf - p));
	return 1;
}

const char *fmt_num(double v, char *out, size_t outlen)
{
	if (!isfinite(v)) {
		snprintf(out, outlen, "%s", "");
	} else if (v == floor(v) && fabs(v) < 1e15) {
		char buf[24], *p;
		if (outlen < sizeof buf || (v == 0 && signbit(v))) {
			snprintf(out, outlen, "%.0f", v);    /* "-0", as printf has it */
			return out;
		}
		p = utoa_rev((uint64_t)fabs(v), buf + sizeof buf - 1);
		buf[sizeof buf - 1] = '\0';
		if (v < 0)
			*--p = '-';
		memcpy(out, p, (size_t)(buf + sizeof buf - p));
	} else if (!fast_g10(v, out, outlen)) {
		snprintf(out, outlen, "%.10g", v);
	}
	return out;
}

const char *fmt_si_prec(double v, int prec, char *out, size_t outlen)
{
	static const struct { double f; const char *s; } u[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};

	if (!isfinite(v)) {
		snprintf(out, outlen, "%s", "");
		return out;
	}
	if (prec < 1 || prec > 17)
		prec = 4;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (fabs(v) >= u[i].f) {
			snprintf(out, outlen, "%.*g%s", prec, v / u[i].f, u[i].s);
			return out;
		}
	snprintf(out, outlen, "%.*g", prec, fabs(v) < 1e-12 ? 0.0 : v);
	return out;
}

const char *fmt_si(double v, char *out, size_t outlen)
{
	return fmt_si_prec(v, 4, out, outlen);
}

const char *fmt_sig(double v, char *out, size_t outlen)
{
	if (!isfinite(v))
		snprintf(out, outlen, "%s", isnan(v) ? "" : v > 0 ? "inf" : "-inf");
	else if (fabs(v) >= 1e4 && fabs(v) < 1e15)
		snprintf(out, outlen, "%.0f", v);                  /* 295200, not 2.952e+05 */
	else
		snprintf(out, outlen, "%.4g", v == 0 ? 0.0 : v);   /* no "-0" */
	return out;
}

const char *fmt_mib(double bytes, char *out, size_t outlen)
{
	if (!isfinite(bytes))
		snprintf(out, outlen, "%s", "");
	else
		snprintf(out, outlen, "%.1f MiB", bytes / 1048576.0);
	return out;
}
