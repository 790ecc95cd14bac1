/* SPDX-License-Identifier: GPL-2.0-only */
/* cli: fpusoakd report and fpusoakd summary; see cli.h. */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fmt.h"
#include "common/num.h"
#include "common/strbuf.h"
#include "common/wrap.h"
#include "report/causes.h"
#include "report/compare.h"
#include "report/gfp.h"
#include "report/headroom.h"
#include "report/rare.h"
#include "report/read.h"
#include "report/run.h"
#include "report/whose.h"

#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 64

struct cli_args {
	const char *cmd;          /* "report" or "summary" */
	const char *db[RUNREF_MAX_DBS];
	int ndb;
	const char *out;          /* report: the file, "-" = stdout */
	struct runref run, a, b;  /* as given; resolved against the databases once they are open */
	int drun, da, dbb;        /* the databases of run, a and b (indexes in db[]) */
	int compare, help;
	int failures_all;         /* --failures all: the failure lines count every process's */
};

static void usage(FILE *f, const char *cmd)
{
	if (!cmd || strcmp(cmd, "report") == 0)
		fprintf(f, "usage: fpusoakd report --db PATH [--db PATH...]\n"
			   "                       (--run RUN | --compare A B) --out FILE.html\n"
			   "  Write the report of one run, or of run B compared with run A, as one\n"
			   "  self-contained HTML file (inline CSS and SVG, no links): the pages of\n"
			   "  the web report, to attach to a mail or a bug.  --out - writes to\n"
			   "  stdout.\n");
	if (!cmd || strcmp(cmd, "summary") == 0)
		fprintf(f, "usage: fpusoakd summary --db PATH [--db PATH...]\n"
			   "                        (--run RUN | --compare A B [--failures own|all])\n"
			   "  Print plain text of at most %d columns for a mailing-list reply: the\n"
			   "  environment, headline figures and, for --compare, one verdict line per\n"
			   "  comparison (B against A, with a 95%% confidence interval).  The failure\n"
			   "  lines count each run's own processes' failures; --failures all counts\n"
			   "  every process's on the machine.\n", CLI_COLS);
	fprintf(f, "A run is its id, or NAME:ID when more than one --db is given: NAME\n"
		   "is the database's file name without .db (run 3 of a.db is a:3):\n"
		   "  fpusoakd summary --db a.db --db b.db --compare a:3 b:1\n"
		   "Both open the databases read-only and work while fpusoakd writes.\n"
		   "Exit status: 0; 1 if the database cannot be read or a run does not\n"
		   "exist; 64 for bad arguments.\n");
}

static int bad(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fpusoakd %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(fpusoakd %s --help for usage)\n", cmd);
	return EX_USAGE;
}

/* A run: "ID" or "NAME:ID" (common/runref.h). */
static int run_ref(const char *s, struct runref *out)
{
	return s && runref_parse(s, strlen(s), out) == 0 ? 0 : -1;
}

static int parse(int argc, char **argv, struct cli_args *a)
{
	const char *cmd = argv[0];

	memset(a, 0, sizeof *a);
	a->cmd = cmd;
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			a->help = 1;
			return 0;
		}
		if (strcmp(o, "--db") == 0 && i + 1 < argc) {
			if (a->ndb == RUNREF_MAX_DBS)
				return bad(cmd, "at most %d --db", RUNREF_MAX_DBS);
			a->db[a->ndb++] = argv[++i];
		} else if (strcmp(o, "--out") == 0 && i + 1 < argc && strcmp(cmd, "report") == 0) {
			if (a->out)
				return bad(cmd, "--out given twice");
			a->out = argv[++i];
		} else if (strcmp(o, "--run") == 0 && i + 1 < argc) {
			if (a->run.id)
				return bad(cmd, "--run given twice");
			if (run_ref(argv[++i], &a->run) < 0)
				return bad(cmd, "--run: '%s' is not a run id (ID or NAME:ID, ID a positive integer)", argv[i]);
		} else if (strcmp(o, "--compare") == 0 && i + 2 < argc) {
			if (a->compare)
				return bad(cmd, "--compare given twice");
			if (run_ref(argv[i + 1], &a->a) < 0 || run_ref(argv[i + 2], &a->b) < 0)
				return bad(cmd, "--compare: '%s %s' are not two run ids (ID or NAME:ID)", argv[i + 1], argv[i + 2]);
			a->compare = 1;
			i += 2;
		} else if (strcmp(o, "--failures") == 0 && i + 1 < argc && strcmp(cmd, "summary") == 0) {
			if (strcmp(argv[i + 1], "all") != 0 && strcmp(argv[i + 1], "own") != 0)
				return bad(cmd, "--failures: '%s' is not own or all", argv[i + 1]);
			a->failures_all = strcmp(argv[++i], "all") == 0;
		} else if (strcmp(o, "--failures") == 0 && strcmp(cmd, "summary") != 0) {
			/* The saved report is the page: it counts each run's own and shows the rest in its whose table. */
			return bad(cmd, "--failures is summary's (the report's page shows every process's failures beside the"
				   " run's own)");
		} else if (strcmp(o, "--failures") == 0 || strcmp(o, "--db") == 0 ||
			   (strcmp(o, "--out") == 0 && strcmp(cmd, "report") == 0) ||
			   strcmp(o, "--run") == 0 || strcmp(o, "--compare") == 0) {
			return bad(cmd, "%s needs %s", o, strcmp(o, "--compare") == 0 ? "two run ids" : "a value");
		} else {
			return bad(cmd, "unknown argument '%s'", o);
		}
	}
	if (!a->ndb)
		return bad(cmd, "--db PATH is required");
	if (!a->run.id == !a->compare)
		return bad(cmd, "give exactly one of --run ID and --compare A B");
	if (strcmp(cmd, "report") == 0 && !a->out)
		return bad(cmd, "--out FILE.html is required");
	return 0;
}

