/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics: headroom and the kernel's indices of the last sample, for /metrics; see metrics.h. */
#include "report/metrics.h"

#include <string.h>

#include "analysis/frag.h"

void report_frag_now(const struct buddyinfo *b, const int *orders, int nk, struct report_frag_now *out)
{
	memset(out, 0, sizeof *out);
	out->norders = b->norders < 0 ? 0 : b->norders > BUDDY_MAX_ORDER ? BUDDY_MAX_ORDER : b->norders;
	out->nzones = b->nzones < 0 ? 0 : b->nzones > BUDDY_MAX_ZONES ? BUDDY_MAX_ZONES : b->nzones;
	for (int j = 0; j < nk && out->nk < REPORT_FRAG_ORDERS; j++)
		if (orders[j] >= 0 && orders[j] < out->norders)
			out->orders[out->nk++] = orders[j];
	for (int i = 0; i < out->nzones; i++) {
		for (int j = 0; j < out->nk; j++)
			out->z[i].headroom[j] = frag_headroom(b->z[i].free, out->norders, (unsigned)out->orders[j]);
		for (int k = 0; k < out->norders; k++)
			frag_indices(b->z[i].free, out->norders, (unsigned)k, &out->z[i].unusable[k],
				     &out->z[i].fragmentation[k]);
	}
}
