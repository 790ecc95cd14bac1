/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * churn_ctl and the capacity-probe rules, with a fake clock and a fake
 * spawner: rates, population, lifetimes, accounting, probe decisions.
 *
 * Expected values are hand computations (a 50/s bucket starting with one
 * token spawns at 0, 20, 40 ... ms: 501 in [0, 10 s]), distribution
 * moments (exp: mean m, sd m, median m ln 2; uniform on [0, 2m): sd m/sqrt(3)),
 * and Little's law (population = rate x mean lifetime).  Random parts print
 * their seed; FPUSOAK_SEED=N replays one.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "churn/churn_ctl.h"
#include "churn/probe.h"
#include "churn/worker.h"
#include "tests/unit/test.h"

#define MS 1000000LL
#define SEC 1000000000LL

static uint64_t seed;

/* ---- a fake spawner: workers are just death times ------------------------------------------- */

#define FAKE_MAX 200000

struct fake {
	int64_t death[FAKE_MAX];
	size_t n;
	uint64_t spawned;
	double pop_integral;  /* population x seconds */
	int64_t last_t;
	uint64_t max_pop;
};

static void fake_advance(struct fake *f, int64_t t)
{
	f->pop_integral += (double)f->n * (double)(t - f->last_t) / SEC;
	f->last_t = t;
}

/* Remove workers whose death time is <= t; returns how many died. */
static int fake_reap(struct fake *f, int64_t t)
{
	int died = 0;

	for (size_t i = 0; i < f->n;)
		if (f->death[i] <= t) {
			f->death[i] = f->death[--f->n];
			died++;
		} else
			i++;
	return died;
}

static int64_t fake_next_death(const struct fake *f)
{
	int64_t m = INT64_MAX;

	for (size_t i = 0; i < f->n; i++)
		if (f->death[i] < m)
			m = f->death[i];
	return m;
}

/* Event-driven run of controller + fake spawner from 0 to end_ns. */
static void simulate(struct churn_ctl *c, struct fake *f, int64_t end_ns)
{
	int64_t t = 0;

	while (t <= end_ns) {
		fake_advance(f, t);
		fake_reap(f, t);
		int due = churn_ctl_due(c, t, f->n);
		for (int i = 0; i < due && f->n < FAKE_MAX; i++) {
			f->death[f->n++] = t + churn_ctl_lifetime_ms(c) * MS;
			f->spawned++;
		}
		churn_ctl_spent(c, due);
		if (f->n > f->max_pop)
			f->max_pop = f->n;
		int64_t next = churn_ctl_next_ns(c, t, f->n), d = fake_next_death(f);
		if (d < next)
			next = d;
		if (next <= t)
			next = t + 1;
		if (next == INT64_MAX)
			break;
		t = next;
	}
	fake_advance(f, end_ns);
}

static struct fake fk;

static void test_rate(void)
{
	struct churn_ctl c;
	struct churn_params p = { .workers = 100000, .dist = CHURN_DIST_FIXED, .rate_milli = 50000,
				  .lifetime_ms = 3600000 };

	memset(&fk, 0, sizeof fk);
	churn_ctl_init(&c, &p, seed, 0);
	simulate(&c, &fk, 10 * SEC);
	T_EQ_I(fk.spawned, 501, "50/s for 10 s: spawns at 0, 20, ..., 10000 ms");

	p.rate_milli = 500;   /* 0.5/s */
	memset(&fk, 0, sizeof fk);
	churn_ctl_init(&c, &p, seed, 0);
	simulate(&c, &fk, 100 * SEC);
	T_EQ_I(fk.spawned, 51, "0.5/s for 100 s: spawns at 0, 2, ..., 100 s");

	/* A late wake-up (timer slack, a busy loop) loses nothing up to the 100 ms burst. */
	p.rate_milli = 1000000;   /* 1000/s */
	churn_ctl_init(&c, &p, seed, 0);
	churn_ctl_spent(&c, churn_ctl_due(&c, 0, 0));
	T_EQ_I(churn_ctl_due(&c, 50 * MS, 1), 50, "1000/s, woken 50 ms late: 50 due");
	T_EQ_I(churn_ctl_due(&c, 5 * SEC, 1), 100, "after 5 s idle: capped at the 100 ms burst");

	/* The burst is at least one token, even at 0.001/s. */
	p.rate_milli = 1;
	churn_ctl_init(&c, &p, seed, 0);
	churn_ctl_spent(&c, churn_ctl_due(&c, 0, 0));
	T_EQ_I(churn_ctl_due(&c, 999 * SEC, 1), 0, "0.001/s: nothing before 1000 s");
	T_EQ_I(churn_ctl_due(&c, 1000 * SEC, 1), 1, "0.001/s: one at 1000 s");
	T_EQ_I(churn_ctl_next_ns(&c, 1000 * SEC, 1), 1000 * SEC, "next_ns says now when a token is there");
}