/* ---------------------------------------------------------------- report */

static int write_file(const char *path, const struct strbuf *sb)
{
	char tmp[4096];
	FILE *f;
	int ok;

	if (strcmp(path, "-") == 0)
		return fwrite(sb->buf, 1, sb->len, stdout) == sb->len && fflush(stdout) == 0 ? 0 : -1;
	/* Whole or not at all: a reader never sees half a report. */
	if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp)
		return errno = ENAMETOOLONG, -1;
	if (!(f = fopen(tmp, "w")))
		return -1;
	ok = fwrite(sb->buf, 1, sb->len, f) == sb->len;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

static int report(const struct query_set *set, const struct cli_args *a, const struct cli_html *html)
{
	struct strbuf sb;
	char err[256];
	int rc, ret = EX_FAIL;

	sb_init(&sb, 64u << 20);
	rc = a->compare ? html->compare(set, a->da, a->a.id, a->dbb, a->b.id, &sb, err, sizeof err)
			: html->run(set, a->drun, a->run.id, &sb, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "fpusoakd report: %s: %s\n", a->db[a->compare ? a->da : a->drun], err);
	} else if (!sb.buf || write_file(a->out, &sb) < 0) {
		fprintf(stderr, "fpusoakd report: cannot write %s: %s\n", a->out, sb.buf ? strerror(errno) : "empty report");
	} else {
		if (strcmp(a->out, "-") != 0)
			fprintf(stderr, "fpusoakd report: wrote %s (%zu KiB)\n", a->out, (sb.len + 1023) / 1024);
		ret = EX_OK;
	}
	sb_free(&sb);
	return ret;
}

/* ---------------------------------------------------------------- summary: text of <= CLI_COLS columns */

/* One line: printable ASCII only (kernel and user strings may hold anything), cut to CLI_COLS with "...". */
static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One line of the summary, folded at word boundaries to CLI_COLS (common/wrap.h): a reply quotes
 * it whole, so nothing is cut, least of all a number.  Continuation lines are indented two more
 * than the line's own indentation.
 */
