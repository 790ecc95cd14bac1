/* SPDX-License-Identifier: GPL-2.0-only */
/* churn_ctl: token bucket, lifetimes, accounting; see churn_ctl.h. */
#include "spawner/churn_ctl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/num.h"
#include "worker/worker.h"

#define TOKEN 1000000000000ULL      /* one spawn, in 1e-12 units: rate_milli x ns */

/* ---- controller ---------------------------------------------------------------------------- */

static uint64_t burst(const struct churn_params *p)
{
	/* 100 ms of tokens, at least one. rate_milli x 1e8 ns stays below 2^64 for rate_milli <= 1e9. */
	uint64_t b = p->rate_milli * 100000000ULL;

	return b < TOKEN ? TOKEN : b;
}

/* Tokens at now_ns: what the bucket holds after dt of refill, capped at the burst.  Comparing dt with
 * the time the bucket needs to fill, instead of multiplying first, keeps rate x dt from overflowing. */
static uint64_t tokens_at(const struct churn_ctl *c, int64_t now_ns)
{
	uint64_t b = burst(&c->p), room;
	int64_t dt = now_ns - c->last_ns;

	if (dt <= 0 || c->tokens >= b)
		return c->tokens < b ? c->tokens : b;
	room = b - c->tokens;
	if ((uint64_t)dt >= (room + c->p.rate_milli - 1) / c->p.rate_milli)
		return b;
	return c->tokens + c->p.rate_milli * (uint64_t)dt;
}

static void refill(struct churn_ctl *c, int64_t now_ns)
{
	if (now_ns <= c->last_ns)
		return;
	if (c->p.rate_milli != CHURN_RATE_MAX && c->p.rate_milli != 0)
		c->tokens = tokens_at(c, now_ns);
	c->last_ns = now_ns;
}

static void set_params(struct churn_ctl *c, const struct churn_params *p)
{
	c->p = *p;
	if (c->p.workers < 0)
		c->p.workers = 0;
	if (c->p.rate_milli != CHURN_RATE_MAX && c->p.rate_milli > CHURN_RATE_MILLI_CAP)
		c->p.rate_milli = CHURN_RATE_MILLI_CAP;
	if (c->p.lifetime_ms < 0)
		c->p.lifetime_ms = 0;
	if (c->p.lifetime_ms > CHURN_LIFETIME_CAP_MS)
		c->p.lifetime_ms = CHURN_LIFETIME_CAP_MS;
}

void churn_ctl_init(struct churn_ctl *c, const struct churn_params *p, uint64_t seed, int64_t now_ns)
{
	memset(c, 0, sizeof *c);
	set_params(c, p);
	rng_seed(&c->rng, seed);
	c->last_ns = now_ns;
	c->tokens = TOKEN;
	c->backoff_until_ns = now_ns;
}

void churn_ctl_set(struct churn_ctl *c, const struct churn_params *p, int64_t now_ns)
{
	refill(c, now_ns);
	set_params(c, p);
	if (c->p.rate_milli != CHURN_RATE_MAX && c->tokens > burst(&c->p))
		c->tokens = burst(&c->p);
}