static void test_population(void)
{
	struct churn_ctl c;
	struct churn_params p = { .workers = 32, .dist = CHURN_DIST_EXP, .rate_milli = 100000, .lifetime_ms = 30000 };

	memset(&fk, 0, sizeof fk);
	churn_ctl_init(&c, &p, seed, 0);
	simulate(&c, &fk, 310 * MS);
	T_EQ_I(fk.spawned, 32, "100/s to 32 workers: 32 spawned by 310 ms");
	/* Workers that died by 320 ms make room, but refills still come at the rate (one per 10 ms). */
	int due = churn_ctl_due(&c, 320 * MS, fk.n);
	T_CHECK(fk.n >= 32 ? due == 0 : due >= 1 && due <= 32 - (int)fk.n,
		"nothing more due at target, only room left by deaths (%llu alive, %d due)", (unsigned long long)fk.n, due);
	T_EQ_I(churn_ctl_next_ns(&c, 320 * MS, 32), INT64_MAX, "at target only a death can make room");
	simulate(&c, &fk, 120 * SEC);
	T_CHECK(fk.max_pop <= 32, "population never exceeds the target (max %llu)", (unsigned long long)fk.max_pop);

	/* max: the gap is filled at once. */
	p.rate_milli = CHURN_RATE_MAX;
	p.workers = 8;
	churn_ctl_init(&c, &p, seed, 0);
	T_EQ_I(churn_ctl_due(&c, 0, 3), 5, "max rate: the whole gap (8 - 3) is due");
	churn_ctl_spent(&c, 5);
	T_EQ_I(churn_ctl_due(&c, 0, 3), 5, "max rate: spending does not throttle");
	churn_ctl_failed(&c, 0);
	T_EQ_I(churn_ctl_due(&c, 5 * MS, 3), 0, "after a failed spawn: nothing for 10 ms");
	T_EQ_I(churn_ctl_next_ns(&c, 5 * MS, 3), 10 * MS, "next_ns = end of the backoff");
	T_EQ_I(churn_ctl_due(&c, 10 * MS, 3), 5, "after the backoff: due again");

	/* workers 0 = no churn. */
	p.workers = 0;
	churn_ctl_set(&c, &p, 20 * MS);
	T_EQ_I(churn_ctl_due(&c, 30 * MS, 0), 0, "workers 0: nothing ever due");
	T_EQ_I(churn_ctl_next_ns(&c, 30 * MS, 0), INT64_MAX, "workers 0: never");

	/* Little's law: a population that never reaches its target averages rate x mean lifetime. */
	p = (struct churn_params){ .workers = 100000, .dist = CHURN_DIST_EXP, .rate_milli = 100000, .lifetime_ms = 2000 };
	memset(&fk, 0, sizeof fk);
	churn_ctl_init(&c, &p, seed, 0);
	simulate(&c, &fk, 20 * SEC);   /* warm-up */
	double i0 = fk.pop_integral;
	simulate(&c, &fk, 420 * SEC);
	double mean_pop = (fk.pop_integral - i0) / 400.0;
	T_CHECK(fabs(mean_pop - 200.0) < 200.0 * 0.05, "Little's law: mean population %.1f ~ 100/s x 2 s = 200", mean_pop);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t draws[100000];

static void moments(struct churn_ctl *c, double *mean, double *sd, double *median, int64_t *min, int64_t *max)
{
	const int n = 100000;
	double s = 0, ss = 0;

	for (int i = 0; i < n; i++) {
		draws[i] = churn_ctl_lifetime_ms(c);
		s += (double)draws[i];
	}
	*mean = s / n;
	for (int i = 0; i < n; i++)
		ss += ((double)draws[i] - *mean) * ((double)draws[i] - *mean);
	*sd = sqrt(ss / (n - 1));
	qsort(draws, (size_t)n, sizeof draws[0], cmp_i64);
	*median = (double)draws[n / 2];
	*min = draws[0];
	*max = draws[n - 1];
}

static void test_lifetimes(void)
{
	struct churn_ctl c;
	struct churn_params p = { .workers = 1, .dist = CHURN_DIST_EXP, .rate_milli = 1000, .lifetime_ms = 30000 };
	double mean, sd, med;
	int64_t mn, mx;
	const double m = 30000, n = 100000;

	/* Tolerances are ~5 standard errors: a wrong formula misses by far more. */
	churn_ctl_init(&c, &p, seed, 0);
	moments(&c, &mean, &sd, &med, &mn, &mx);
	printf("exp: mean %.0f sd %.0f median %.0f min %lld max %lld (seed %llu)\n", mean, sd, med, (long long)mn,
	       (long long)mx, (unsigned long long)seed);
	T_CHECK(fabs(mean - m) < 5 * m / sqrt(n), "exp mean %.0f ~ 30000", mean);
	T_CHECK(fabs(sd - m) < 0.03 * m, "exp sd %.0f ~ mean", sd);
	T_CHECK(fabs(med - m * log(2)) < 0.02 * m, "exp median %.0f ~ 30000 ln 2 = 20794", med);
	T_CHECK(mn >= 0, "exp never negative");

	p.dist = CHURN_DIST_UNIFORM;
	churn_ctl_init(&c, &p, seed, 0);
	moments(&c, &mean, &sd, &med, &mn, &mx);
	printf("uniform: mean %.0f sd %.0f min %lld max %lld\n", mean, sd, (long long)mn, (long long)mx);
	T_CHECK(fabs(mean - m) < 5 * (m / sqrt(3)) / sqrt(n), "uniform mean %.0f ~ 30000", mean);
	T_CHECK(fabs(sd - m / sqrt(3)) < 0.02 * m, "uniform sd %.0f ~ 30000/sqrt(3) = 17321", sd);
	T_CHECK(mn >= 0 && mx <= 60000 && mn < 600 && mx > 59400, "uniform spans [0, 60000] (%lld..%lld)",
		(long long)mn, (long long)mx);

	p.dist = CHURN_DIST_FIXED;
	churn_ctl_init(&c, &p, seed, 0);
	moments(&c, &mean, &sd, &med, &mn, &mx);
	T_CHECK(mn == 30000 && mx == 30000, "fixed: every lifetime is 30000");

	p.lifetime_ms = 0;
	p.dist = CHURN_DIST_EXP;
	churn_ctl_init(&c, &p, seed, 0);
	T_EQ_I(churn_ctl_lifetime_ms(&c), 0, "lifetime 0: exit right after the touch");

	/* Replay: the same seed gives the same lifetimes; another seed does not. */
	struct churn_ctl a, b, d;
	p.lifetime_ms = 30000;
	churn_ctl_init(&a, &p, 42, 0);
	churn_ctl_init(&b, &p, 42, 0);
	churn_ctl_init(&d, &p, 43, 0);
	int same = 1, differ = 0;
	for (int i = 0; i < 100; i++) {
		int64_t x = churn_ctl_lifetime_ms(&a), y = churn_ctl_lifetime_ms(&b), z = churn_ctl_lifetime_ms(&d);
		same &= x == y;
		differ |= x != z;
	}
	T_CHECK(same, "seed 42 replays exactly");
	T_CHECK(differ, "seed 43 differs");
}

/* Accounting: a fake spawner with random fates, tallied independently. */
static void test_accounting(void)
{
	struct churn_counters k;
	struct churn_rng r;
	uint64_t want[8] = { 0 }, alive = 0;
	enum { W_SPAWNED, W_EAGAIN, W_ENOMEM, W_OTHER, W_EXITED, W_KILL, W_SEGV, W_ILL };
	uint64_t other = 0, retired = 0, errs = 0;

	memset(&k, 0, sizeof k);
	churn_rng_seed(&r, seed);
	for (int i = 0; i < 200000; i++) {
		uint64_t x = churn_rng_next(&r) % 100;
		if (x < 40) {
			churn_count_spawned(&k);
			want[W_SPAWNED]++;
			alive++;
		} else if (x < 43) {
			int e = x == 40 ? EAGAIN : x == 41 ? ENOMEM : EPERM;
			churn_count_spawn_failed(&k, e);
			want[e == EAGAIN ? W_EAGAIN : e == ENOMEM ? W_ENOMEM : W_OTHER]++;
		} else if (alive) {
			alive--;
			if (x < 80) {
				int code = x < 70 ? 0 : x < 75 ? WORKER_EXIT_RETIRED : WORKER_EXIT_MEMORY;
				churn_count_death(&k, CLD_EXITED, code);
				want[W_EXITED]++;
				retired += code == WORKER_EXIT_RETIRED;
				errs += code == WORKER_EXIT_MEMORY;
			} else if (x < 90) {
				churn_count_death(&k, CLD_KILLED, SIGKILL);
				want[W_KILL]++;
			} else if (x < 94) {
				churn_count_death(&k, CLD_DUMPED, SIGSEGV);
				want[W_SEGV]++;
			} else if (x < 97) {
				churn_count_death(&k, CLD_KILLED, SIGILL);
				want[W_ILL]++;
			} else {
				churn_count_death(&k, CLD_KILLED, x == 97 ? SIGTERM : SIGBUS);
				other++;
			}
		}
		if (churn_counters_check(&k) != 0) {
			T_CHECK(0, "invariant broken at step %d", i);
			return;
		}
	}
	T_CHECK(churn_counters_check(&k) == 0, "invariant held through 200000 random events (seed %llu)",
		(unsigned long long)seed);
	T_EQ_I(k.spawned, want[W_SPAWNED], "spawned");
	T_EQ_I(k.population, alive, "population");
	T_EQ_I(k.spawn_failed_eagain, want[W_EAGAIN], "EAGAIN");
	T_EQ_I(k.spawn_failed_enomem, want[W_ENOMEM], "ENOMEM");
	T_EQ_I(k.spawn_failed_other, want[W_OTHER], "other errno");
	T_EQ_I(k.exited, want[W_EXITED], "exited");
	T_EQ_I(k.exited_retired, retired, "retired (exit 10) is a subset of exited");
	T_EQ_I(k.exited_error, errs, "setup failures are a subset of exited");
	T_EQ_I(k.killed_sigkill, want[W_KILL], "SIGKILL");
	T_EQ_I(k.killed_sigsegv, want[W_SEGV], "SIGSEGV (core or not)");
	T_EQ_I(k.killed_sigill, want[W_ILL], "SIGILL");
	T_EQ_I(k.killed_other, other, "other signals");
	k.population++;
	T_EQ_I(churn_counters_check(&k), -1, "a miscount is caught");
}

/*
 * Every death counted once, by cause: a SIGKILL is ours (the spawner's retire/release/stop
 * timeouts), an OOM kill (matched against the memory cgroup's counter), or someone else's.
 * The counter moves before the victim can be reaped (the kernel counts the kill, then sends it),
 * so matching at reap time never runs ahead of it.
 */
static void test_kill_causes(void)
{
	struct churn_counters k;
	uint64_t attributed = 0;

	memset(&k, 0, sizeof k);
	for (int i = 0; i < 6; i++)
		churn_count_spawned(&k);
	churn_count_death_cause(&k, CLD_KILLED, SIGKILL, CHURN_KILL_OURS);
	T_EQ_I(k.killed_sigkill, 1, "our SIGKILL is a SIGKILL death");
	T_EQ_I(k.killed_ours, 1, "... and ours");
	T_EQ_I(k.oom_killed, 0, "... and no OOM kill");
	/* The group counted two OOM kills; three SIGKILL deaths we did not cause come in. */
	for (int i = 0; i < 3; i++) {
		int oom = churn_oom_attribute(2, &attributed);
		T_EQ_I(oom, i < 2, "unexplained SIGKILL death %d: %s", i + 1, i < 2 ? "an OOM kill" : "someone else's");
		churn_count_death_cause(&k, CLD_KILLED, SIGKILL, oom ? CHURN_KILL_OOM : CHURN_KILL_UNKNOWN);
	}
	T_EQ_I(attributed, 2, "two kills matched");
	T_EQ_I(k.oom_killed, 2, "oom_killed 2");
	T_EQ_I(k.killed_sigkill, 4, "killed_sigkill 4 = ours 1 + OOM 2 + someone else 1");
	T_EQ_I(churn_oom_attribute(1, &attributed), 0, "a counter below what was matched (reset) matches nothing");
	/* A cause on a death that is not a SIGKILL is ignored: OOM kills are SIGKILLs. */
	churn_count_death_cause(&k, CLD_KILLED, SIGSEGV, CHURN_KILL_OOM);
	churn_count_death_cause(&k, CLD_EXITED, 0, CHURN_KILL_OURS);
	T_EQ_I(k.oom_killed, 2, "a SIGSEGV is never counted as an OOM kill");
	T_EQ_I(k.killed_ours, 1, "an exit is never counted as our kill");
	T_EQ_I(k.population, 0, "six spawned, six dead");
	T_EQ_I(churn_counters_check(&k), 0, "identity: spawned = exited + each death + alive");
	k.oom_killed = k.killed_sigkill;
	T_EQ_I(churn_counters_check(&k), -1, "OOM + ours above the SIGKILL deaths is caught");
}

static void test_flags(void)
{
	static const struct {
		const char *s;
		int rc;
		uint64_t v;
	} rates[] = {
		{ "50", 0, 50000 }, { "0.5", 0, 500 }, { "12.345", 0, 12345 }, { "max", 0, CHURN_RATE_MAX },
		{ "1000000", 0, 1000000000 }, { "0", -1, 0 }, { "0.000", -1, 0 }, { "1.2345", -1, 0 },
		{ "1.", -1, 0 }, { ".5", -1, 0 }, { "-1", -1, 0 }, { "1000001", -1, 0 }, { "5x", -1, 0 },
		{ "", -1, 0 }, { "MAX", -1, 0 },
	};
	char buf[32];
	uint64_t v;
	enum churn_dist d;

	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		int rc = churn_rate_parse(rates[i].s, &v);
		T_EQ_I(rc, rates[i].rc, "rate \"%s\"", rates[i].s);
		if (rc == 0) {
			T_CHECK(v == rates[i].v, "rate \"%s\" = %llu", rates[i].s, (unsigned long long)v);
			T_EQ_S(churn_rate_format(v, buf, sizeof buf), rates[i].s, "rate \"%s\" formats back", rates[i].s);
		}
	}
	T_EQ_S(churn_rate_format(1500, buf, sizeof buf), "1.5", "1500 milli = 1.5");
	T_CHECK(churn_dist_parse("exp", &d) == 0 && d == CHURN_DIST_EXP, "dist exp");
	T_CHECK(churn_dist_parse("fixed", &d) == 0 && d == CHURN_DIST_FIXED, "dist fixed");
	T_CHECK(churn_dist_parse("uniform", &d) == 0 && d == CHURN_DIST_UNIFORM, "dist uniform");
	T_EQ_I(churn_dist_parse("normal", &d), -1, "dist normal refused");
	T_EQ_S(churn_dist_name(CHURN_DIST_UNIFORM), "uniform", "dist name");
}