static void put(const char *fmt, ...)
{
	char line[2048], indent[32];
	struct strbuf sb;
	va_list ap;
	size_t lead;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	for (char *s = line; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
	lead = strspn(line, " ");
	if (lead > sizeof indent - 3)
		lead = sizeof indent - 3;
	memset(indent, ' ', lead + 2);
	indent[lead + 2] = 0;
	if (!line[lead]) {
		puts("");
		return;
	}
	sb_init(&sb, sizeof line * 2);
	sb_append(&sb, line, lead);
	if (wrap_words(&sb, line + lead, CLI_COLS - lead, indent) == 0 && sb.buf)
		fputs(sb.buf, stdout);
	else
		puts(line);
	sb_free(&sb);
}

struct env {
	int found;
	int64_t latest;           /* the newest run: only it can be "running" */
	char label[128], kernel[160], hyp[96], cpu[160], fpu[160], fpu_kind[32], xdetail[256], eager[32], state[16];
	char conf[REPORT_GATE_TEXT + 64], deaths[128];
	char gfp[48];             /* --gfp-mode in force; "" before schema 9 */
	int64_t xstate, memtotal, page_size, samples, first, last, started, duration;
	int imported;             /* 1: copied by fpusoakd import, imp says from where */
	struct query_import imp;
	struct query *q;          /* while loading: for the figures env_cb asks report/ for */
	int mem_err;              /* report_run_memory failed */
	struct report_run_memory mem;
};

static void copy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

static int env_cb(void *arg, const struct query_run *r)
{
	struct env *e = arg;

	e->found = 1;
	copy(e->label, sizeof e->label, r->label);
	snprintf(e->kernel, sizeof e->kernel, "%s%s%s", r->kernel_release ? r->kernel_release : "?",
		 r->kernel_version ? " " : "", r->kernel_version ? r->kernel_version : "");
	snprintf(e->hyp, sizeof e->hyp, "%s%s%s", r->hypervisor ? r->hypervisor : "?", r->guest_type ? " " : "",
		 r->guest_type ? r->guest_type : "");
	report_cpu_model(r, e->cpu, sizeof e->cpu);
	copy(e->fpu, sizeof e->fpu, r->fpu_features);
	copy(e->xdetail, sizeof e->xdetail, r->xstate_detail);
	copy(e->gfp, sizeof e->gfp, r->gfp_mode);
	report_eagerfpu(r->cmdline, e->eager, sizeof e->eager);
	copy(e->state, sizeof e->state, report_run_state(r, r->run_id == e->latest));
	e->xstate = r->xstate_bytes;
	e->memtotal = r->mem_total_kb;
	e->page_size = r->page_size;
	e->samples = r->nsamples;
	e->first = r->first_sample_ms;
	e->last = r->last_sample_ms;
	e->started = r->started_ms;
	e->duration = report_run_duration(r);
	e->mem_err = report_run_memory(e->q, r, &e->mem) < 0;
	report_run_confinement(r, e->conf, sizeof e->conf);
	report_gate_short_paths(e->conf);   /* 72 columns: the group's name; v_runs has the whole path */
	return 0;
}

/* 1 found, 0 no such run, -1. */
static int load_env(struct query *q, int64_t id, struct env *e)
{
	int has;

	memset(e, 0, sizeof *e);
	e->q = q;
	if (report_read_latest_run(q, &e->latest) < 0)
		return -1;
	if (report_read_writer_active(q) == 0)
		e->latest = -1;   /* no daemon writes this DB: no run of it is "running" */
	if (report_read_run(q, id, env_cb, e) < 0 || e->mem_err ||
	    (e->found && (e->imported = report_read_run_import(q, id, &e->imp)) < 0))
		return -1;
	if (!e->found)
		return 0;
	if ((has = report_read_has_table(q, "churn_info")) < 0 || (has && report_read_run_fpu_kind(q, id, e->fpu_kind, sizeof e->fpu_kind) < 0))
		return -1;
	if (report_run_deaths(q, id, e->deaths, sizeof e->deaths) < 0)
		return -1;
	return 1;
}

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "-";
}

static void env_one(const struct env *e)
{
	char a[FMT_TIME_LEN], b[FMT_TIME_LEN], d[32];

	put("  kernel      %s", e->kernel);
	put("  hypervisor  %s", e->hyp);
	put("  CPU         %s", or_dash(e->cpu));
	put("  FPU kind    %s", e->fpu_kind[0] ? e->fpu_kind : "- (no churn engine in this run)");
	put("  features    %s", or_dash(e->fpu));
	if (e->xstate >= 0)
		put("  xstate      %" PRId64 " bytes%s%s", e->xstate, e->xdetail[0] ? ": " : "", e->xdetail);
	put("  eagerfpu=   %s", e->eager[0] ? e->eager : "(not on the kernel command line)");
	if (e->gfp[0])
		put("  gfp mode    %s", e->gfp);
	if (e->memtotal >= 0)
		put("  memory      %" PRId64 " MB total, %" PRId64 "-byte pages", e->memtotal / 1024, e->page_size);
	if (e->mem.known) {
		if (e->mem.domain_kb >= 0)
			put("  Xen gave    %" PRId64 " kB", e->mem.domain_kb);
		if (e->mem.reserved_kb >= 0)
			put("  kernel's    %" PRId64 " kB of the %" PRId64 " kB it knows", e->mem.reserved_kb, e->mem.present_kb);
		if (e->mem.free_kb >= 0)
			put("  at start    %" PRId64 " kB free, %" PRId64 " kB available", e->mem.free_kb, e->mem.available_kb);
	}
	if (e->first >= 0)
		put("  samples     %" PRId64 ", %s to %s UTC", e->samples, fmt_time_human(e->first, a, sizeof a),
		    fmt_time_human(e->last, b, sizeof b));
	put("  duration    %s, %s", e->duration >= 0 ? fmt_duration(e->duration, d, sizeof d) : "-", e->state);
	put("  confinement %s", e->conf);
	put("  deaths      %s", e->deaths);
	if (e->imported)
		put("  imported    from %s, run %" PRId64 " there (host %s)", e->imp.source_file, e->imp.source_run_id,
		    or_dash(e->imp.source_host));
}

