/* SPDX-License-Identifier: GPL-2.0-only */
/* config: flags + INI file from one option table; see config.h. */
#include "daemon/config.h"

#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "churn/churn.h"
#include "churn/gfpmod.h"
#include "common/netaddr.h"
#include "common/num.h"

enum opt_type { T_STR, T_DUR, T_SIZE, T_LEVEL, T_LISTEN, T_INT, T_U64, T_RATE, T_DIST, T_FPU, T_SCOPE, T_TRACE, T_BOOL, T_GFP,
		T_FRAG };

struct opt {
	const char *name;
	enum opt_type type;
	size_t off;          /* offset in struct config */
	size_t size;         /* for T_STR */
	const char *def;     /* default, as a user would write it; NULL = computed */
	const char *help;
	const char *form;    /* the expected form, for error messages */
	int64_t max;         /* T_INT: inclusive upper bound (lower bound is 0) */
};

#define O(field) offsetof(struct config, field), sizeof(((struct config *)0)->field)

static const struct opt OPTS[] = {
	{ "db", T_STR, O(db), NULL, "SQLite database (default $STATE_DIRECTORY/fpusoakd.db, else ./fpusoakd.db)", "a path", 0 },
	{ "listen", T_LISTEN, O(listen), "127.0.0.1:8089", "HTTP report address, or 'none'", "ADDR:PORT (numeric, port 1-65535), [V6ADDR]:PORT or none", 0 },
	{ "label", T_STR, O(label), "", "free text recorded with the run (e.g. the kernel under test)", "text", 0 },
	{ "sample-interval", T_DUR, O(sample_interval_ms), "1s", "buddyinfo/vmstat/meminfo sampling period", "a duration ≥ 10ms like 250ms, 1s, 5m", 0 },
	{ "slow-interval", T_DUR, O(slow_interval_ms), "60s", "pagetypeinfo/slabinfo sampling period", "a duration ≥ 1s like 60s, 5m", 0 },
	{ "duration", T_DUR, O(duration_ms), "0", "stop after this long (0 = until stopped)", "a duration like 30s, 2h, 1d, or 0", 0 },
	{ "retain-raw", T_DUR, O(retain_raw_ms), "14d", "keep raw samples this long (rollups stay; 0 = forever)", "a duration like 14d, 36h, or 0", 0 },
	{ "queue-max", T_SIZE, O(queue_max), "16M", "memory for samples held while the DB is locked or full", "a size like 4M, 64M", 0 },
	{ "workers", T_INT, O(workers), "32", "target population of FPU-using workers (0 = sampling only)", "a whole number 0..16384", CHURN_MAX_WORKERS },
	{ "spawn-rate", T_RATE, O(spawn_rate_milli), "50", "worker spawns per second, or 'max'", "a number like 50, 2.5, or max", 0 },
	{ "lifetime", T_DUR, O(lifetime_ms), "30s", "mean worker lifetime (0 = exit right after touching the FPU)", "a duration like 30s, 5m, or 0", 0 },
	{ "lifetime-dist", T_DIST, O(lifetime_dist), "exp", "lifetime distribution: exp, fixed or uniform", "exp|fixed|uniform", 0 },
	{ "seed", T_U64, O(seed), "0", "random seed for lifetimes (0 = pick one; it is recorded in the run)", "a whole number", 0 },
	{ "fpu", T_FPU, O(fpu), "auto", "FPU kind workers use: auto, x87, sse, avx, avx512, amx", "auto|x87|sse|avx|avx512|amx", 0 },
	{ "worker-memory", T_SIZE, O(worker_memory), "256K", "memory each worker touches", "a size like 256K, 1M", 0 },
	{ "cgroup-memory-max", T_SIZE, O(cgroup_memory_max), "512M", "memory limit of the workers' cgroup (0 = none)", "a size like 64M, 2G, or 0", 0 },
	{ "cgroup-pids-max", T_INT, O(cgroup_pids_max), "4096", "pids limit of the workers' cgroup (0 = none)", "a whole number", 4194304 },
	{ "allow-unconfined", T_BOOL, O(allow_unconfined), "no", "run even if a cgroup limit given here cannot be applied", "yes|no", 0 },
	{ "probe-interval", T_DUR, O(probe_interval_ms), "10m", "capacity probe period (0 = off; SIGUSR1 starts one)", "a duration like 10m, 1h, or 0", 0 },
	{ "probe-limit", T_INT, O(probe_limit), "2048", "most workers a capacity probe starts", "a whole number 1..16384", CHURN_MAX_PROBE },
	{ "probe-timeout", T_DUR, O(probe_timeout_ms), "5m", "longest a capacity probe fills (0 = no bound); a probe it stops is a lower bound", "a duration like 2m, 10m, or 0", 0 },
	{ "probe-scope", T_SCOPE, O(probe_scope), "cgroup", "capacity probe inside the workers' limits (cgroup) or the whole guest (guest)", "cgroup|guest", 0 },
	{ "switch-probe-interval", T_DUR, O(switch_probe_interval_ms), "1h", "FPU-cost (context switch) probe period (0 = off)", "a duration like 1h, or 0", 0 },
	{ "switch-threads", T_INT, O(switch_threads), "64", "threads of the FPU-cost probe", "a whole number 1..4096", 4096 },
	{ "fragment", T_FRAG, O(fragment), "off", "fragmenting background load beside the workers: off, light or heavy", "off|light|heavy", 0 },
	{ "gfp-mode", T_GFP, O(gfp_mode), "off", "workers HOLD their FPU state through the fpusoak_gfp module: off, kernel, atomic, nowait, or alternate (probes take turns kernel/atomic)", "off|kernel|atomic|nowait|alternate", 0 },
	{ "model-check-interval", T_DUR, O(model_check_interval_ms), NULL, "TRY atomic and nowait allocations at the orders of interest against the model (default auto: 10s with the module, 0 = off)", "a duration like 10s, 1m, 0, or auto", 0 },
	{ "proc-root", T_STR, O(proc_root), "/proc", "where to read proc files (tests feed fixture trees)", "a directory", 0 },
	{ "sys-root", T_STR, O(sys_root), "/sys", "where to read sysfs files", "a directory", 0 },
	{ "kmsg", T_STR, O(kmsg_path), "/dev/kmsg", "kernel log to watch for allocation failures and OOM kills, or 'none'", "a path or none", 0 },
	{ "trace", T_TRACE, O(trace), "auto", "failed allocations and fallbacks from a tracefs instance of its own: auto (when tracefs is mounted and writable) or none", "auto|none", 0 },
	{ "log-level", T_LEVEL, O(log_level), "info", "err, warn, notice, info or debug", "err|warn|notice|info|debug", 0 },
};
#define NOPTS (sizeof OPTS / sizeof OPTS[0])
_Static_assert(NOPTS <= CONFIG_MAX_OPTS, "raise CONFIG_MAX_OPTS");

