/* SPDX-License-Identifier: GPL-2.0-only */
/* report/memory: free memory per zone as headroom lines; see memory.h. */
#include "report/memory.h"
#include "report/headline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct acc {
	struct report_free_zone *z;
	int nz;
	int lines, order[REPORT_FREE_LINES];
	double page_mib;
};

static int point_cb(void *arg, const struct query_buddy_point *p)
{
	struct acc *a = arg;
	struct report_free_zone *z = NULL;

	for (int i = 0; i < a->nz && !z; i++)
		if (a->z[i].node == p->node && strcmp(a->z[i].zone, p->zone ? p->zone : "") == 0)
			z = &a->z[i];
	if (!z) {
		if (a->nz == REPORT_FREE_ZONES || !p->zone || strlen(p->zone) >= ZONE_NAME_MAX)
			return 0;   /* past the cap: the page says how many zones it shows */
		z = &a->z[a->nz++];
		z->node = p->node;
		snprintf(z->zone, sizeof z->zone, "%s", p->zone);
		z->nlines = a->lines;
		memcpy(z->order, a->order, sizeof z->order);
	}
	if (z->n == REPORT_FREE_POINTS)
		return -1;   /* cannot happen with max_points = REPORT_FREE_POINTS */
	z->t[z->n] = p->ts_ms;
	for (int l = 0; l < z->nlines; l++) {
		double pages = 0;
		for (int k = z->order[l]; k < p->norders && k < BUDDY_MAX_ORDER; k++)
			pages += p->free[k] * (double)(UINT64_C(1) << k);
		z->mib[l][z->n] = pages * a->page_mib;
	}
	z->n++;
	return 0;
}

int report_free_zones(struct query *q, int64_t run_id, int64_t from_ms, int64_t to_ms, const struct report_orders *o,
		      int64_t page_size, struct report_free_zone **out)
{
	struct acc a = { 0 };
	struct query_range rg = { from_ms, to_ms, REPORT_FREE_POINTS, 0, 0 };

	*out = NULL;
	if (!(a.z = calloc(REPORT_FREE_ZONES, sizeof *a.z)))
		return -1;
	a.page_mib = (double)(page_size > 0 ? page_size : 4096) / 1048576.0;
	a.order[a.lines++] = 0;
	/* The orders of interest, ascending, once each: the lines then never cross. */
	for (int k = 1; k < BUDDY_MAX_ORDER; k++)
		for (int i = 0; i < o->n; i++)
			if (o->order[i] == k && a.lines < REPORT_FREE_LINES) {
				a.order[a.lines++] = k;
				break;
			}
	if (query_buddy_series(q, run_id, &rg, point_cb, &a) < 0) {
		free(a.z);
		return -1;
	}
	for (int i = 0; i < a.nz; i++) {
		struct report_free_zone *z = &a.z[i];
		double lo = INFINITY, hi = -INFINITY;
		for (size_t j = 0; j < z->n; j++) {
			lo = fmin(lo, z->mib[0][j]);
			hi = fmax(hi, z->mib[0][j]);
		}
		z->moved = z->n > 0 && hi > lo;
		z->last_mib = z->n ? z->mib[0][z->n - 1] : NAN;
	}
	for (int i = 0; i < a.nz; i++) {
		struct report_free_zone *z = &a.z[i];
		int above = 0;
		for (int j = 0; j < a.nz; j++)
			above |= a.z[j].node == z->node && report_request_zone_rank(a.z[j].zone) > 1;
		if (!z->moved)
			z->fold = "its free memory did not change in this window";
		else if (report_request_zone_rank(z->zone) == 1 && above)
			z->fold = "a request from the zones above reaches it last, behind its lowmem reserve";
	}
	*out = a.z;
	return a.nz;
}