/* Environment side by side: key 12, A and B 29 columns each; a value wider than that is not cut but
 * given a line of its own per run. */
static void env_pair(const char *key, const char *a, const char *b)
{
	if (strlen(or_dash(a)) <= 29 && strlen(or_dash(b)) <= 29) {
		put("%-12s %-29s %s", key, or_dash(a), or_dash(b));
		return;
	}
	put("%s", key);
	put("  A: %s", or_dash(a));
	put("  B: %s", or_dash(b));
}

static void env_two(const struct env *a, const struct env *b, const char *ia, const char *ib)
{
	char x[48], y[48];

	snprintf(x, sizeof x, "A: run %s", ia);
	snprintf(y, sizeof y, "B: run %s", ib);
	env_pair("", x, y);
	env_pair("label", a->label, b->label);
	env_pair("kernel", a->kernel, b->kernel);
	env_pair("hypervisor", a->hyp, b->hyp);
	env_pair("CPU", a->cpu, b->cpu);
	env_pair("FPU kind", a->fpu_kind, b->fpu_kind);
	snprintf(x, sizeof x, "%" PRId64 " bytes", a->xstate);
	snprintf(y, sizeof y, "%" PRId64 " bytes", b->xstate);
	env_pair("xstate", a->xstate >= 0 ? x : "", b->xstate >= 0 ? y : "");
	env_pair("eagerfpu=", a->eager, b->eager);
	fmt_duration(a->duration, x, sizeof x);
	fmt_duration(b->duration, y, sizeof y);
	env_pair("duration", a->duration >= 0 ? x : "", b->duration >= 0 ? y : "");
	snprintf(x, sizeof x, "%" PRId64, a->samples);
	snprintf(y, sizeof y, "%" PRId64, b->samples);
	env_pair("samples", x, y);
	env_pair("confinement", a->conf, b->conf);
	env_pair("deaths", a->deaths, b->deaths);
}

/* ---- headline figures of one run ---- */

static void headroom_lines(struct query *q, int64_t id, int *err)
{
	struct report_orders o;
	struct report_trend *t = calloc(REPORT_MAX_ZONES, sizeof *t);
	char s[32], lo[32], hi[32], z[FMT_TIME_LEN];

	if (!t || report_orders(q, id, &o) < 0) {
		*err = 1;
		free(t);
		return;
	}
	for (int i = 0; i < o.n; i++) {
		int n = report_headroom_trends(q, id, o.order[i], -1, -1, 0, t, REPORT_MAX_ZONES);
		if (n < 0) {
			*err = 1;
			break;
		}
		put("  headroom, order %d (%s%s), blocks and slope/h [95%% CI]:", o.order[i], o.why[i],
		    report_order_measured(&o, i) ? "" : ", assumed");
		if (n == 0)
			put("    no minute rollups yet");
		for (int j = 0; j < n; j++) {
			if (!t[j].ok && t[j].err == TREND_EAUTOCORR) {
				put("    %-8s %.0f, no trend (too autocorrelated)", t[j].zone, t[j].last);
				continue;
			}
			if (!t[j].ok) {
				put("    %-8s %.0f, no trend (%zu minutes)", t[j].zone, t[j].last, t[j].n);
				continue;
			}
			put("    %-8s %.0f, %s/h [%s, %s]%s%s", t[j].zone, t[j].last, fmt_sig(t[j].slope_h, s, sizeof s),
			    fmt_sig(t[j].lo_h, lo, sizeof lo), fmt_sig(t[j].hi_h, hi, sizeof hi),
			    t[j].exhaustion ? ", zero at " : "",
			    t[j].exhaustion ? fmt_time_human(t[j].zero_ms, z, sizeof z) : "");
		}
		if (n > 0 && t[0].per_tick)
			put("    (under %d minutes: fitted per tick, AR(1)-corrected interval)", REPORT_TICK_TREND_MINUTES);
	}
	free(t);
}

/* The fragmenting background load, when the run had one. */
static void fragment_line(struct query *q, int64_t id, int *err)
{
	struct report_fragment f;
	char cap[32], base[32], peak[32];
	int r = report_fragment(q, id, -1, -1, &f);

	if (r < 0)
		*err = 1;
	if (r <= 0)
		return;
	put("  fragmenting load: %s, bound %s of %s", f.level, fmt_mib((double)f.cap_bytes, cap, sizeof cap),
	    fmt_mib((double)f.base_bytes, base, sizeof base));
	if (f.tot.rows > 0)
		put("    %" PRId64 " cycles, peak %s held (%.0f%% of the bound)", f.tot.cycles,
		    fmt_mib((double)f.tot.held_max, peak, sizeof peak), f.peak_pct_of_cap);
}

