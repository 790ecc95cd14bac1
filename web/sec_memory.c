/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sec_memory: report sections 1 (free memory by order), 3 (the unusable
 * free space index) and 7 (compaction, reclaim and memory counters): the
 * store's series charted as they are.
 */
#include "web/chart.h"
#include "web/section.h"

int sec_free(struct run_page *p)
{
	return chart_buddy(p->r, p->ri.run_id, p->from, p->to, p->ri.page_size, CHART_STACKED);
}

int sec_unusable(struct run_page *p)
{
	return chart_unusable(p->r, p->ri.run_id, p->from, p->to);
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
			       "Events per second. compact_stall counts allocations that waited for direct "
			       "compaction; compact_fail rising with it means compaction is not producing the "
			       "blocks asked for.") < 0 ||
	    chart_vmstat_rates(p->r, id, p->from, p->to, compaction + 3, 2, "Compaction scanning",
			       "Pages scanned per second by the compaction migrate and free scanners: the work "
			       "compaction does to find movable pages and free targets.") < 0 ||
	    chart_vmstat_rates(p->r, id, p->from, p->to, reclaim, 5, "Direct reclaim stalls and OOM kills",
			       "Allocations per second that stalled in direct reclaim, by zone, and OOM kills: "
			       "any sustained value means memory pressure, not just fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, mem, 2, "Free and available memory",
			  "A steady fall is a leak or growing cache; a flat total with thinning high orders above "
			  "is fragmentation.") < 0 ||
	    chart_meminfo(p->r, id, p->from, p->to, kern, 4, "Kernel memory",
			  "Slab (task_struct lives there), its unreclaimable part, kernel stacks and page tables: "
			  "process churn shows here first.") < 0)
		return -1;
	return 0;
}
