/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * api: the /api/v1/ handlers (routes in server.h): run documents
 * (api_run.c), series as JSON or CSV (api_series.c) and the comparison
 * (api_compare.c).  Figures come from report/, as on the pages.
 */
#ifndef FPUSOAK_API_H
#define FPUSOAK_API_H

#include "web/request.h"

/* /api/v1/status: health, status line, version, schema, the newest run. */
int api_status(struct web_req *r);

/* /api/v1/runs: every run, newest first, JSON or CSV. */
int api_runs(struct web_req *r);

/* /api/v1/runs/{id}: one run with its latest buddyinfo, orders of interest and headroom trends. */
int api_run(struct web_req *r);

/* /api/v1/runs/{id}/buddyinfo: free blocks per zone and order, bucketed. */
int api_buddyinfo(struct web_req *r);

/* /api/v1/runs/{id}/meminfo?name=: one meminfo field, bucketed. */
int api_meminfo(struct web_req *r);

/* /api/v1/runs/{id}/vmstat?name=: one vmstat counter as a rate per second, bucketed. */
int api_vmstat(struct web_req *r);

/* /api/v1/runs/{id}/failures: allocation failures, newest first. */
int api_failures(struct web_req *r);

/* /api/v1/runs/{id}/frag: the kernel's indices and headroom per zone and order, bucketed. */
int api_frag(struct web_req *r);

/* /api/v1/runs/{id}/churn: churn counts per bucket. */
int api_churn(struct web_req *r);

/* /api/v1/runs/{id}/probes[?name=capacity|switch]: probes, oldest first. */
int api_probes(struct web_req *r);

/* /api/v1/compare?a=&b=: report_compare() as JSON. */
int api_compare(struct web_req *r);

#endif