static void probe_line(const struct report_probe_set *s, const char *what, const char *unit)
{
	char m[32], a[32], b[32];

	char c[160] = "";

	/* Left out of the figures: said with their count and why, never silently dropped. */
	if (s->censored && strcmp(unit, "workers") == 0)
		snprintf(c, sizeof c, "; %zu more stopped by %s, at least %s workers each (a lower bound, left out)",
			 s->censored, s->censored_reason, fmt_sig(s->censored_max, a, sizeof a));
	else if (s->censored)
		snprintf(c, sizeof c, "; %zu more did not finish (%s; left out)", s->censored, s->censored_reason);
	if (s->n == 0)
		put("  %s: none%s", what, c);
	else
		put("  %s: %zu, median %s %s (%s to %s)%s", what, s->n, fmt_sig(s->median, m, sizeof m), unit,
		    fmt_sig(s->min, a, sizeof a), fmt_sig(s->max, b, sizeof b), c);
	/* A capacity probe's count means something beside how long it took (issue 36). */
	if (s->dur_max_ms >= 0 && strcmp(unit, "workers") == 0 && s->dur_min_ms == s->dur_max_ms)
		put("    filled in %s", fmt_duration(s->dur_max_ms, b, sizeof b));
	else if (s->dur_max_ms >= 0 && strcmp(unit, "workers") == 0)
		put("    each filled in %s to %s", fmt_duration(s->dur_min_ms, a, sizeof a),
		    fmt_duration(s->dur_max_ms, b, sizeof b));
}

struct atomic_line {
	char text[CLI_COLS + 1];
	size_t len;
};

static int atomic_cb(void *arg, const struct report_atomic *a)
{
	struct atomic_line *l = arg;
	char p[32];
	int n;

	if (a->samples <= 0)
		return 0;
	n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s%s %s%%", l->len ? ", " : "", a->zone ? a->zone : "?",
		     fmt_sig(a->risk_pct, p, sizeof p));
	if (n > 0 && (size_t)n < sizeof l->text - l->len)
		l->len += (size_t)n;
	return 0;
}

/* Failure causes (schema 14): a line per source, then one per cause it had (report_cause_line). */
static void cause_lines(struct query *q, int64_t id, int *err)
{
	struct report_causes *rc = calloc(1, sizeof *rc);
	char line[256];

	if (!rc || report_causes(q, id, -1, -1, rc) < 0)
		*err = 1;
	for (int i = 0; rc && !*err && report_cause_line(rc, i, line, sizeof line) == 0; i++)
		put("  %s", line);
	free(rc);
}

/* The trace (schema 8): failed allocations by class and order, fallbacks, the fragmenting trend. */
static void trace_lines(struct query *q, int64_t id, int *err)
{
	struct report_trace t;
	char r1[32], r2[32], r3[32], ord[128] = "";
	size_t used = 0;

	if (report_trace(q, id, &t) < 0) {
		*err = 1;
		return;
	}
	if (!t.note[0])
		return;                 /* a run from before the trace: nothing to say */
	if (!t.on) {
		put("  trace: %s", t.note);
		return;
	}
	put("  failed allocations (trace): %" PRId64 "%s%s%s", t.t.failures, isfinite(t.per_hour) ? ", " : "",
	    isfinite(t.per_hour) ? fmt_sig(t.per_hour, r1, sizeof r1) : "", isfinite(t.per_hour) ? " per hour" : "");
	for (int k = 0; k < QUERY_TRACE_ORDERS && used < sizeof ord; k++)
		if (t.by_order[k]) {
			int n = snprintf(ord + used, sizeof ord - used, "%s%s%d: %" PRId64, used ? ", " : "",
					 k == QUERY_TRACE_ORDERS - 1 ? ">=" : "", k, t.by_order[k]);
			if (n > 0)
				used += (size_t)n;
		}
	put("    atomic %" PRId64 ", sleeping %" PRId64 ", opportunistic %" PRId64 "%s%s", t.by_class[REPORT_ATOMIC],
	    t.by_class[REPORT_SLEEPING], t.by_class[REPORT_OPPORTUNISTIC], used ? "; by order " : "", ord);
	if (t.t.kmsg_failures)
		put("    of the kernel log's %" PRId64 " failures, %" PRId64 " seen in the trace", t.t.kmsg_failures,
		    t.t.kmsg_in_trace);
	put("  fallbacks: %" PRId64 ", fragmenting %" PRId64 "%s%s%s", t.t.extfrag, t.t.fragmenting,
	    isfinite(t.fragmenting_per_hour) ? " (" : "",
	    isfinite(t.fragmenting_per_hour) ? fmt_sig(t.fragmenting_per_hour, r1, sizeof r1) : "",
	    isfinite(t.fragmenting_per_hour) ? " per hour)" : "");
	if (t.trend_ok)
		put("  fragmenting trend: %s/h per hour [%s, %s]%s", fmt_sig(t.slope_h, r1, sizeof r1),
		    fmt_sig(t.lo_h, r2, sizeof r2), fmt_sig(t.hi_h, r3, sizeof r3), t.significant ? "" : ", not significant");
	else
		put("  fragmenting trend: after %d %s buckets", REPORT_TREND_POINTS,
		    t.trend_tier == STORE_TIER_HOUR_MS ? "hour" : "minute");
}

