/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_memory: the memory sections — free memory per zone as headroom lines
 * (report/memory.h), the unusable free space index, and the compaction,
 * reclaim and memory counters.  A zone that cannot matter for the question
 * (report/memory.h says which and why) has its charts folded into a
 * <details> that says so.
 */
#include <math.h>

#include "common/fmt.h"
#include "report/memory.h"
#include "web/chart.h"
#include "web/section.h"

int sec_free(struct run_page *p)
{
	struct web_req *r = p->r;
	char mib[32];

	if (section_free_zones(p) < 0)
		return -1;
	if (p->nfz == 0) {
		sb_puts(&r->body, "<p class=\"pending\">No buddyinfo sample in this window.</p>\n");
		return 0;
	}
	if (p->ri.page_size <= 0)
		sb_puts(&r->body, "<p class=\"pending\">Page size not recorded; MiB assume 4096-byte pages.</p>\n");
	for (int i = 0; i < p->nfz; i++) {
		const struct report_free_zone *z = &p->fz[i];
		if (z->fold)
			continue;
		if (chart_free(r, z, p->from, p->to) < 0)
			return -1;
	}
	for (int i = 0; i < p->nfz; i++) {
		const struct report_free_zone *z = &p->fz[i];
		if (!z->fold)
			continue;
		sb_printf(&r->body, "<details><summary>node %d zone ", z->node);
		page_text(r, z->zone);
		sb_printf(&r->body, ", %s MiB free: not shown, %s</summary>\n", fmt_sig(z->last_mib, mib, sizeof mib), z->fold);
		if (chart_free(r, z, p->from, p->to) < 0)
			return -1;
		sb_puts(&r->body, "</details>\n");
	}
	if (p->nfz == REPORT_FREE_ZONES)
		sb_printf(&r->body, "<p class=\"pending\">Only the first %d zones are shown.</p>\n", REPORT_FREE_ZONES);
	return 0;
}

static const char *fold_zone(const void *arg, int node, const char *zone)
{
	return section_zone_fold(arg, node, zone);
}

int sec_unusable(struct run_page *p)
{
	if (section_free_zones(p) < 0)
		return -1;
	return chart_unusable(p->r, p->ri.run_id, p->from, p->to, fold_zone, p);
}

int sec_counters(struct run_page *p)
{
	static const char *const compaction[] = { "compact_stall", "compact_fail", "compact_success",
						  "compact_migrate_scanned", "compact_free_scanned" };
	static const char *const reclaim[] = { "allocstall_dma", "allocstall_dma32", "allocstall_normal",
					       "allocstall_movable", "oom_kill" };
	static const char *const mem[] = { "MemFree", "MemAvailable" };
	static const char *const kern[] = { "Slab", "SUnreclaim", "KernelStack", "PageTables" };
	int64_t id = p->ri.run_id;

	if (chart_vmstat_rates(p->r, id, p->from, p->to, compaction, 3, "Compaction",
			       "Events per second. compact_stall: allocations that waited for direct compaction; "
			       "compact_fail rising with it: compaction is not producing the blocks asked for.") < 0 ||
	    chart_vmstat_rates(p->r, id, p->from, p->to, reclaim, 5, "Direct reclaim stalls and OOM kills",
			       "Allocations per second that stalled in direct reclaim, by zone, and OOM kills: "
			       "memory pressure, not only fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, mem, 2, "Free and available memory",
			  "A steady fall is a leak or a growing cache; a flat total with thinning high orders "
			  "above is fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, kern, 4, "Kernel memory",
			  "Slab (task_struct lives there), its unreclaimable part, kernel stacks and page tables: "
			  "process churn shows here first.") < 0)
		return -1;
	sb_puts(&p->r->body, "<details><summary>Compaction scanning</summary>\n");
	if (chart_vmstat_rates(p->r, id, p->from, p->to, compaction + 3, 2, "Compaction scanning",
			       "Pages scanned per second by the compaction migrate and free scanners: the work "
			       "compaction does to find movable pages and free targets.") < 0)
		return -1;
	sb_puts(&p->r->body, "</details>\n");
	return 0;
}
