/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sqlprof: which SQL statements the time goes to, without touching the code
 * under test.  Linked into a bench binary with -Wl,--wrap=sqlite3_step, it
 * times every sqlite3_step() call (this thread's CPU time) and charges it
 * to the statement's SQL text; at exit it prints the statements that cost
 * the most to stderr (or to $SQLPROF_OUT), as
 *   sqlprof cpu_ms=… calls=… us_per_call=… sql=<first 160 chars>
 * The overhead is two clock reads and a short lock per step.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SQLPROF_SLOTS 512

int __real_sqlite3_step(sqlite3_stmt *s);
int __wrap_sqlite3_step(sqlite3_stmt *s);

struct slot {
	char sql[161];
	double us;
	unsigned long calls;
};

static struct slot slots[SQLPROF_SLOTS];
static int nslots;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int __wrap_sqlite3_step(sqlite3_stmt *s)
{
	double t0 = thread_cpu_us();
	int rc = __real_sqlite3_step(s);
	double d = thread_cpu_us() - t0;
	const char *sql = sqlite3_sql(s);
	char key[161];
	int i;

	snprintf(key, sizeof key, "%s", sql ? sql : "?");
	pthread_mutex_lock(&mu);
	for (i = 0; i < nslots; i++)
		if (strcmp(slots[i].sql, key) == 0)
			break;
	if (i == nslots && nslots < SQLPROF_SLOTS)
		snprintf(slots[nslots++].sql, sizeof slots[0].sql, "%s", key);
	if (i < SQLPROF_SLOTS) {
		slots[i].us += d;
		slots[i].calls++;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}

static int by_cost(const void *a, const void *b)
{
	double x = ((const struct slot *)a)->us, y = ((const struct slot *)b)->us;

	return x < y ? 1 : x > y ? -1 : 0;
}

__attribute__((destructor)) static void sqlprof_report(void)
{
	const char *path = getenv("SQLPROF_OUT");
	FILE *f = path ? fopen(path, "w") : NULL;
	double total = 0;

	if (!f)
		f = stderr;
	pthread_mutex_lock(&mu);
	qsort(slots, (size_t)nslots, sizeof slots[0], by_cost);
	for (int i = 0; i < nslots; i++)
		total += slots[i].us;
	fprintf(f, "sqlprof total_cpu_ms=%.1f statements=%d\n", total / 1e3, nslots);
	for (int i = 0; i < nslots && i < 15; i++) {
		char one[161];
		snprintf(one, sizeof one, "%s", slots[i].sql);
		for (char *p = one; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		fprintf(f, "sqlprof cpu_ms=%.1f pct=%.0f calls=%lu us_per_call=%.1f sql=%s\n", slots[i].us / 1e3,
			total > 0 ? 100 * slots[i].us / total : 0, slots[i].calls,
			slots[i].us / (double)slots[i].calls, one);
	}
	pthread_mutex_unlock(&mu);
	if (f != stderr)
		fclose(f);
}