static void kernel_lines(struct query *q, int64_t id, int *err)
{
	struct report_orders o;
	struct report_failures f;
	struct report_churn ch;
	const struct query_churn *c = &ch.tot;
	int has, got = 0, rate;
	char r1[32], r2[32];

	if ((has = report_read_has_table(q, "kmsg_events")) < 0 || (has && report_failures(q, id, &f) < 0)) {
		*err = 1;
		return;
	}
	rate = has && isfinite(f.per_hour);
	if (has) {
		struct report_whose_counts w;
		put("  allocation failures (kernel log): %" PRId64 "%s%s%s%s%s", f.count, rate ? " over " : "",
		    rate ? report_exposure_text(f.exposure_ms, r2, sizeof r2) : "", rate ? " (" : "",
		    rate ? fmt_sig(f.per_hour, r1, sizeof r1) : "", rate ? " per hour)" : "");
		if (report_whose_counts(q, id, 1, &w) < 0) {
			*err = 1;
			return;
		}
		if (w.facts)
			put("    this run's %" PRId64 ", other processes' %" PRId64 ", unknown %" PRId64, w.n[REPORT_WHOSE_OWN],
			    w.n[REPORT_WHOSE_OTHER], w.n[REPORT_WHOSE_UNKNOWN]);
		else if (f.count)
			put("    whose: not recorded (an older fpusoakd): any process's on the machine");
	}
	if ((has = report_read_has_table(q, "churn_info")) < 0 || (has && (got = report_churn(q, id, -1, -1, &ch)) < 0)) {
		*err = 1;
		return;
	}
	if (has && got) {
		struct report_deaths d;
		char cw[256], pw[256], span[32];
		if (report_run_population(q, id, &d) < 0) {
			*err = 1;
			return;
		}
		report_exposure_text(c->span_ms, span, sizeof span);
		put("  churn: %" PRId64 " spawned over %s (%s/s), mean population %s", c->c[QC_SPAWNED], span,
		    isfinite(ch.spawns_per_s) ? fmt_sig(ch.spawns_per_s, r1, sizeof r1) : "-",
		    fmt_sig(c->population, r2, sizeof r2));
		/* Both populations, each as the identity its counts must obey (every death counted once). */
		report_deaths_identity(&d, cw, sizeof cw, pw, sizeof pw);
		put("  %s", cw);
		if (pw[0])
			put("  %s", pw);
		put("  spawn failures: EAGAIN %" PRId64 ", ENOMEM %" PRId64 ", other %" PRId64 " over %s", c->c[QC_FAIL_EAGAIN],
		    c->c[QC_FAIL_ENOMEM], c->c[QC_FAIL_OTHER], span);
		put("  deaths: SIGKILL %" PRId64 ", SIGSEGV %" PRId64 ", SIGILL %" PRId64 ", other %" PRId64
		    " (churn and probe workers)", c->c[QC_SIGKILL] + c->c[QC_PROBE_SIGKILL], c->c[QC_SIGSEGV],
		    c->c[QC_SIGILL], c->c[QC_SIGOTHER] + c->c[QC_PROBE_SIGOTHER]);
		put("  OOM kills: %" PRId64 " (churn workers %" PRId64 ", probe workers %" PRId64 ", matched to no"
		    " worker %" PRId64 ")", c->c[QC_OOM] + c->c[QC_PROBE_OOM] + c->c[QC_OOM_UNATTRIBUTED], c->c[QC_OOM],
		    c->c[QC_PROBE_OOM], c->c[QC_OOM_UNATTRIBUTED]);
	} else if (has) {
		put("  churn: none (--workers 0)");
	}
	if ((has = report_read_has_table(q, "atomic_risk")) < 0 || report_orders(q, id, &o) < 0) {
		*err = 1;
		return;
	}
	for (int i = 0; has && i < o.n; i++) {
		struct atomic_line l = { "", 0 };
		struct report_request rq;
		char x[32], y[32];
		int have;
		if ((have = report_request(q, id, o.order[i], -1, -1, &rq)) < 0 ||
		    report_atomic_summary(q, id, o.order[i], -1, -1, atomic_cb, &l) < 0) {
			*err = 1;
			return;
		}
		/* The request (the whole zonelist) is the figure; one zone's check is detail. */
		if (have)
			put("  GFP_ATOMIC-only failures, order %d: %s%% of %" PRId64 " samples (GFP_NOWAIT %s%%)", o.order[i],
			    fmt_sig(rq.atomic_only_pct, x, sizeof x), rq.samples, fmt_sig(rq.nowait_only_pct, y, sizeof y));
		else
			put("  GFP_ATOMIC-only failures, order %d: no samples", o.order[i]);
		if (l.len)
			put("    per zone's own check: %s", l.text);
	}
	cause_lines(q, id, err);
	trace_lines(q, id, err);
}