int churn_ctl_due(struct churn_ctl *c, int64_t now_ns, uint64_t alive)
{
	uint64_t gap, n;

	refill(c, now_ns);
	if ((uint64_t)c->p.workers <= alive || now_ns < c->backoff_until_ns)
		return 0;
	gap = (uint64_t)c->p.workers - alive;
	n = c->p.rate_milli == CHURN_RATE_MAX ? gap : c->tokens / TOKEN;
	if (n > gap)
		n = gap;
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

void churn_ctl_spent(struct churn_ctl *c, int n)
{
	uint64_t cost = (uint64_t)(n < 0 ? 0 : n) * TOKEN;

	if (c->p.rate_milli == CHURN_RATE_MAX)
		return;
	c->tokens = c->tokens > cost ? c->tokens - cost : 0;
}

void churn_ctl_failed(struct churn_ctl *c, int64_t now_ns)
{
	c->backoff_until_ns = now_ns + CHURN_BACKOFF_NS;
}

int64_t churn_ctl_next_ns(const struct churn_ctl *c, int64_t now_ns, uint64_t alive)
{
	int64_t t = now_ns > c->backoff_until_ns ? now_ns : c->backoff_until_ns;
	uint64_t have, need;

	if ((uint64_t)c->p.workers <= alive)
		return INT64_MAX;
	if (c->p.rate_milli == CHURN_RATE_MAX || c->p.rate_milli == 0)
		return c->p.rate_milli == 0 ? INT64_MAX : t;
	/* Tokens as of now (what refill would give), then the wait for a whole one. */
	have = tokens_at(c, now_ns);
	if (have >= TOKEN)
		return t;
	need = TOKEN - have;
	int64_t wait = (int64_t)((need + c->p.rate_milli - 1) / c->p.rate_milli);
	return now_ns + wait > t ? now_ns + wait : t;
}

int64_t churn_ctl_lifetime_ms(struct churn_ctl *c)
{
	double mean = (double)c->p.lifetime_ms, v;

	if (c->p.lifetime_ms <= 0)
		return 0;
	switch (c->p.dist) {
	case CHURN_DIST_FIXED:
		return c->p.lifetime_ms;
	case CHURN_DIST_UNIFORM:
		v = rng_unit(&c->rng) * 2.0 * mean;
		break;
	default:
		/* 1 - u is in (0, 1], so the log is finite; the tail ends near 36.7 x mean. */
		v = -mean * log(1.0 - rng_unit(&c->rng));
		break;
	}
	return (int64_t)(v + 0.5);
}

/* ---- accounting ---------------------------------------------------------------------------- */

void churn_count_spawned(struct churn_counters *k)
{
	k->spawned++;
	k->population++;
}

void churn_count_spawn_failed(struct churn_counters *k, int err)
{
	if (err == EAGAIN)
		k->spawn_failed_eagain++;
	else if (err == ENOMEM)
		k->spawn_failed_enomem++;
	else
		k->spawn_failed_other++;
	k->last_spawn_errno = err;
}

void churn_count_death(struct churn_counters *k, int code, int status)
{
	if (k->population > 0)
		k->population--;
	if (code == CLD_EXITED) {
		k->exited++;
		if (status == WORKER_EXIT_RETIRED)
			k->exited_retired++;
		else if (status != 0) {
			k->exited_error++;
			k->last_exit_error = status;
		}
		return;
	}
	k->last_signal = status;
	if (status == SIGKILL)
		k->killed_sigkill++;
	else if (status == SIGSEGV)
		k->killed_sigsegv++;
	else if (status == SIGILL)
		k->killed_sigill++;
	else
		k->killed_other++;
}

void churn_count_gfp_failed(struct churn_counters *k)
{
	if (k->population > 0)
		k->population--;
	k->gfp_failed++;
	k->last_signal = SIGKILL;
}

void churn_count_death_cause(struct churn_counters *k, int code, int status, enum churn_kill_cause cause)
{
	churn_count_death(k, code, status);
	if (code == CLD_EXITED || status != SIGKILL)
		return;
	if (cause == CHURN_KILL_OURS)
		k->killed_ours++;
	else if (cause == CHURN_KILL_OOM)
		k->oom_killed++;
}

int churn_oom_attribute(uint64_t memcg_total, uint64_t *attributed)
{
	if (memcg_total <= *attributed)
		return 0;
	(*attributed)++;
	return 1;
}

int churn_counters_check(const struct churn_counters *k)
{
	uint64_t ended = k->exited + k->killed_sigkill + k->killed_sigsegv + k->killed_sigill + k->killed_other +
			 k->gfp_failed;

	return k->spawned == ended + k->population && k->exited_retired + k->exited_error <= k->exited &&
	       k->oom_killed + k->killed_ours <= k->killed_sigkill ? 0 : -1;
}

/* ---- flags --------------------------------------------------------------------------------- */

int churn_rate_parse(const char *s, uint64_t *rate_milli)
{
	const char *dot;
	uint64_t whole, frac = 0;
	size_t wl, fl;

	if (!s)
		return -1;
	if (strcmp(s, "max") == 0) {
		*rate_milli = CHURN_RATE_MAX;
		return 0;
	}
	dot = strchr(s, '.');
	wl = dot ? (size_t)(dot - s) : strlen(s);
	if (num_parse_u64(s, wl, &whole) < 0 || whole > CHURN_RATE_MILLI_CAP / 1000)
		return -1;
	if (dot) {
		fl = strlen(dot + 1);
		if (fl == 0 || fl > 3)
			return -1;
		for (size_t i = 0; i < fl; i++) {
			if (dot[1 + i] < '0' || dot[1 + i] > '9')
				return -1;
			frac = frac * 10 + (uint64_t)(dot[1 + i] - '0');
		}
		for (size_t i = fl; i < 3; i++)
			frac *= 10;
	}
	*rate_milli = whole * 1000 + frac;
	return *rate_milli == 0 ? -1 : 0;
}

const char *churn_rate_format(uint64_t rate_milli, char *out, size_t outlen)
{
	if (rate_milli == CHURN_RATE_MAX)
		snprintf(out, outlen, "max");
	else if (rate_milli % 1000 == 0)
		snprintf(out, outlen, "%llu", (unsigned long long)(rate_milli / 1000));
	else {
		char frac[8];
		int n = snprintf(frac, sizeof frac, "%03llu", (unsigned long long)(rate_milli % 1000));
		while (n > 1 && frac[n - 1] == '0')
			frac[--n] = 0;
		snprintf(out, outlen, "%llu.%s", (unsigned long long)(rate_milli / 1000), frac);
	}
	return out;
}

static const char *const dists[] = { "exp", "fixed", "uniform" };

int churn_dist_parse(const char *s, enum churn_dist *out)
{
	for (int i = 0; s && i < 3; i++)
		if (strcmp(s, dists[i]) == 0) {
			*out = (enum churn_dist)i;
			return 0;
		}
	return -1;
}

const char *churn_dist_name(int dist)
{
	return dist >= 0 && dist < 3 ? dists[dist] : "?";
}
