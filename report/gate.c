/* SPDX-License-Identifier: GPL-2.0-only */
/* report/gate: which lines of a comparison may get a verdict; see gate.h. */
#include "report/gate.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Columns of the table in gate.h, in enum report_line_kind order. */
enum rule { NONE = '-', CAVEAT = 'c', HARD = 'H' };

/* The table of gate.h, one string per condition, one char per line kind. */
#define R_UNCONFINED_CG "H-HHHHHHHH"
#define R_UNCONFINED_GUEST "--HHHHHHHH"
#define R_CGROUP_VER "H-cccccccc"
#define R_MEMORY_MAX "H-cccccccH"
#define R_PIDS_MAX "H-ccHHcccc"
#define R_WORKER_MEMORY "H-HHccHHHH"
#define R_WORKLOAD "ccHHHHHHHH"
#define R_PROBE_SCOPE "H-cccccccc"
#define R_PROBE_LIMIT "c---------"
#define R_FPU_KIND "HHcccccccc"
#define R_SWITCH_THREADS "-H--------"
#define R_SAMPLE_INTERVAL "--c---H---"
#define R_MACHINE "HHHHHHHHHH"
#define R_MEMTOTAL "HcHHHHHHHH"
#define R_XSTATE "HHcccccccc"
#define R_TRACE_BIG "HcHHHHH--H"      /* tracefs on in one run, its instance over 1% of MemTotal */
#define R_TRACE_SMALL "c-ccccc--c"    /* ... within 1%, or its size unknown */
#define R_TRACE_OFF "-------HH-"      /* the trace lines, when a run had no trace */

_Static_assert(sizeof R_MACHINE == REPORT_LINE_NKINDS + 1, "one rule per line kind");

void report_cond_init(struct report_cond *c)
{
	memset(c, 0, sizeof *c);
	c->memory_max = c->pids_max = c->pop_cap = -1;
	c->memory_set = c->pids_set = -1;
	c->workers = c->lifetime_ms = c->worker_memory = c->probe_limit = c->switch_threads = -1;
	c->sample_interval_ms = c->mem_total_kb = c->xstate_bytes = c->trace_kb = -1;
}