/* The 2014 test with the fpusoak_gfp module (report/gfp.h): only for runs that used it. */
static void gfp_lines(struct query *q, int64_t id, int *err)
{
	struct report_gfp g;
	char a[32], b[32], c[32], d[32];

	if (report_gfp(q, id, -1, -1, &g) < 0) {
		*err = 1;
		return;
	}
	if (g.probes_by_mode[REPORT_GFP_KERNEL] + g.probes_by_mode[REPORT_GFP_ATOMIC] +
	    g.probes_by_mode[REPORT_GFP_NOWAIT] + (size_t)g.churn_gfp_failed + g.checks == 0) {
		report_gfp_free(&g);
		return;
	}
	put("  capacity probes by gfp mode: kernel %zu, atomic %zu, nowait %zu", g.probes_by_mode[REPORT_GFP_KERNEL],
	    g.probes_by_mode[REPORT_GFP_ATOMIC], g.probes_by_mode[REPORT_GFP_NOWAIT]);
	if (g.probes_by_mode[REPORT_GFP_KERNEL] || g.probes_by_mode[REPORT_GFP_ATOMIC])
		put("%s", g.line.verdict);
	if (g.censored_by_mode[REPORT_GFP_KERNEL] + g.censored_by_mode[REPORT_GFP_ATOMIC])
		put("  left out (stopped by limit, timeout or stop): kernel %zu, atomic %zu",
		    g.censored_by_mode[REPORT_GFP_KERNEL], g.censored_by_mode[REPORT_GFP_ATOMIC]);
	if (g.ab.have_trend)
		put("  gap atomic-kernel: mean %s, %s/h [%s, %s] over %zu turns", fmt_sig(g.ab.gap_mean, a, sizeof a),
		    fmt_sig(g.gap_h, b, sizeof b), fmt_sig(g.gap_lo_h, c, sizeof c), fmt_sig(g.gap_hi_h, d, sizeof d),
		    g.ab.npairs);
	else if (g.ab.npairs)
		put("  gap atomic-kernel: mean %s over %zu turns (a trend needs 3)", fmt_sig(g.ab.gap_mean, a, sizeof a),
		    g.ab.npairs);
	put("  refused HOLDs: %" PRId64 " churn deaths, %" PRId64 " probes ended", g.churn_gfp_failed,
	    g.probes_gfp_failed);
	if (g.checks)
		put("  model checks: %" PRIu64 "/%" PRIu64 " agreed (%s%%); atomic %" PRIu64 "/%" PRIu64 ", nowait %" PRIu64
		    "/%" PRIu64, g.agreed, g.checks, fmt_sig(100.0 * g.accuracy, a, sizeof a), g.mode_agreed[REPORT_GFP_ATOMIC],
		    g.mode_checks[REPORT_GFP_ATOMIC], g.mode_agreed[REPORT_GFP_NOWAIT], g.mode_checks[REPORT_GFP_NOWAIT]);
	report_gfp_free(&g);
}

static int headline(struct query *q, int64_t id)
{
	struct report_probes p;
	int err = 0, has;

	headroom_lines(q, id, &err);
	if (!err)
		fragment_line(q, id, &err);
	if (!err && (has = report_read_has_table(q, "probes")) < 0)
		err = 1;
	if (!err && has) {
		if (report_probes(q, id, -1, -1, &p) < 0) {
			err = 1;
		} else {
			probe_line(&p.capacity, "capacity probes", "workers");
			probe_line(&p.fpu_cost, "FPU-cost probes", "us/yield");
			report_probes_free(&p);
		}
	}
	if (!err)
		kernel_lines(q, id, &err);
	if (!err)
		gfp_lines(q, id, &err);
	return err ? -1 : 0;
}

