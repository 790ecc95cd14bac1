/*
 * metrics: the Prometheus text exposition (format 0.0.4) of the latest
 * sample, built from plain structs.
 *
 * The daemon's loop calls metrics_build() once per sample and hands the
 * bytes to web_publish_metrics(); a scrape then copies nothing and queries
 * nothing (it serves the last published buffer), so scrapes cost almost
 * nothing however often they come.  Families appear only when their input
 * is present; each has # HELP and # TYPE; counters end in _total; label
 * values are escaped (escape_prom_label).
 *
 * Families now:
 *   fpusoakd_build_info{version}                       gauge, 1
 *   fpusoakd_run_id, fpusoakd_run_start_time_seconds   gauges
 *   fpusoakd_samples_total                             counter, ticks of this run
 *   fpusoakd_last_sample_timestamp_seconds             gauge
 *   fpusoakd_sample_duration_seconds                   gauge, read+parse time of the last tick
 *   fpusoakd_buddy_free_blocks{node,zone,order}        gauge, /proc/buddyinfo
 *   fpusoakd_buddy_free_pages{node,zone}               gauge, sum of free_blocks << order
 *   fpusoakd_vmstat_events_total{name}                 counter, /proc/vmstat event counters
 *   fpusoakd_vmstat_current{name}                      gauge, /proc/vmstat nr_* state
 *   fpusoakd_meminfo_bytes{name}                       gauge, /proc/meminfo kB fields x 1024
 *   fpusoakd_meminfo_hugepages{name}                   gauge, HugePages_* counts
 */
#ifndef FPUSOAK_METRICS_H
#define FPUSOAK_METRICS_H

#include <stdint.h>

#include "collector/buddyinfo.h"
#include "collector/kv.h"
#include "common/strbuf.h"

#define METRICS_MAX_BYTES (4u << 20)   /* cap of the exposition buffer (a few hundred KB in practice) */

struct metrics_input {
	const char *version;             /* build version (FPUSOAK_VERSION) */
	int64_t run_id;                  /* current run, > 0 */
	int64_t run_started_ms;          /* epoch ms */
	uint64_t samples_total;          /* ticks stored in this run */
	int64_t sample_ts_ms;            /* when the last tick was taken, epoch ms; 0 = omit */
	int64_t sample_us;               /* read+parse time of the last tick, microseconds; < 0 = omit */
	const struct buddyinfo *buddy;   /* last snapshot, or NULL */
	const struct kv_set *vmstat;     /* last snapshot, or NULL */
	const struct kv_set *meminfo;    /* last snapshot, or NULL */
	/*
	 * Room for later issues; add a field here and a family in metrics.c
	 * (NULL or 0 must mean "omit the family"):
	 *   - churn: workers alive, spawns_total, spawn_failures_total{errno},
	 *     worker_deaths_total{signal}, oom_kills_total
	 *   - headroom: free blocks >= order k for the orders of interest
	 *   - indices: unusable free space / fragmentation index {node,zone,order}
	 *   - alloc failures: alloc_failures_total{order}
	 *   - probes: last capacity-probe count, last FPU-cost probe result
	 */
};

/* Append the exposition of in to sb (reset first by the caller); 0, or -1 when sb hit its cap. */
int metrics_build(struct strbuf *sb, const struct metrics_input *in);

#endif
