/* fmt: formatting helpers; see fmt.h. */
#include "web/fmt.h"

#include <math.h>
#include <stdio.h>
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
		snprintf(out, outlen, "%04d-%02d-%02dT%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min);
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

const char *fmt_num(double v, char *out, size_t outlen)
{
	if (!isfinite(v))
		snprintf(out, outlen, "%s", "");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(out, outlen, "%.0f", v);
	else
		snprintf(out, outlen, "%.10g", v);
	return out;
}

const char *fmt_si(double v, char *out, size_t outlen)
{
	static const struct { double f; const char *s; } u[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};

	if (!isfinite(v)) {
		snprintf(out, outlen, "%s", "");
		return out;
	}
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (fabs(v) >= u[i].f) {
			snprintf(out, outlen, "%.4g%s", v / u[i].f, u[i].s);
			return out;
		}
	snprintf(out, outlen, "%.4g", fabs(v) < 1e-12 ? 0.0 : v);
	return out;
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