/* Capacity-probe rules. */
static void test_probe_rules(void)
{
	struct probe_cap p;

	/* Clean fill to the limit. */
	probe_cap_begin(&p, 3, 0);
	T_EQ_I(p.phase, PROBE_RETIRING, "probe starts by retiring churn");
	T_EQ_I(probe_cap_retired(&p, 10, 5), PROBE_ACT_SPAWN, "retired: spawn the first");
	for (int i = 0; i < 3; i++) {
		T_EQ_I(probe_cap_spawned(&p, 20 + i, 0, SEC), PROBE_ACT_NONE, "spawned %d: wait for ready", i);
		int act = probe_cap_ready(&p, 30 + i, 5);
		T_EQ_I(act, i < 2 ? PROBE_ACT_SPAWN : PROBE_ACT_RELEASE, "ready %d", i);
	}
	T_EQ_I(p.count, 3, "count 3");
	T_EQ_S(p.stop_reason, "limit", "stopped by the limit");

	/* A spawn failure after 2 clean steps. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	probe_cap_ready(&p, 2, 0);
	probe_cap_spawned(&p, 3, 0, SEC);
	probe_cap_ready(&p, 4, 0);
	T_EQ_I(probe_cap_spawned(&p, 5, EAGAIN, SEC), PROBE_ACT_RELEASE, "spawn failure releases");
	T_EQ_S(p.stop_reason, "spawn_failed:EAGAIN", "reason names the errno");
	T_EQ_I(p.count, 2, "count = clean steps before the failure");

	/* An older worker dies (OOM) while the newest touches memory: that step is not counted. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 7);
	for (int i = 0; i < 5; i++) {
		probe_cap_spawned(&p, 1, 0, SEC);
		probe_cap_ready(&p, 2, 7);
	}
	probe_cap_spawned(&p, 3, 0, SEC);
	T_EQ_I(probe_cap_death(&p, 4, CLD_KILLED, SIGKILL), PROBE_ACT_RELEASE, "any probe worker's death stops it");
	T_EQ_S(p.stop_reason, "worker_died:SIGKILL", "reason names the signal");
	T_EQ_I(p.count, 5, "count stays at the last clean step");
	T_EQ_I(probe_cap_death(&p, 5, CLD_EXITED, WORKER_EXIT_RETIRED), PROBE_ACT_NONE,
	       "deaths while releasing are ours, not a new reason");
	T_EQ_S(p.stop_reason, "worker_died:SIGKILL", "first reason kept");

	/* The newest reports ready but the OOM counter moved: settle, then the death names it. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 7);
	probe_cap_spawned(&p, 1, 0, SEC);
	probe_cap_ready(&p, 2, 7);
	probe_cap_spawned(&p, 3, 0, SEC);
	T_EQ_I(probe_cap_ready(&p, 4, 8), PROBE_ACT_NONE, "OOM counter rose: settle instead of spawning");
	T_EQ_I(p.phase, PROBE_SETTLING, "settling");
	T_EQ_I(p.count, 1, "the unclean step is not counted");
	T_EQ_I(probe_cap_death(&p, 5, CLD_KILLED, SIGKILL), PROBE_ACT_RELEASE, "the victim's death ends settling");
	T_EQ_S(p.stop_reason, "worker_died:SIGKILL", "and names the signal");
	T_EQ_I(p.t_stop, 4, "stop time is when the OOM was seen");

	/* ... or nobody dies within the settle time: "oom_kill". */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	probe_cap_ready(&p, 2, 1);
	T_EQ_I(probe_cap_tick(&p, 2 + PROBE_SETTLE_NS - 1), PROBE_ACT_NONE, "still settling");
	T_EQ_I(probe_cap_tick(&p, 2 + PROBE_SETTLE_NS), PROBE_ACT_RELEASE, "settle time over");
	T_EQ_S(p.stop_reason, "oom_kill", "reason oom_kill");

	/* A worker that never reports ready. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	T_EQ_I(probe_cap_tick(&p, SEC), PROBE_ACT_NONE, "before the step timeout");
	T_EQ_I(probe_cap_tick(&p, SEC + 1), PROBE_ACT_RELEASE, "step timeout");
	T_EQ_S(p.stop_reason, "timeout", "reason timeout");

	T_EQ_S(probe_cap_timeout_name(&p), "step", "the step's bound, not the fill's");

	/* The fill's own bound (--probe-timeout): counted from the first spawn. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_bound(&p, 10 * SEC);
	probe_cap_retired(&p, 5 * SEC, 0);
	probe_cap_spawned(&p, 6 * SEC, 0, 60 * SEC);
	T_EQ_I(p.deadline, 15 * SEC, "a step's wait is clipped to the fill's end");
	T_EQ_I(probe_cap_ready(&p, 7 * SEC, 0), PROBE_ACT_SPAWN, "a clean step inside the bound goes on");
	probe_cap_spawned(&p, 8 * SEC, 0, 60 * SEC);
	T_EQ_I(probe_cap_tick(&p, 15 * SEC - 1), PROBE_ACT_NONE, "before the fill's end");
	T_EQ_I(probe_cap_tick(&p, 15 * SEC), PROBE_ACT_RELEASE, "the fill's end stops a step in progress");
	T_EQ_S(p.stop_reason, "timeout", "a lower bound: timeout");
	T_EQ_S(probe_cap_timeout_name(&p), "fill", "and it says which bound");
	T_EQ_I(p.count, 1, "count = the clean steps inside the bound");

	/* A clean step that ends after the bound: no next spawn. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_bound(&p, 10 * SEC);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	T_EQ_I(probe_cap_ready(&p, 10 * SEC, 0), PROBE_ACT_RELEASE, "ready at the bound: stop, do not spawn");
	T_EQ_S(p.stop_reason, "timeout", "reason timeout");
	T_EQ_I(p.count, 1, "that step counted");

	/* No bound: a long fill goes on. */
	probe_cap_begin(&p, 100, 0);
	probe_cap_bound(&p, 0);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	T_EQ_I(probe_cap_ready(&p, 3600 * SEC, 0), PROBE_ACT_SPAWN, "bound 0: none");
	T_EQ_S(probe_cap_timeout_name(&p), "", "not timed out");

	/* A worker that exits on its own (mmap failed). */
	probe_cap_begin(&p, 100, 0);
	probe_cap_retired(&p, 0, 0);
	probe_cap_spawned(&p, 1, 0, SEC);
	probe_cap_death(&p, 2, CLD_EXITED, WORKER_EXIT_MEMORY);
	T_EQ_S(p.stop_reason, "worker_exited:15", "reason names the exit code");

	/* Stopping the daemon mid-probe. */
	probe_cap_begin(&p, 100, 0);
	T_EQ_I(probe_cap_abort(&p, 3, "stopped"), PROBE_ACT_RELEASE, "abort while retiring releases");
	T_EQ_S(p.stop_reason, "stopped", "reason stopped");
	probe_cap_released(&p, 4);
	T_EQ_I(p.phase, PROBE_IDLE, "idle after release");

	/* Limit 0: nothing to do. */
	probe_cap_begin(&p, 0, 0);
	T_EQ_I(probe_cap_retired(&p, 0, 0), PROBE_ACT_RELEASE, "limit 0 releases at once");
	T_EQ_I(p.count, 0, "count 0");
}