/* Set one option from text; 0 or -1 (why in err). */
static int opt_set(struct config *cfg, const struct opt *o, const char *val, char *err, size_t errlen)
{
	char *p = (char *)cfg + o->off;
	int64_t d;
	uint64_t sz;
	enum log_level lv;

	switch (o->type) {
	case T_STR:
		if (strlen(val) >= o->size) {
			snprintf(err, errlen, "%s: value too long (at most %zu bytes)", o->name, o->size - 1);
			return -1;
		}
		memcpy(p, val, strlen(val) + 1);
		return 0;
	case T_LISTEN: {
		struct sockaddr_storage ss;
		socklen_t sl;
		int r = strlen(val) < o->size ? netaddr_parse(val, &ss, &sl) : -1;
		/* Port 0 would bind "any free port", which nobody could then find. */
		if (r < 0 || (r == 0 && netaddr_port(&ss) == 0)) {
			snprintf(err, errlen, "%s: '%s' is not %s", o->name, val, o->form);
			return -1;
		}
		memcpy(p, val, strlen(val) + 1);
		return 0;
	}
	case T_BOOL: {
		int v;
		if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "on") || !strcmp(val, "1"))
			v = 1;
		else if (!strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "off") || !strcmp(val, "0"))
			v = 0;
		else
			goto bad;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_DUR:
		/* A duration whose default is computed at start (model-check-interval: 10s only with the module)
		 * takes "auto", which is also how config_describe writes that default back. */
		if (!o->def && strcmp(val, "auto") == 0)
			d = -1;
		else if (num_parse_duration_ms(val, &d) < 0) {
			snprintf(err, errlen, "%s: '%s' is not %s", o->name, val, o->form);
			return -1;
		}
		memcpy(p, &d, sizeof d);
		return 0;
	case T_SIZE:
		if (num_parse_size(val, &sz) < 0) {
			snprintf(err, errlen, "%s: '%s' is not %s", o->name, val, o->form);
			return -1;
		}
		memcpy(p, &sz, sizeof sz);
		return 0;
	case T_LEVEL:
		if (log_level_parse(val, &lv) < 0)
			goto bad;
		memcpy(p, &lv, sizeof lv);
		return 0;
	case T_INT:
		if (num_parse_i64(val, strlen(val), &d) < 0 || d < 0 || d > o->max)
			goto bad;
		memcpy(p, &d, sizeof d);
		return 0;
	case T_U64:
		if (num_parse_u64(val, strlen(val), &sz) < 0)
			goto bad;
		memcpy(p, &sz, sizeof sz);
		return 0;
	case T_RATE:
		if (churn_rate_parse(val, &sz) < 0)
			goto bad;
		memcpy(p, &sz, sizeof sz);
		return 0;
	case T_DIST: {
		enum churn_dist dist;
		int v;
		if (churn_dist_parse(val, &dist) < 0)
			goto bad;
		v = (int)dist;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_FPU: {
		enum fpu_kind k;
		int v;
		if (fpu_kind_parse(val, &k) < 0)
			goto bad;
		v = (int)k;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_TRACE: {
		int v;
		if (strcmp(val, "auto") == 0)
			v = CONFIG_TRACE_AUTO;
		else if (strcmp(val, "none") == 0)
			v = CONFIG_TRACE_NONE;
		else
			goto bad;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_GFP: {
		enum gfp_mode g;
		int v;
		if (gfpmod_mode_parse(val, &g) < 0)
			goto bad;
		v = (int)g;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_SCOPE: {
		enum churn_probe_scope sc;
		int v;
		if (churn_scope_parse(val, &sc) < 0)
			goto bad;
		v = (int)sc;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	case T_FRAG: {
		enum fragload_level fl;
		int v;
		if (fragload_level_parse(val, &fl) < 0)
			goto bad;
		v = (int)fl;
		memcpy(p, &v, sizeof v);
		return 0;
	}
	}
	return -1;
bad:
	snprintf(err, errlen, "%s: '%s' is not %s", o->name, val, o->form);
	return -1;
}

/* Cross-option checks: values that parse but make no sense. */
static int validate(const struct config *cfg, char *err, size_t errlen)
{
	if (cfg->sample_interval_ms < 10) {
		snprintf(err, errlen, "sample-interval: must be at least 10ms");
		return -1;
	}
	if (cfg->slow_interval_ms < 1000) {
		snprintf(err, errlen, "slow-interval: must be at least 1s (pagetypeinfo takes zone->lock)");
		return -1;
	}
	if (cfg->probe_limit < 1) {
		snprintf(err, errlen, "probe-limit: must be at least 1");
		return -1;
	}
	if (cfg->switch_threads < 1) {
		snprintf(err, errlen, "switch-threads: must be at least 1");
		return -1;
	}
	if (cfg->queue_max < 65536) {
		snprintf(err, errlen, "queue-max: must be at least 64K");
		return -1;
	}
	return 0;
}

static void set_defaults(struct config *cfg)
{
	char err[256];
	const char *sd = getenv("STATE_DIRECTORY");

	memset(cfg, 0, sizeof *cfg);
	for (size_t i = 0; i < NOPTS; i++)
		if (OPTS[i].def)
			opt_set(cfg, &OPTS[i], OPTS[i].def, err, sizeof err);
	/* Model checks need the module: whether it is loaded is known only at start (gfplink.h). */
	cfg->model_check_interval_ms = -1;
	/* systemd's StateDirectory= may list several paths separated by ':'; use the first. */
	if (sd && *sd) {
		size_t n = strcspn(sd, ":");
		snprintf(cfg->db, sizeof cfg->db, "%.*s/fpusoakd.db", (int)n, sd);
	} else {
		snprintf(cfg->db, sizeof cfg->db, "./fpusoakd.db");
	}
}

struct ini_ctx {
	struct config *cfg;
	char err[512];
};

static int config_ini_key(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *ctx = user;

	if (section[0] && strcmp(section, "fpusoakd") != 0) {
		snprintf(ctx->err, sizeof ctx->err, "unknown section [%s] (expected [fpusoakd])", section);
		return 0;
	}
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(OPTS[i].name, name) == 0) {
			if (ctx->cfg->given[i] & CONFIG_FROM_FILE) {
				snprintf(ctx->err, sizeof ctx->err, "duplicate key '%s' (it is set earlier in the file)", name);
				return 0;
			}
			ctx->cfg->given[i] |= CONFIG_FROM_FILE;
			return opt_set(ctx->cfg, &OPTS[i], value, ctx->err, sizeof ctx->err) == 0;
		}
	snprintf(ctx->err, sizeof ctx->err, "unknown key '%s'", name);
	return 0;
}

/*
 * inih reads a line into a fixed INI_MAX_LINE buffer (200 bytes in Debian's
 * build) and silently parses the rest of a longer line as a new line; it
 * takes an indented line after a key as a continuation that replaces the
 * key's value; and a NUL ends a line early.  None of that may happen
 * silently, so the file is checked first and such a line refused by number.
 */
#define CONFIG_LINE_MAX 198          /* bytes before the newline that fit inih's buffer */
#define CONFIG_FILE_MAX (16u << 20)

static int check_lines(const char *buf, size_t len, char *err, size_t errlen)
{
	size_t start = 0;
	int line = 1;

	while (start < len) {
		const char *nl = memchr(buf + start, '\n', len - start);
		size_t n = nl ? (size_t)(nl - buf - start) : len - start;
		const char *p = buf + start;

		if (memchr(p, '\0', n)) {
			snprintf(err, errlen, "%d: NUL byte (not a text file)", line);
			return line;
		}
		if (n > CONFIG_LINE_MAX) {
			snprintf(err, errlen, "%d: line longer than %d bytes", line, CONFIG_LINE_MAX);
			return line;
		}
		if (n > 0 && (p[0] == ' ' || p[0] == '\t')) {
			size_t i = strspn(p, " \t\r");
			if (i < n && p[i] != ';' && p[i] != '#') {
				snprintf(err, errlen, "%d: indented line (continuation lines are not supported)", line);
				return line;
			}
		}
		start += n + 1;
		line++;
	}
	return 0;
}

static int load_file(struct config *cfg, const char *path)
{
	struct ini_ctx ctx = { cfg, "" };
	FILE *f = fopen(path, "r");
	char *buf = NULL, err[128];
	size_t len;
	struct stat sb;
	int line;

	if (!f || fstat(fileno(f), &sb) < 0) {
		fprintf(stderr, "fpusoakd: %s: %s\n", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > CONFIG_FILE_MAX) {
		fprintf(stderr, "fpusoakd: %s: %s\n", path, S_ISREG(sb.st_mode) ? "larger than 16 MiB" : "not a regular file");
		goto fail;
	}
	if (!(buf = malloc((size_t)sb.st_size + 1)) || (len = fread(buf, 1, (size_t)sb.st_size + 1, f)) > (size_t)sb.st_size ||
	    ferror(f)) {
		fprintf(stderr, "fpusoakd: %s: cannot read it whole\n", path);
		goto fail;
	}
	buf[len] = '\0';
	if (check_lines(buf, len, err, sizeof err) > 0) {
		fprintf(stderr, "fpusoakd: %s:%s\n", path, err);
		goto fail;
	}
	line = ini_parse_string(buf, config_ini_key, &ctx);
	if (line != 0) {
		fprintf(stderr, "fpusoakd: %s:%d: %s\n", path, line,
			ctx.err[0] ? ctx.err : "syntax error (expected 'key = value' or [fpusoakd])");
		goto fail;
	}
	free(buf);
	fclose(f);
	return 0;
fail:
	free(buf);
	if (f)
		fclose(f);
	return EX_CONFIG_;
}

void config_usage(void)
{
	printf("usage: fpusoakd [-c FILE] [options]\n"
	       "Soak a Linux guest with FPU-using processes and record memory fragmentation.\n\n"
	       "  -c, --config FILE        INI file with the options below as keys (flags win)\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char flag[64];
		snprintf(flag, sizeof flag, "--%s%s%s", OPTS[i].name, OPTS[i].type == T_BOOL ? "" : " ",
			 OPTS[i].type == T_BOOL ? "" : OPTS[i].type == T_DUR ? "DUR" : OPTS[i].type == T_SIZE ? "SIZE" :
			 OPTS[i].type == T_LEVEL ? "LEVEL" : OPTS[i].type == T_LISTEN ? "ADDR:PORT" :
			 OPTS[i].type == T_INT || OPTS[i].type == T_U64 ? "N" : OPTS[i].type == T_RATE ? "R" :
			 OPTS[i].type == T_STR ? "TEXT" : "WORD");
		printf("      %-24s %s%s%s%s\n", flag, OPTS[i].help, OPTS[i].def && *OPTS[i].def ? " [" : "",
		       OPTS[i].def && *OPTS[i].def ? OPTS[i].def : "", OPTS[i].def && *OPTS[i].def ? "]" : "");
	}
	printf("      --version                print the version and exit\n"
	       "  -h, --help                   print this help and exit\n\n"
	       "DUR: 250ms, 1s, 5m, 2h, 1d.  SIZE: 4096, 256K, 64M, 2G.\n"
	       "Report: http://127.0.0.1:8089/ by default.  See fpusoakd(8).\n");
}

/* Apply argv; phase 0 only finds -c/--help/--version, phase 1 applies the rest. */
static int parse_args(struct config *cfg, int argc, char **argv, int phase)
{
	struct option lo[NOPTS + 4];
	char err[512];
	int c, idx;

	for (size_t i = 0; i < NOPTS; i++)
		lo[i] = (struct option){ OPTS[i].name, OPTS[i].type == T_BOOL ? no_argument : required_argument, NULL,
					 1000 + (int)i };
	lo[NOPTS] = (struct option){ "config", required_argument, NULL, 'c' };
	lo[NOPTS + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[NOPTS + 2] = (struct option){ "version", no_argument, NULL, 'V' };
	lo[NOPTS + 3] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:h", lo, &idx)) != -1) {
		switch (c) {
		case 'c':
			if (phase == 0 && cfg->config_file[0]) {
				fprintf(stderr, "fpusoakd: --config given twice (see --help)\n");
				return EX_USAGE_;
			}
			if (phase == 0 && snprintf(cfg->config_file, sizeof cfg->config_file, "%s", optarg) >=
			    (int)sizeof cfg->config_file) {
				fprintf(stderr, "fpusoakd: --config: path too long\n");
				return EX_USAGE_;
			}
			break;
		case 'h':
			if (phase == 0) {
				config_usage();
				return 1;
			}
			break;
		case 'V':
			if (phase == 0) {
				printf("fpusoakd %s\n", FPUSOAK_VERSION);
				return 1;
			}
			break;
		case ':':
			fprintf(stderr, "fpusoakd: %s needs a value (see --help)\n", argv[optind - 1]);
			return EX_USAGE_;
		case '?':
			fprintf(stderr, "fpusoakd: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return EX_USAGE_;
		default:
			if (phase != 1)
				break;
			if (cfg->given[c - 1000] & CONFIG_FROM_FLAG) {
				fprintf(stderr, "fpusoakd: --%s given twice (each option takes one value)\n", OPTS[c - 1000].name);
				return EX_USAGE_;
			}
			cfg->given[c - 1000] |= CONFIG_FROM_FLAG;
			if (opt_set(cfg, &OPTS[c - 1000], OPTS[c - 1000].type == T_BOOL ? "yes" : optarg, err, sizeof err) < 0) {
				fprintf(stderr, "fpusoakd: --%s\n", err);
				return EX_USAGE_;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fpusoakd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return EX_USAGE_;
	}
	return 0;
}

int config_load(struct config *cfg, int argc, char **argv)
{
	char err[512];
	int rc;

	set_defaults(cfg);
	if ((rc = parse_args(cfg, argc, argv, 0)) != 0)
		return rc;
	if (cfg->config_file[0] && (rc = load_file(cfg, cfg->config_file)) != 0)
		return rc;
	if ((rc = parse_args(cfg, argc, argv, 1)) != 0)
		return rc;
	if (validate(cfg, err, sizeof err) < 0) {
		fprintf(stderr, "fpusoakd: %s\n", err);
		return EX_USAGE_;
	}
	return 0;
}

int config_reload(struct config *cfg, int argc, char **argv)
{
	struct config *n = malloc(sizeof *n);
	int rc;

	if (!n)
		return EX_CONFIG_;
	rc = config_load(n, argc, argv);
	if (rc == 0)
		*cfg = *n;
	free(n);
	return rc;
}

int config_given(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strcmp(OPTS[i].name, name) == 0)
			return cfg->given[i] != 0;
	return 0;
}

int config_limits_explicit(const struct config *cfg)
{
	return (config_given(cfg, "cgroup-memory-max") && cfg->cgroup_memory_max) ||
	       (config_given(cfg, "cgroup-pids-max") && cfg->cgroup_pids_max);
}

char *config_describe(const struct config *cfg, char *out, size_t outlen)
{
	size_t used = 0;

	out[0] = 0;
	for (size_t i = 0; i < NOPTS && used < outlen; i++) {
		const char *p = (const char *)cfg + OPTS[i].off;
		char val[CONFIG_PATH_MAX + 32];
		int64_t d;
		uint64_t sz;
		int lv;

		switch (OPTS[i].type) {
		case T_STR:
		case T_LISTEN:
			snprintf(val, sizeof val, "%s", p);
			break;
		case T_DUR:
			memcpy(&d, p, sizeof d);
			if (d < 0)
				snprintf(val, sizeof val, "auto");
			else
				num_format_duration(d, val, sizeof val);
			break;
		case T_SIZE:
			memcpy(&sz, p, sizeof sz);
			snprintf(val, sizeof val, "%llu", (unsigned long long)sz);
			break;
		case T_LEVEL:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", log_level_name((enum log_level)lv));
			break;
		case T_INT:
			memcpy(&d, p, sizeof d);
			snprintf(val, sizeof val, "%lld", (long long)d);
			break;
		case T_U64:
			memcpy(&sz, p, sizeof sz);
			snprintf(val, sizeof val, "%llu", (unsigned long long)sz);
			break;
		case T_RATE:
			memcpy(&sz, p, sizeof sz);
			churn_rate_format(sz, val, sizeof val);
			break;
		case T_DIST:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", churn_dist_name(lv));
			break;
		case T_FPU:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", lv == FPU_AUTO ? "auto" : fpu_kind_name((enum fpu_kind)lv));
			break;
		case T_SCOPE:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", lv == CHURN_SCOPE_GUEST ? "guest" : "cgroup");
			break;
		case T_FRAG:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", fragload_level_name(lv));
			break;
		case T_TRACE:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", lv == CONFIG_TRACE_NONE ? "none" : "auto");
			break;
		case T_BOOL:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", lv ? "yes" : "no");
			break;
		case T_GFP:
			memcpy(&lv, p, sizeof lv);
			snprintf(val, sizeof val, "%s", gfpmod_mode_name(lv));
			break;
		}
		used += (size_t)snprintf(out + used, outlen - used, "%s=%s\n", OPTS[i].name, val);
	}
	return out;
}
