/* SPDX-License-Identifier: GPL-2.0-only */
/* gfplink: module detection and model checks; see gfplink.h. */
#include "daemon/gfplink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/atomic.h"
#include "churn/gfpmod.h"
#include "common/clock.h"
#include "common/log.h"
#include "daemon/causes.h"
#include "daemon/sampler.h"
#include "store/store.h"

#define DEFAULT_CHECK_MS 10000
#define XSTATE_CACHE "fpusoak_xstate"    /* the module's slab cache (kmod/fpusoak_gfp.c) */

static const enum gfp_mode CHECK_MODES[] = { GFP_MODE_ATOMIC, GFP_MODE_NOWAIT };
#define NCHECK_MODES (sizeof CHECK_MODES / sizeof CHECK_MODES[0])

struct gfplink {
	int fd;                      /* the device, -1 without the module or after it failed */
	int mode;                    /* enum gfp_mode in force */
	int64_t interval_ms;
	int64_t next_ms;             /* monotonic; 0 = first check at the next tick */
	char describe[64];
	char announce[320];          /* the start-up line gfplink_announce logs */
	int announce_warn;           /* ... as a warning: a mode was asked for that cannot be had */
	uint64_t checks, agreed;
	uint64_t confusion[NCHECK_MODES][2][2];   /* [mode][predicted][actual] */
	uint32_t object_size;        /* bytes of a HOLD's object (the module's INFO); 0 without it */
	struct causes *causes;
};

void gfplink_set_causes(struct gfplink *g, struct causes *c)
{
	if (g)
		g->causes = c;
}

int gfplink_hold_order(const struct gfplink *g)
{
	long ps = sysconf(_SC_PAGESIZE);
	int k = 0;

	if (!g || !g->object_size || ps <= 0)
		return -1;
	while (k < 10 && ((uint64_t)ps << k) < g->object_size)
		k++;
	return k;
}

struct gfplink *gfplink_open(const struct config *cfg)
{
	struct gfplink *g = calloc(1, sizeof *g);
	struct fpusoak_gfp_info info;
	char why[160];

	if (!g)
		return NULL;
	g->fd = gfpmod_detect(&info, why, sizeof why);
	if (g->fd < 0) {
		g->mode = GFP_MODE_OFF;
		snprintf(g->describe, sizeof g->describe, "off (%s)", why);
		/* The one line; louder when something was asked for that cannot happen. */
		g->announce_warn = cfg->gfp_mode != GFP_MODE_OFF || cfg->model_check_interval_ms > 0;
		if (g->announce_warn)
			snprintf(g->announce, sizeof g->announce,
				 "gfp: %s: gfp_mode=off, no model checks (--gfp-mode %s not possible)", why,
				 gfpmod_mode_name(cfg->gfp_mode));
		else
			snprintf(g->announce, sizeof g->announce, "gfp: fpusoak_gfp %s: gfp_mode=off, no model checks",
				 why);
		return g;
	}
	g->mode = cfg->gfp_mode;
	g->object_size = info.object_size;
	g->interval_ms = cfg->model_check_interval_ms < 0 ? DEFAULT_CHECK_MS : cfg->model_check_interval_ms;
	snprintf(g->describe, sizeof g->describe, "%s", gfpmod_mode_name(g->mode));
	snprintf(g->announce, sizeof g->announce,
		 "gfp: %s: objects of %u bytes, max_held %u; gfp_mode=%s, model checks every %lld ms%s",
		 FPUSOAK_GFP_DEVICE, info.object_size, info.max_held, gfpmod_mode_name(g->mode),
		 (long long)g->interval_ms, g->interval_ms ? "" : " (off)");
	return g;
}

void gfplink_announce(const struct gfplink *g)
{
	if (!g || !g->announce[0])
		return;
	if (g->announce_warn)
		log_warnx("%s", g->announce);
	else
		log_info("%s", g->announce);
}

void gfplink_close(struct gfplink *g)
{
	if (!g)
		return;
	if (g->checks) {
		char line[512];
		size_t used = 0;
		for (size_t m = 0; m < NCHECK_MODES; m++) {
			uint64_t (*c)[2] = g->confusion[m];
			used += (size_t)snprintf(line + used, sizeof line - used, "%s%s ok/ok %llu, ok/refused %llu, "
						 "refused/ok %llu, refused/refused %llu", m ? "; " : "",
						 gfpmod_mode_name(CHECK_MODES[m]), (unsigned long long)c[1][1],
						 (unsigned long long)c[1][0], (unsigned long long)c[0][1],
						 (unsigned long long)c[0][0]);
			if (used >= sizeof line)
				break;
		}
		log_info("gfp: %llu model checks, model and allocator agreed on %llu (predicted/actual: %s)",
			 (unsigned long long)g->checks, (unsigned long long)g->agreed, line);
	}
	if (g->fd >= 0)
		close(g->fd);
	free(g);
}

