/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config: command-line flags and the INI config file, one table for both.
 *
 * Every option is a long flag and a key of the same name in the config file
 * (section [fpusoakd] or none); flags win over the file.  A bad value is one
 * clear line on stderr and a non-zero exit: exit 78 (EX_CONFIG) with
 * file:line for the file, exit 64 (EX_USAGE) for flags.  Every option is
 * single-valued: a key twice in the file (78) or a flag twice (64) is a
 * mistake, never a silent override; a flag over a file key is the override.
 */
#ifndef FPUSOAK_CONFIG_H
#define FPUSOAK_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "common/log.h"

#define CONFIG_PATH_MAX 4096
#define CONFIG_MAX_OPTS 40          /* options in the table (config.c checks it) */
enum { CONFIG_FROM_FILE = 1, CONFIG_FROM_FLAG = 2 };
#define EX_USAGE_ 64
#define EX_CONFIG_ 78

/* --trace: the tracefs source (daemon/tracewatch.h). */
enum config_trace { CONFIG_TRACE_AUTO = 0, CONFIG_TRACE_NONE };

struct config {
	char config_file[CONFIG_PATH_MAX];
	char db[CONFIG_PATH_MAX];
	char listen[128];
	char label[128];
	char proc_root[CONFIG_PATH_MAX];
	char sys_root[CONFIG_PATH_MAX];
	char kmsg_path[CONFIG_PATH_MAX];  /* "none" disables kernel-log capture */
	int trace;                   /* enum config_trace */
	int64_t sample_interval_ms;
	int64_t slow_interval_ms;
	int64_t duration_ms;
	int64_t retain_raw_ms;       /* 0: keep raw samples forever */
	uint64_t queue_max;          /* bytes of ticks held while the DB is unwritable */
	/* churn (see churn/churn.h) */
	int64_t workers;
	uint64_t spawn_rate_milli;   /* CHURN_RATE_MAX for "max" */
	int64_t lifetime_ms;
	int lifetime_dist;           /* enum churn_dist */
	uint64_t seed;               /* 0: chosen at start, recorded in the run */
	int fpu;                     /* enum fpu_kind, FPU_AUTO = -1 */
	uint64_t worker_memory;
	uint64_t cgroup_memory_max;
	int64_t cgroup_pids_max;
	int64_t probe_interval_ms;
	int64_t probe_limit;
	int64_t probe_timeout_ms;
	int probe_scope;             /* enum churn_probe_scope */
	int64_t switch_probe_interval_ms;
	int64_t switch_threads;
	int fragment;                /* enum fragload_level: the fragmenting background load */
	int gfp_mode;                /* enum gfp_mode (churn/gfpmod.h) as asked; the module may be missing */
	int64_t model_check_interval_ms; /* -1: 10s when the module is loaded, else off; 0: off */
	enum log_level log_level;
	int allow_unconfined;        /* run even when a limit given explicitly cannot be applied */
	unsigned char given[CONFIG_MAX_OPTS];   /* per option: CONFIG_FROM_* bits (defaults are neither) */
};

/* Fill cfg from defaults, then the config file (-c or none), then argv.
 * Returns 0 to run, 1 when --help/--version was printed (exit 0), or the exit code (64/78) after printing the error. */
int config_load(struct config *cfg, int argc, char **argv);

/* Re-read the config file and re-apply argv on top (SIGHUP); 0 or an exit-style code, cfg untouched on error. */
int config_reload(struct config *cfg, int argc, char **argv);

/* 1 if a non-zero --cgroup-memory-max or --cgroup-pids-max came from a flag or the file, else 0. */
int config_limits_explicit(const struct config *cfg);

/* 1 if option name was given by a flag or the file (not a default), else 0. */
int config_given(const struct config *cfg, const char *name);

/* Write the effective configuration as "key=value" lines into out; returns out. */
char *config_describe(const struct config *cfg, char *out, size_t outlen);

/* Print usage to stdout. */
void config_usage(void);

#endif