static void vadd(char *out, const char *fmt, va_list ap)
{
	vsnprintf(out, REPORT_GATE_TEXT, fmt, ap);
	/* Kernel strings and labels come from the DB: keep what is printed printable ASCII. */
	for (char *s = out; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

void report_gate_caveat(struct report_gate *g, const char *fmt, ...)
{
	va_list ap;

	if (g->ncaveats == REPORT_GATE_MAX) {
		g->dropped++;
		return;
	}
	va_start(ap, fmt);
	vadd(g->caveat[g->ncaveats++], fmt, ap);
	va_end(ap);
}

void report_gate_refuse(struct report_gate *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!g->comparable) {
		/* The line's word names the first reason; every further one is still said. */
		if (g->ncaveats < REPORT_GATE_MAX)
			vadd(g->caveat[g->ncaveats++], fmt, ap);
		else
			g->dropped++;
	} else {
		g->comparable = 0;
		vadd(g->why, fmt, ap);
	}
	va_end(ap);
}

static void gate_init(struct report_gate *g)
{
	memset(g, 0, sizeof *g);
	g->comparable = 1;
}

/* Apply one condition's rule for this line: refuse, add a caveat, or nothing.  text is the difference. */
static void apply(struct report_gate *g, const char *rule, enum report_line_kind k, const char *text)
{
	if (rule[k] == HARD)
		report_gate_refuse(g, "%s", text);
	else if (rule[k] == CAVEAT)
		report_gate_caveat(g, "%s", text);
}

/* "48 MiB" / "512 KiB" / "1234 bytes" / "no limit" for a byte count. */
static const char *bytes(int64_t v, char *buf, size_t len)
{
	if (v == 0)
		snprintf(buf, len, "no limit");
	else if (v % (1 << 20) == 0)
		snprintf(buf, len, "%" PRId64 " MiB", v >> 20);
	else if (v % 1024 == 0)
		snprintf(buf, len, "%" PRId64 " KiB", v >> 10);
	else
		snprintf(buf, len, "%" PRId64 " bytes", v);
	return buf;
}

static int known_i(int64_t v)
{
	return v >= 0;
}

static int same_s(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* The limit a side asked for: what the user set, else (not recorded) what was read back. */
static int64_t limit_set(int64_t set, int64_t max)
{
	return set >= 0 ? set : max;
}

/* Confinement: unconfined sides, then version and limits when both are confined. */
static void gate_confinement(enum report_line_kind k, const struct report_cond *a, const struct report_cond *b,
			     struct report_gate *g)
{
	const struct report_cond *side[2] = { a, b };
	char t[REPORT_GATE_TEXT], x[32], y[32];
	int both_cgroup_scope = same_s(a->probe_scope, "cgroup") && same_s(b->probe_scope, "cgroup");
	int64_t ma, mb, pa, pb;

	for (int i = 0; i < 2; i++) {
		const struct report_cond *c = side[i];
		/* Not recorded (an older run): said once, for the pair (report_gate_pair). */
		if (!c->cgroup[0] || !same_s(c->cgroup, "none"))
			continue;
		if (known_i(c->pop_cap))
			snprintf(t, sizeof t, "run %c ran unconfined, capped at %" PRId64 " workers (%s)", "AB"[i], c->pop_cap,
				 c->unconfined_why[0] ? c->unconfined_why : "no cgroup");
		else
			snprintf(t, sizeof t, "run %c ran unconfined (%s)", "AB"[i],
				 c->unconfined_why[0] ? c->unconfined_why : "no cgroup");
		apply(g, same_s(c->probe_scope, "guest") ? R_UNCONFINED_GUEST : R_UNCONFINED_CG, k, t);
	}
	if (!a->cgroup[0] || !b->cgroup[0] || same_s(a->cgroup, "none") || same_s(b->cgroup, "none"))
		return;
	if (!same_s(a->cgroup, b->cgroup)) {
		snprintf(t, sizeof t, "cgroup %s (A) vs %s (B): a fork's kernel objects count toward the limit on v1 only",
			 a->cgroup, b->cgroup);
		apply(g, R_CGROUP_VER, k, t);
	}
	/*
	 * The limits as the user set them: the kernel's read-back carries the daemon's own additions (one
	 * pid for the spawner on v1, one for the fragmenting load), which are not a difference between the
	 * runs.  Where the kernel disagreed with a setting, the pair says so (report_gate_pair).
	 */
	ma = limit_set(a->memory_set, a->memory_max);
	mb = limit_set(b->memory_set, b->memory_max);
	if (known_i(ma) && known_i(mb) && ma != mb) {
		snprintf(t, sizeof t, "memory limit %s (A) vs %s (B)", bytes(ma, x, sizeof x), bytes(mb, y, sizeof y));
		apply(g, both_cgroup_scope || k != REPORT_LINE_CAPACITY ? R_MEMORY_MAX : "----------", k, t);
	}
	pa = limit_set(a->pids_set, a->pids_max);
	pb = limit_set(b->pids_set, b->pids_max);
	if (known_i(pa) && known_i(pb) && pa != pb) {
		snprintf(t, sizeof t, "pids limit %" PRId64 " (A) vs %" PRId64 " (B)", pa, pb);
		apply(g, both_cgroup_scope || k != REPORT_LINE_CAPACITY ? R_PIDS_MAX : "----------", k, t);
	}
}

/* The workload: workers, lifetime, spawn rate, lifetime distribution, and whether there was churn. */
static void gate_workload(enum report_line_kind k, const struct report_cond *a, const struct report_cond *b,
			  struct report_gate *g)
{
	char t[REPORT_GATE_TEXT] = "", x[32], y[32];
	size_t n = 0;

	if (a->has_churn != b->has_churn)
		n += (size_t)snprintf(t + n, sizeof t - n, "%schurn in %s only", n ? ", " : "", a->has_churn ? "A" : "B");
	if (known_i(a->workers) && known_i(b->workers) && a->workers != b->workers && n < sizeof t)
		n += (size_t)snprintf(t + n, sizeof t - n, "%sworkers %" PRId64 " vs %" PRId64, n ? ", " : "", a->workers,
				      b->workers);
	if (known_i(a->lifetime_ms) && known_i(b->lifetime_ms) && a->lifetime_ms != b->lifetime_ms && n < sizeof t)
		n += (size_t)snprintf(t + n, sizeof t - n, "%slifetime %" PRId64 " ms vs %" PRId64 " ms", n ? ", " : "",
				      a->lifetime_ms, b->lifetime_ms);
	if (a->spawn_rate[0] && b->spawn_rate[0] && !same_s(a->spawn_rate, b->spawn_rate) && n < sizeof t)
		n += (size_t)snprintf(t + n, sizeof t - n, "%sspawn rate %s vs %s", n ? ", " : "", a->spawn_rate,
				      b->spawn_rate);
	if (a->lifetime_dist[0] && b->lifetime_dist[0] && !same_s(a->lifetime_dist, b->lifetime_dist) && n < sizeof t)
		n += (size_t)snprintf(t + n, sizeof t - n, "%slifetime distribution %s vs %s", n ? ", " : "",
				      a->lifetime_dist, b->lifetime_dist);
	if (n) {
		char full[REPORT_GATE_TEXT];
		snprintf(full, sizeof full, "workload differs: %s", t);
		apply(g, R_WORKLOAD, k, full);
	}
	if (known_i(a->worker_memory) && known_i(b->worker_memory) && a->worker_memory != b->worker_memory) {
		snprintf(t, sizeof t, "worker memory %s (A) vs %s (B)", bytes(a->worker_memory, x, sizeof x),
			 bytes(b->worker_memory, y, sizeof y));
		apply(g, R_WORKER_MEMORY, k, t);
	}
}

/* The probes: scope, limit, FPU kind, FPU-cost threads, and the sample interval. */
static void gate_probes(enum report_line_kind k, const struct report_cond *a, const struct report_cond *b,
			struct report_gate *g)
{
	char t[REPORT_GATE_TEXT];

	if (a->probe_scope[0] && b->probe_scope[0] && !same_s(a->probe_scope, b->probe_scope)) {
		snprintf(t, sizeof t, "probe scope %s (A) vs %s (B)", a->probe_scope, b->probe_scope);
		apply(g, R_PROBE_SCOPE, k, t);
	}
	if (known_i(a->probe_limit) && known_i(b->probe_limit) && a->probe_limit != b->probe_limit) {
		snprintf(t, sizeof t, "probe limit %" PRId64 " (A) vs %" PRId64 " (B)", a->probe_limit, b->probe_limit);
		apply(g, R_PROBE_LIMIT, k, t);
	}
	if (a->fpu_kind[0] && b->fpu_kind[0] && !same_s(a->fpu_kind, b->fpu_kind)) {
		snprintf(t, sizeof t, "FPU kind %s (A) vs %s (B)", a->fpu_kind, b->fpu_kind);
		apply(g, R_FPU_KIND, k, t);
	}
	if (known_i(a->switch_threads) && known_i(b->switch_threads) && a->switch_threads != b->switch_threads) {
		snprintf(t, sizeof t, "FPU-cost probe threads %" PRId64 " (A) vs %" PRId64 " (B)", a->switch_threads,
			 b->switch_threads);
		apply(g, R_SWITCH_THREADS, k, t);
	}
	if (known_i(a->sample_interval_ms) && known_i(b->sample_interval_ms) &&
	    a->sample_interval_ms != b->sample_interval_ms) {
		snprintf(t, sizeof t, "sample interval %" PRId64 " ms (A) vs %" PRId64 " ms (B)", a->sample_interval_ms,
			 b->sample_interval_ms);
		apply(g, R_SAMPLE_INTERVAL, k, t);
	}
}

/* The machine: hypervisor and guest type, MemTotal (beyond 1%), XSAVE size. */
static void gate_machine(enum report_line_kind k, const struct report_cond *a, const struct report_cond *b,
			 struct report_gate *g)
{
	char t[REPORT_GATE_TEXT];

	if (!same_s(a->hypervisor, b->hypervisor) || !same_s(a->guest_type, b->guest_type)) {
		snprintf(t, sizeof t, "hypervisor %s%s%s (A) vs %s%s%s (B)", a->hypervisor[0] ? a->hypervisor : "none",
			 a->guest_type[0] ? "/" : "", a->guest_type, b->hypervisor[0] ? b->hypervisor : "none",
			 b->guest_type[0] ? "/" : "", b->guest_type);
		apply(g, R_MACHINE, k, t);
	}
	if (known_i(a->mem_total_kb) && known_i(b->mem_total_kb) && a->mem_total_kb != b->mem_total_kb) {
		double big = (double)(a->mem_total_kb > b->mem_total_kb ? a->mem_total_kb : b->mem_total_kb);
		double diff = fabs((double)a->mem_total_kb - (double)b->mem_total_kb);
		if (diff > REPORT_MEMTOTAL_TOLERANCE * big) {
			snprintf(t, sizeof t, "MemTotal %" PRId64 " kB (A) vs %" PRId64 " kB (B), %.1f%% apart", a->mem_total_kb,
				 b->mem_total_kb, 100.0 * diff / big);
			apply(g, R_MEMTOTAL, k, t);
		}
	}
	if (known_i(a->xstate_bytes) && known_i(b->xstate_bytes) && a->xstate_bytes != b->xstate_bytes) {
		snprintf(t, sizeof t, "XSAVE size %" PRId64 " (A) vs %" PRId64 " (B) bytes", a->xstate_bytes, b->xstate_bytes);
		apply(g, R_XSTATE, k, t);
	}
}

/* The trace: a run without it has no trace lines to compare; an instance in one run only took kernel memory
 * the other run had (so it weighs like MemTotal's 1% when it is over 1%). */
static void gate_trace(enum report_line_kind k, const struct report_cond *a, const struct report_cond *b,
		       struct report_gate *g)
{
	const struct report_cond *side[2] = { a, b }, *on;
	char t[REPORT_GATE_TEXT];

	for (int i = 0; i < 2; i++) {
		const struct report_cond *c = side[i];
		if (same_s(c->tracefs, "on"))
			continue;
		if (c->tracefs[0])
			snprintf(t, sizeof t, "run %c had no trace (%s)", "AB"[i], c->trace_why[0] ? c->trace_why : "tracefs off");
		else
			snprintf(t, sizeof t, "run %c had no trace (recorded before fpusoakd read tracefs)", "AB"[i]);
		apply(g, R_TRACE_OFF, k, t);
	}
	/* Not recorded is off here: an fpusoakd before schema 8 never made an instance. */
	if (same_s(a->tracefs, "on") == same_s(b->tracefs, "on"))
		return;
	on = same_s(a->tracefs, "on") ? a : b;
	if (known_i(on->trace_kb) && known_i(on->mem_total_kb) && on->mem_total_kb > 0) {
		double pct = 100.0 * (double)on->trace_kb / (double)on->mem_total_kb;
		snprintf(t, sizeof t, "tracefs on in %c only: its instance took %" PRId64 " kB of slab, %.1f%% of MemTotal",
			 on == a ? 'A' : 'B', on->trace_kb, pct);
		apply(g, pct > 100.0 * REPORT_MEMTOTAL_TOLERANCE ? R_TRACE_BIG : R_TRACE_SMALL, k, t);
	} else {
		snprintf(t, sizeof t, "tracefs on in %c only: its instance held kernel memory (how much was not recorded)",
			 on == a ? 'A' : 'B');
		apply(g, R_TRACE_SMALL, k, t);
	}
}

void report_gate_line(enum report_line_kind kind, const struct report_cond *a, const struct report_cond *b,
		      struct report_gate *out)
{
	gate_init(out);
	if (kind < 0 || kind >= REPORT_LINE_NKINDS) {
		report_gate_refuse(out, "unknown comparison");
		return;
	}
	/* The machine first: its reason is the most basic one when several apply. */
	gate_machine(kind, a, b, out);
	gate_confinement(kind, a, b, out);
	gate_workload(kind, a, b, out);
	gate_probes(kind, a, b, out);
	gate_trace(kind, a, b, out);
}

/*
 * Where the kernel's limits differ from what the user set (and the daemon added): a pids.max the kernel
 * did not take, a memory limit rounded, a controller that was not there.  Said, never a reason: the
 * lines compare what was set, and this says what was in force instead.
 */
static void kernel_disagreed(const struct report_cond *c, char side, struct report_gate *g)
{
	char x[32], y[32];
	int64_t want;

	if (!c->conf_exact || (!same_s(c->cgroup, "v1") && !same_s(c->cgroup, "v2")))
		return;
	/* The spawner takes one pid on v1 (it forks from inside the pids group), the load one. */
	want = c->pids_set > 0 ? c->pids_set + same_s(c->cgroup, "v1") + (c->fragment[0] && !same_s(c->fragment, "off"))
			       : c->pids_set;
	if (want >= 0 && known_i(c->pids_max) && c->pids_max != want)
		report_gate_caveat(g, "run %c's pids limit in force was %s, not the %" PRId64 " set%s", side,
				   c->pids_max ? (snprintf(x, sizeof x, "%" PRId64, c->pids_max), x) : "none", c->pids_set,
				   want != c->pids_set ? " (and the daemon's own)" : "");
	if (known_i(c->memory_set) && known_i(c->memory_max) && c->memory_max != c->memory_set)
		report_gate_caveat(g, "run %c's memory limit in force was %s, not the %s set", side,
				   bytes(c->memory_max, x, sizeof x), bytes(c->memory_set, y, sizeof y));
}

void report_gate_pair(const struct report_cond *a, const struct report_cond *b, struct report_gate *out)
{
	char x[100], y[100];

	gate_init(out);
	/* Hard for every line (MemTotal is a caveat for the FPU cost alone): the machines differ. */
	gate_machine(REPORT_LINE_CAPACITY, a, b, out);
	if (!same_s(a->fpu_kind, b->fpu_kind) && a->fpu_kind[0] && b->fpu_kind[0])
		report_gate_caveat(out, "FPU kind %s (A) vs %s (B)", a->fpu_kind, b->fpu_kind);
	/* What an older fpusoakd did not record: said once, here, rather than guessed. */
	for (int i = 0; i < 2; i++) {
		const struct report_cond *c = i ? b : a;
		if (!c->cgroup[0])
			report_gate_caveat(out, "run %c's confinement was not recorded (an older fpusoakd, or no churn)",
					   "AB"[i]);
		else if (!same_s(c->cgroup, "none") && !c->conf_exact)
			report_gate_caveat(out, "run %c's limits are as configured, not read back (an older fpusoakd)",
					   "AB"[i]);
	}
	for (int i = 0; i < 2; i++)
		kernel_disagreed(i ? b : a, "AB"[i], out);
	/* The experiment: shown, never a reason. */
	if (!same_s(a->kernel_release, b->kernel_release))
		report_gate_caveat(out, "kernel %s (A) vs %s (B), as meant", a->kernel_release[0] ? a->kernel_release : "?",
				   b->kernel_release[0] ? b->kernel_release : "?");
	if (!same_s(a->cmdline, b->cmdline)) {
		snprintf(x, sizeof x, "%s", a->cmdline);
		snprintf(y, sizeof y, "%s", b->cmdline);
		report_gate_caveat(out, "kernel command lines differ, as meant: \"%s\" vs \"%s\"", x, y);
	}
	if (!same_s(a->label, b->label))
		report_gate_caveat(out, "label \"%s\" (A) vs \"%s\" (B)", a->label, b->label);
}

void report_gate_short_paths(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (*r == '/' && (r == s || r[-1] == ' ' || r[-1] == '(' || r[-1] == '"')) {
			const char *end = r, *last = r;
			while (*end && *end != ' ' && *end != ')' && *end != '"' && *end != ',' && *end != ';')
				if (*end++ == '/' && *end && *end != ' ')
					last = end;
			if (end[-1] == '/')   /* "/" alone, or a path ending in '/': kept as it is */
				last = r;
			memmove(w, last, (size_t)(end - last));
			w += end - last;
			r = end;
		} else
			*w++ = *r++;
	}
	*w = 0;
}

int report_probe_censored(const char *stop_reason)
{
	return stop_reason && (same_s(stop_reason, "limit") || same_s(stop_reason, "timeout") ||
			       same_s(stop_reason, "stopped"));
}

void report_gate_censored(char side, size_t kept, size_t censored, const char *reason, struct report_gate *g)
{
	if (!censored)
		return;
	if (!kept) {
		report_gate_refuse(g, "all %zu capacity probe%s of run %c stopped by %s: a lower bound, not a capacity",
				   censored, censored == 1 ? "" : "s", side, reason ? reason : "limit");
		return;
	}
	report_gate_caveat(g, "%zu of run %c's capacity probes stopped by %s (censored, left out)", censored, side,
			   reason ? reason : "limit");
}

/* ---------------------------------------------------------------- what differs */

static void factor(struct report_factors *o, const char *rule, const char *name, const char *a, const char *b)
{
	struct report_factor *f;

	if (o->n == REPORT_MAX_FACTORS) {
		o->dropped++;
		return;
	}
	f = &o->f[o->n++];
	snprintf(f->name, sizeof f->name, "%s", name);
	snprintf(f->a, sizeof f->a, "%s", a[0] ? a : "?");
	snprintf(f->b, sizeof f->b, "%s", b[0] ? b : "?");
	/* Kernel and label strings come from the DB: keep what is printed printable ASCII. */
	for (char *s = f->a; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
	for (char *s = f->b; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
	f->rule = rule;
}

static void factor_s(struct report_factors *o, const char *rule, const char *name, const char *a, const char *b)
{
	if (a[0] && b[0] && !same_s(a, b))
		factor(o, rule, name, a, b);
}

static void factor_i(struct report_factors *o, const char *rule, const char *name, int64_t a, int64_t b,
		     const char *unit)
{
	char x[48], y[48];

	if (!known_i(a) || !known_i(b) || a == b)
		return;
	snprintf(x, sizeof x, "%" PRId64 "%s", a, unit);
	snprintf(y, sizeof y, "%" PRId64 "%s", b, unit);
	factor(o, rule, name, x, y);
}

static void factor_bytes(struct report_factors *o, const char *rule, const char *name, int64_t a, int64_t b)
{
	char x[32], y[32];

	if (known_i(a) && known_i(b) && a != b)
		factor(o, rule, name, bytes(a, x, sizeof x), bytes(b, y, sizeof y));
}

/* A knob's value in c, or "" when c has none of that name. */
static const char *vm_value(const struct report_cond *c, const char *name)
{
	for (int i = 0; i < c->nvm; i++)
		if (same_s(c->vm[i].name, name))
			return c->vm[i].value;
	return "";
}

/* Every rule is 'H' or 'c' somewhere: a factor of the experiment can matter to every line. */
#define R_ALL "HHHHHHHHHH"
_Static_assert(sizeof R_ALL == REPORT_LINE_NKINDS + 1, "one rule per line kind");

void report_gate_factors(const struct report_cond *a, const struct report_cond *b, struct report_factors *out)
{
	char x[96], y[96];

	memset(out, 0, sizeof *out);
	/* The experiment first: what a user varies on purpose. */
	factor_s(out, R_ALL, "fragmenting load", a->fragment, b->fragment);
	factor_s(out, R_ALL, "--gfp-mode", a->gfp_mode, b->gfp_mode);
	factor_s(out, R_ALL, "kernel", a->kernel_release, b->kernel_release);
	if (!same_s(a->cmdline, b->cmdline) && a->cmdline[0] && b->cmdline[0]) {
		snprintf(x, sizeof x, "\"%.90s\"", a->cmdline);
		snprintf(y, sizeof y, "\"%.90s\"", b->cmdline);
		factor(out, R_ALL, "kernel command line", x, y);
	}
	if (a->vm_known && b->vm_known) {
		/* Each knob either run has; one a kernel lacks shows as "absent". */
		for (int s = 0; s < 2; s++) {
			const struct report_cond *c = s ? b : a, *o = s ? a : b;
			for (int i = 0; i < c->nvm; i++) {
				const char *va = vm_value(a, c->vm[i].name), *vb = vm_value(b, c->vm[i].name);
				if (s && vm_value(o, c->vm[i].name)[0])
					continue;   /* in both: seen on the first pass */
				if (!same_s(va, vb))
					factor(out, R_ALL, c->vm[i].name, va[0] ? va : "absent", vb[0] ? vb : "absent");
			}
		}
	} else
		out->vm_unknown = 1;
	if (same_s(a->tracefs, "on") != same_s(b->tracefs, "on"))
		factor(out, R_ALL, "trace", same_s(a->tracefs, "on") ? "on" : "off", same_s(b->tracefs, "on") ? "on" : "off");
	factor_i(out, R_MEMTOTAL, "MemTotal", a->mem_total_kb, b->mem_total_kb, " kB");
	/* The machine. */
	if (!same_s(a->hypervisor, b->hypervisor) || !same_s(a->guest_type, b->guest_type)) {
		snprintf(x, sizeof x, "%s%s%s", a->hypervisor[0] ? a->hypervisor : "none", a->guest_type[0] ? "/" : "",
			 a->guest_type);
		snprintf(y, sizeof y, "%s%s%s", b->hypervisor[0] ? b->hypervisor : "none", b->guest_type[0] ? "/" : "",
			 b->guest_type);
		factor(out, R_MACHINE, "hypervisor", x, y);
	}
	factor_s(out, R_FPU_KIND, "FPU kind", a->fpu_kind, b->fpu_kind);
	factor_i(out, R_XSTATE, "XSAVE size", a->xstate_bytes, b->xstate_bytes, " bytes");
	/* The confinement and the workload, as set. */
	if (a->cgroup[0] && b->cgroup[0] && !same_s(a->cgroup, b->cgroup))
		factor(out, R_CGROUP_VER, "cgroup", a->cgroup, b->cgroup);
	factor_bytes(out, R_MEMORY_MAX, "memory limit", limit_set(a->memory_set, a->memory_max),
		     limit_set(b->memory_set, b->memory_max));
	factor_i(out, R_PIDS_MAX, "pids limit", limit_set(a->pids_set, a->pids_max), limit_set(b->pids_set, b->pids_max), "");
	factor_i(out, R_WORKLOAD, "workers", a->workers, b->workers, "");
	factor_i(out, R_WORKLOAD, "lifetime", a->lifetime_ms, b->lifetime_ms, " ms");
	factor_s(out, R_WORKLOAD, "spawn rate", a->spawn_rate, b->spawn_rate);
	factor_s(out, R_WORKLOAD, "lifetime distribution", a->lifetime_dist, b->lifetime_dist);
	factor_bytes(out, R_WORKER_MEMORY, "worker memory", a->worker_memory, b->worker_memory);
	factor_s(out, R_PROBE_SCOPE, "probe scope", a->probe_scope, b->probe_scope);
	factor_i(out, R_PROBE_LIMIT, "probe limit", a->probe_limit, b->probe_limit, "");
	factor_i(out, R_SWITCH_THREADS, "FPU-cost probe threads", a->switch_threads, b->switch_threads, "");
	factor_i(out, R_SAMPLE_INTERVAL, "sample interval", a->sample_interval_ms, b->sample_interval_ms, " ms");
}

int report_factor_matters(const struct report_factor *f, enum report_line_kind k)
{
	return k >= 0 && k < REPORT_LINE_NKINDS && f->rule && f->rule[k] != NONE;
}