int gfplink_mode(const struct gfplink *g)
{
	return g ? g->mode : GFP_MODE_OFF;
}

const char *gfplink_describe(const struct gfplink *g)
{
	return g ? g->describe : "off";
}

int64_t gfplink_check_interval_ms(const struct gfplink *g)
{
	return g && g->fd >= 0 ? g->interval_ms : 0;
}

void gfplink_totals(const struct gfplink *g, uint64_t *checks, uint64_t *agreed)
{
	*checks = g ? g->checks : 0;
	*agreed = g ? g->agreed : 0;
}

static int add_order(int *orders, int n, int k)
{
	if (k < 0 || n >= GFPLINK_MAX_ORDERS)
		return n;
	for (int i = 0; i < n; i++)
		if (orders[i] == k)
			return n;
	orders[n] = k;
	return n + 1;
}

/* The orders of interest as of this tick (gfplink.h). */
static int orders_now(const struct gfplink *g, const struct sampler *s, int *orders)
{
	const struct pagetypeinfo *pt = sampler_pagetypeinfo(s);
	const struct slabinfo *sl = sampler_slabinfo(s);
	const struct slabinfo_cache *xc = sl ? slabinfo_find(sl, XSTATE_CACHE) : NULL;
	int n = 0;

	n = add_order(orders, n, sampler_task_order(s) >= 0 ? sampler_task_order(s) : 3);
	if (pt)
		n = add_order(orders, n, pt->pageblock_order);
	if (xc)
		n = add_order(orders, n, xc->order);
	n = add_order(orders, n, g->object_size ? gfplink_hold_order(g) : -1);
	return n;
}

/* One order and mode: the model first (from this tick's files), then the allocator at once. */
static int check_one(struct gfplink *g, const struct sampler *s, int order, size_t mi, int64_t wall_ms,
		     struct gfplink_check *out)
{
	enum atomic_req req = CHECK_MODES[mi] == GFP_MODE_ATOMIC ? ATOMIC_REQ_ATOMIC : ATOMIC_REQ_NOWAIT;
	int pred, ok;
	int64_t margin;
	uint64_t ns = 0;

	if (sampler_predict(s, (unsigned)order, req, &pred, &margin) < 0)
		return 0;                 /* no current snapshot: no prediction to check */
	if (gfpmod_try(g->fd, (unsigned)order, CHECK_MODES[mi], &ok, &ns) < 0)
		return -1;
	*out = (struct gfplink_check){ .ts_ms = wall_ms, .order = order, .mode = CHECK_MODES[mi],
				       .predicted_ok = pred, .actual_ok = ok, .margin_pages = margin,
				       .duration_ns = ns, .try_ms = clock_wall_ms() };
	g->checks++;
	g->agreed += pred == ok;
	g->confusion[mi][pred][ok]++;
	return 1;
}

int gfplink_tick(struct gfplink *g, const struct sampler *s, struct store *st, struct store_tick *t,
		 int64_t mono_ms, int64_t wall_ms)
{
	int orders[GFPLINK_MAX_ORDERS], n, made = 0;
	struct gfplink_check c;

	(void)st;
	if (!g || g->fd < 0 || !g->interval_ms)
		return 0;
	/* The first check one interval in: by then slabinfo and pagetypeinfo have named the orders. */
	if (!g->next_ms)
		g->next_ms = mono_ms + g->interval_ms;
	if (mono_ms < g->next_ms)
		return 0;
	g->next_ms = mono_ms + g->interval_ms;
	n = orders_now(g, s, orders);
	for (int i = 0; i < n; i++)
		for (size_t m = 0; m < NCHECK_MODES; m++) {
			int rc = check_one(g, s, orders[i], m, wall_ms, &c);
			if (rc < 0) {
				log_warn("gfp: TRY order %d %s on %s; model checks stop", orders[i],
					 gfpmod_mode_name(CHECK_MODES[m]), FPUSOAK_GFP_DEVICE);
				close(g->fd);
				g->fd = -1;
				return -1;
			}
			if (rc > 0) {
				struct store_model_check row = { c.order, c.mode, c.predicted_ok, c.actual_ok, c.margin_pages };
				if (t && store_tick_model_check(t, &row) < 0)
					log_warnx("gfp: out of memory: a model check is not stored");
				/* A refusal is a failed allocation like any other: why did it fail? */
				if (!c.actual_ok && causes_module(g->causes, c.try_ms, "TRY", c.mode, (unsigned)c.order,
								  getpid(), t) < 0)
					log_warnx("gfp: out of memory: a refused TRY's cause is not stored");
				made++;
				log_debug("gfp: model check order %d %s: predicted %s, allocator %s (margin %lld pages, %llu ns)",
					  c.order, gfpmod_mode_name(c.mode), c.predicted_ok ? "ok" : "refused",
					  c.actual_ok ? "ok" : "refused", (long long)c.margin_pages,
					  (unsigned long long)c.duration_ns);
			}
		}
	return made;
}
