/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_import: `fpusoakd import --db TARGET SOURCE.db...`, the runs of other
 * databases copied into one (store_import, store/import.c), so runs from two
 * guests compare in one file and one page; and `fpusoakd upgrade --db FILE`,
 * an older database migrated in place (store_upgrade) without a run added.
 */
#include "daemon/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "store/store.h"

#define EX_OK 0
#define EX_FAIL 1
#define EX_USAGE 64
#define MAX_SOURCES 256

static void usage(FILE *f)
{
	fprintf(f, "usage: fpusoakd import --db TARGET SOURCE.db [SOURCE.db...]\n"
		   "  Copy every run of each SOURCE into TARGET (created if absent), with\n"
		   "  where it came from (v_imports: source file, its run id there, host,\n"
		   "  boot id).  A run TARGET already has (same host, boot id, pid and\n"
		   "  start) is skipped, so importing twice adds nothing.  A SOURCE is only\n"
		   "  read, never changed; one written by a newer fpusoakd is refused.\n"
		   "  TARGET must not be in use by a running daemon.\n"
		   "Exit status: 0; 1 if TARGET cannot be used or a SOURCE could not be\n"
		   "imported (the others still are); 64 for bad arguments.\n");
}

static int bad(const char *msg, const char *arg)
{
	fprintf(stderr, "fpusoakd import: %s%s%s\n(fpusoakd import --help for usage)\n", msg, arg ? arg : "",
		arg ? "'" : "");
	return EX_USAGE;
}

struct tally {
	const char *source;
	int copied, present;
};

static void on_run(void *arg, int64_t from, int64_t to, int already)
{
	struct tally *t = arg;

	if (already) {
		printf("%s: run %" PRId64 " is already here as run %" PRId64 "\n", t->source, from, to);
		t->present++;
	} else {
		printf("%s: run %" PRId64 " -> run %" PRId64 "\n", t->source, from, to);
		t->copied++;
	}
}

int cli_import_main(int argc, char **argv)
{
	const char *target = NULL, *src[MAX_SOURCES];
	struct store *st;
	char err[1024];
	int n = 0, failed = 0, copied = 0, present = 0, created;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return EX_OK;
		}
		if (!strcmp(argv[i], "--db")) {
			if (i + 1 == argc)
				return bad("--db needs a value", NULL);
			if (target)
				return bad("--db given twice: import has one target; the sources are the other arguments", NULL);
			target = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return bad("unknown argument '", argv[i]);
		} else if (n == MAX_SOURCES) {
			return bad("too many sources", NULL);
		} else {
			src[n++] = argv[i];
		}
	}
	if (!target)
		return bad("--db TARGET is required", NULL);
	if (!n)
		return bad("no SOURCE database given", NULL);
	log_init(LOG_LVL_WARN);   /* the lines below say what happened; the store's migration notices would not help */
	created = access(target, F_OK) != 0 && errno == ENOENT;
	if (!(st = store_open(target, 1 << 20, err, sizeof err))) {
		fprintf(stderr, "fpusoakd import: %s\n", err);
		return EX_FAIL;
	}
	for (int i = 0; i < n; i++) {
		struct tally t = { src[i], 0, 0 };
		if (store_import(st, src[i], on_run, &t, err, sizeof err) < 0) {
			fprintf(stderr, "fpusoakd import: %s: %s (nothing of it imported)\n", src[i], err);
			failed++;
			continue;
		}
		copied += t.copied;
		present += t.present;
	}
	store_close(st);
	if (created && failed == n) {
		/* Nothing could be read: the target this made is removed, not left behind as an empty database. */
		static const char *const suffix[3] = { "", "-wal", "-shm" };
		for (int i = 0; i < 3; i++) {
			char p[4096];
			if ((size_t)snprintf(p, sizeof p, "%s%s", target, suffix[i]) < sizeof p)
				unlink(p);
		}
		printf("imported nothing: %s not created\n", target);
		return EX_FAIL;
	}
	printf("imported %d run%s into %s; %d already there%s\n", copied, copied == 1 ? "" : "s", target, present,
	       failed ? "; some sources failed (see above)" : "");
	return failed ? EX_FAIL : EX_OK;
}

static void upgrade_usage(FILE *f)
{
	fprintf(f, "usage: fpusoakd upgrade --db FILE\n"
		   "  Migrate FILE, a database an older fpusoakd wrote, to this fpusoakd's\n"
		   "  schema in place, so serve, summary and report read it.  No run is\n"
		   "  added (starting the daemon on it would add one from this machine).\n"
		   "  A copy of FILE is made first, beside it, as FILE.schemaN.bak.  To\n"
		   "  keep FILE as it is, import its runs into another database instead:\n"
		   "  fpusoakd import --db NEW.db FILE.\n"
		   "Exit status: 0 (upgraded, or nothing to do); 1 if FILE cannot be\n"
		   "upgraded (it is then as it was); 64 for bad arguments.\n");
}

int cli_upgrade_main(int argc, char **argv)
{
	const char *path = NULL;
	char err[1024], backup[4200];
	int from, to;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			upgrade_usage(stdout);
			return EX_OK;
		}
		if (!strcmp(argv[i], "--db") && i + 1 < argc && !path) {
			path = argv[++i];
		} else {
			fprintf(stderr, "fpusoakd upgrade: %s '%s'\n(fpusoakd upgrade --help for usage)\n",
				!strcmp(argv[i], "--db") ? (path ? "--db given twice:" : "--db needs a value:") : "unknown argument",
				argv[i]);
			return EX_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, "fpusoakd upgrade: --db FILE is required\n(fpusoakd upgrade --help for usage)\n");
		return EX_USAGE;
	}
	log_init(LOG_LVL_WARN);
	if (store_upgrade(path, backup, sizeof backup, &from, &to, err, sizeof err) < 0) {
		fprintf(stderr, "fpusoakd upgrade: %s: %s\n", path, err);
		return EX_FAIL;
	}
	if (!backup[0])
		printf("%s is at schema %d already: nothing to do\n", path, to);
	else
		printf("upgraded %s from schema %d to %d, no run added; the file as it was: %s\n", path, from, to, backup);
	return EX_OK;
}
