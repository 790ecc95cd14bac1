/* SPDX-License-Identifier: GPL-2.0-only */
/* causes: a run's failure causes by source, cause, order and hour; see causes.h. */
#include "report/causes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cause.h"

#define HOUR_MS 3600000

struct acc {
	struct report_causes *out;
	int64_t from, to;
};

static int hour_cb(void *arg, const struct query_cause_hour *h)
{
	struct acc *a = arg;
	struct report_causes *o = a->out;
	int s = h->source - 1, c = h->cause, k = h->order < 0 ? 0 : h->order >= REPORT_CAUSE_ORDERS ?
								      REPORT_CAUSE_ORDERS - 1 : h->order;
	struct report_cause_hour *hr;

	if (s < 0 || s >= REPORT_CAUSE_SOURCES || c < 0 || c >= REPORT_CAUSES)
		return 0;   /* a value this fpusoakd does not know: not counted as something it is not */
	if ((a->from >= 0 && h->hour_ms + HOUR_MS <= a->from) || (a->to >= 0 && h->hour_ms > a->to))
		return 0;
	o->total[s][c] += h->failures;
	o->by_order[s][c][k] += h->failures;
	o->all += h->failures;
	/* Hours come oldest first: a new hour takes the next slot, the oldest goes when they are full. */
	if (o->nhours == 0 || o->hours[o->nhours - 1].hour_ms != h->hour_ms) {
		o->hours_total++;
		if (o->nhours == REPORT_CAUSE_HOURS) {
			memmove(o->hours, o->hours + 1, (REPORT_CAUSE_HOURS - 1) * sizeof o->hours[0]);
			o->nhours--;
		}
		hr = &o->hours[o->nhours++];
		memset(hr, 0, sizeof *hr);
		hr->hour_ms = h->hour_ms;
	}
	hr = &o->hours[o->nhours - 1];
	hr->n[s][c] += h->failures;
	hr->by_order[c][k] += (int32_t)h->failures;
	return 0;
}

int report_causes(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, struct report_causes *out)
{
	struct acc a = { out, from_ms, to_ms };
	int has;

	memset(out, 0, sizeof *out);
	if ((has = query_has_table(q, "failure_cause")) < 0)
		return -1;
	if (!has)
		return 0;
	out->have = 1;
	return query_cause_hours(q, run_id, hour_cb, &a) < 0 ? -1 : 0;
}

_Static_assert(REPORT_CAUSES == CAUSE_COUNT, "report/causes.h counts analysis/cause.h's causes");

const char *report_cause_name(int cause)
{
	return cause_name((enum cause)cause);
}

const char *report_cause_source(int source)
{
	static const char *const N[] = { "kernel log", "trace", "module" };

	return source >= 1 && source <= REPORT_CAUSE_SOURCES ? N[source - 1] : "?";
}

const char *report_cause_source_key(int source)
{
	static const char *const N[] = { "kmsg", "trace", "module" };

	return source >= 1 && source <= REPORT_CAUSE_SOURCES ? N[source - 1] : "?";
}

const char *report_cause_orders(const int64_t *by_order, char *buf, size_t len)
{
	int done[REPORT_CAUSE_ORDERS] = { 0 };
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (;;) {
		int best = -1;
		for (int k = 0; k < REPORT_CAUSE_ORDERS; k++)
			if (!done[k] && by_order[k] > 0 && (best < 0 || by_order[k] > by_order[best]))
				best = k;
		if (best < 0 || used >= len)
			break;
		done[best] = 1;
		used += (size_t)snprintf(buf + used, len - used, "%so%d%s %lld", used ? ", " : "", best,
					 best == REPORT_CAUSE_ORDERS - 1 ? "+" : "", (long long)by_order[best]);
	}
	return buf;
}

int report_cause_module(const char *gfp_mode)
{
	return gfp_mode && strncmp(gfp_mode, "off (", 5) != 0;
}

int report_cause_line(const struct report_causes *rc, int i, char *buf, size_t len)
{
	char ord[160];

	if (!rc->have)
		return -1;
	if (rc->all == 0) {
		snprintf(buf, len, "failure causes: no failed allocation classified");
		return i == 0 ? 0 : -1;
	}
	for (int s = 0; s < REPORT_CAUSE_SOURCES; s++) {
		int64_t n = 0;
		for (int c = 0; c < REPORT_CAUSES; c++)
			n += rc->total[s][c];
		if (!n)
			continue;
		if (i-- == 0) {
			snprintf(buf, len, "failure causes (%s): %lld", report_cause_source(s + 1), (long long)n);
			return 0;
		}
		/* watermark, fragmentation, reserve, then unknown */
		for (int k = 1; k <= REPORT_CAUSES; k++) {
			int c = k % REPORT_CAUSES;
			if (!rc->total[s][c] || i-- != 0)
				continue;
			snprintf(buf, len, "  %-13s %lld (%s)", report_cause_name(c), (long long)rc->total[s][c],
				 report_cause_orders(rc->by_order[s][c], ord, sizeof ord));
			return 0;
		}
	}
	return -1;
}