/* The switch probe's verdict on what its child measured: a number only from enough of it. */
static void test_switch_report(void)
{
	static const struct { struct probe_switch_result r; const char *reason; } t[] = {
		{ { .threads = 16, .yields = 200000, .base_yields = 250000, .sys_us = 300000, .user_us = 20000,
		    .base_sys_us = 280000, .base_user_us = 15000 }, "done" },
		{ { .threads = 16, .yields = 129, .base_yields = 80, .sys_us = 0, .user_us = 0 }, "failed:starved" },
		{ { .threads = 16, .yields = 5000, .base_yields = 5000, .sys_us = 0, .user_us = 4000,
		    .base_sys_us = 20000, .base_user_us = 0 }, "failed:starved" },           /* 4 ms: one tick */
		{ { .threads = 16, .yields = 5000, .base_yields = 999, .sys_us = 20000, .base_sys_us = 20000 },
		  "failed:starved" },
		{ { .threads = 16, .yields = 0, .base_yields = 5000 }, "failed:no_yields" },
		{ { .threads = 3, .err = EAGAIN, .yields = 5000, .base_yields = 5000 }, "failed:EAGAIN" },
	};
	struct churn_probe_done d;

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		memset(&d, 0, sizeof d);
		probe_switch_report(&t[i].r, &d);
		T_EQ_S(d.stop_reason, t[i].reason, "switch report case %zu", i);
	}
	memset(&d, 0, sizeof d);
	probe_switch_report(&t[0].r, &d);
	T_CHECK(d.result > 1.49 && d.result < 1.51, "result = system us per yield (%.3f)", d.result);
}

int main(void)
{
	const char *env = getenv("FPUSOAK_SEED");

	seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL);
	printf("seed %llu (replay with FPUSOAK_SEED=%llu)\n", (unsigned long long)seed, (unsigned long long)seed);
	test_rate();
	test_switch_report();
	test_population();
	test_lifetimes();
	test_accounting();
	test_kill_causes();
	test_flags();
	test_probe_rules();
	T_DONE();
}