static int summary(const struct query_set *set, const struct cli_args *a)
{
	struct env ea, eb;
	struct report_cmp *c = NULL;
	struct query *qa = set->q[a->compare ? a->da : a->drun], *qb = set->q[a->compare ? a->dbb : a->drun], *q = qa;
	const struct runref *ra = a->compare ? &a->a : &a->run;
	char refa[RUNREF_LEN], refb[RUNREF_LEN];
	int ga, gb = 1;

	runref_format(set->name[a->compare ? a->da : a->drun], set->n, ra->id, refa, sizeof refa);
	runref_format(set->name[a->dbb], set->n, a->b.id, refb, sizeof refb);
	if ((ga = load_env(qa, ra->id, &ea)) < 0 || (a->compare && (q = qb, gb = load_env(qb, a->b.id, &eb)) < 0))
		goto dberr;
	if (!ga || !gb) {
		fprintf(stderr, "fpusoakd summary: %s: no run %" PRId64 " in this database\n",
			a->db[!ga ? (a->compare ? a->da : a->drun) : a->dbb], !ga ? ra->id : a->b.id);
		return EX_FAIL;
	}
	q = qa;
	if (!a->compare) {
		put("fpusoakd run %s%s%s%s", refa, ea.label[0] ? " \"" : "", ea.label, ea.label[0] ? "\"" : "");
		env_one(&ea);
		put("%s", "");
		put("Headline figures");
		if (headline(qa, ra->id) < 0)
			goto dberr;
		return EX_OK;
	}
	if (!(c = calloc(1, sizeof *c)) ||
	    report_compare_with(qa, a->a.id, qb, a->b.id, &(struct report_cmp_opts){ .all_failures = a->failures_all }, c) < 0)
		goto dberr;
	put("fpusoakd: run %s (B) compared with run %s (A)", refb, refa);
	put("%s", "");
	cli_verdict_differs(c, put);
	put("%s", "");
	env_two(&ea, &eb, refa, refb);
	put("%s", "");
	put("A: run %s", refa);
	if (headline(qa, a->a.id) < 0)
		goto dberr;
	put("B: run %s", refb);
	q = qb;
	if (headline(qb, a->b.id) < 0)
		goto dberr;
	put("%s", "");
	cli_verdict_lines(c, put);
	free(c);
	return EX_OK;
dberr:
	fprintf(stderr, "fpusoakd summary: %s: %s\n", a->db[q == qb ? (a->compare ? a->dbb : a->drun) : (a->compare ? a->da : a->drun)],
		report_read_errmsg(q));
	free(c);
	return EX_FAIL;
}

/* Resolve one run reference against the open databases into *d; 0, or EX_USAGE after saying why. */
static int resolve(const struct cli_args *a, const struct query_set *set, const struct runref *ref, int *d)
{
	*d = runref_find(ref, (const runref_name *)set->name, set->n);
	if (*d == RUNREF_AMBIGUOUS) {
		fprintf(stderr, "fpusoakd %s: %d databases are open: give run %" PRId64 " as NAME:%" PRId64 ", NAME one of",
			a->cmd, set->n, ref->id, ref->id);
	} else if (*d == RUNREF_NO_DB) {
		fprintf(stderr, "fpusoakd %s: no database named '%s'; the names are", a->cmd, ref->db);
	} else {
		return 0;
	}
	for (int i = 0; i < set->n; i++)
		fprintf(stderr, "%s %s (%s)", i ? "," : "", set->name[i], a->db[i]);
	fprintf(stderr, "\n");
	return EX_USAGE;
}

int cli_main(int argc, char **argv, const struct cli_html *html)
{
	struct cli_args a;
	struct query_set set;
	char err[512];
	int rc;

	if (argc < 1)
		return EX_USAGE;
	if ((rc = parse(argc, argv, &a)) != 0)
		return rc;
	if (a.help) {
		usage(stdout, a.cmd);
		return EX_OK;
	}
	if (report_read_set_open(&set, a.db, a.ndb, err, sizeof err) < 0) {
		fprintf(stderr, "fpusoakd %s: %s\n", a.cmd, err);
		return EX_FAIL;
	}
	if ((rc = a.compare ? resolve(&a, &set, &a.a, &a.da) : resolve(&a, &set, &a.run, &a.drun)) == 0 &&
	    (!a.compare || (rc = resolve(&a, &set, &a.b, &a.dbb)) == 0))
		rc = strcmp(a.cmd, "report") == 0 ? report(&set, &a, html) : summary(&set, &a);
	report_read_set_close(&set);
	return rc;
}
