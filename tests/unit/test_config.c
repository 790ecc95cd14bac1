/* SPDX-License-Identifier: GPL-2.0-only */
/* test_config: flags, the INI file, precedence and every kind of bad value. */
#include <stdlib.h>
#include <unistd.h>

#include "daemon/config.h"
#include "test.h"

static struct config cfg;

static int load(const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = "fpusoakd";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return config_load(&cfg, argc, argv);
}

static const char *write_conf(const char *text)
{
	static char path[] = "/tmp/fpusoak-test-conf-XXXXXX";
	int fd;

	snprintf(path, sizeof path, "/tmp/fpusoak-test-conf-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

int main(void)
{
	unsetenv("STATE_DIRECTORY");
	T_EQ_I(load((const char *[]){ NULL }), 0, "no arguments: defaults");
	T_EQ_S(cfg.db, "./fpusoakd.db", "default db");
	T_EQ_S(cfg.listen, "127.0.0.1:8089", "default listen");
	T_EQ_I(cfg.sample_interval_ms, 1000, "default sample interval");
	T_EQ_I(cfg.slow_interval_ms, 60000, "default slow interval");
	T_EQ_I(cfg.duration_ms, 0, "default duration");

	setenv("STATE_DIRECTORY", "/var/lib/fpusoakd:/other", 1);
	T_EQ_I(load((const char *[]){ NULL }), 0, "STATE_DIRECTORY");
	T_EQ_S(cfg.db, "/var/lib/fpusoakd/fpusoakd.db", "db under the first STATE_DIRECTORY");
	unsetenv("STATE_DIRECTORY");

	T_EQ_I(load((const char *[]){ "--sample-interval", "250ms", "--duration", "2h", "--listen", "none",
				      "--label", "gfp-atomic", NULL }), 0, "flags");
	T_EQ_I(cfg.sample_interval_ms, 250, "--sample-interval 250ms");
	T_EQ_I(cfg.duration_ms, 7200000, "--duration 2h");
	T_EQ_S(cfg.listen, "none", "--listen none");
	T_EQ_S(cfg.label, "gfp-atomic", "--label");
	T_EQ_I(load((const char *[]){ "--sample-interval=2s", NULL }), 0, "--flag=value form");
	T_EQ_I(cfg.sample_interval_ms, 2000, "--sample-interval=2s");

	T_EQ_I(load((const char *[]){ "--sample-interval", "fast", NULL }), 64, "bad duration: exit 64");
	T_EQ_I(load((const char *[]){ "--sample-interval", "1ms", NULL }), 64, "too short interval: exit 64");
	T_EQ_I(load((const char *[]){ "--bogus", NULL }), 64, "unknown flag: exit 64");
	T_EQ_I(load((const char *[]){ "--db", NULL }), 64, "missing value: exit 64");
	T_EQ_I(load((const char *[]){ "stray", NULL }), 64, "stray argument: exit 64");
	T_EQ_I(load((const char *[]){ "--log-level", "loud", NULL }), 64, "bad log level: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "8089", NULL }), 64, "listen without port: exit 64");
	T_EQ_I(load((const char *[]){ "--help", NULL }), 1, "--help: print and exit 0");
	T_EQ_I(load((const char *[]){ "--version", NULL }), 1, "--version: print and exit 0");

	const char *p = write_conf("# comment\n[fpusoakd]\nsample-interval = 500ms\nlabel = from file\n"
				   "duration = 10s\n");
	T_EQ_I(load((const char *[]){ "-c", p, "--duration", "20s", NULL }), 0, "config file + flags");
	T_EQ_I(cfg.sample_interval_ms, 500, "file sets sample-interval");
	T_EQ_S(cfg.label, "from file", "file sets label");
	T_EQ_I(cfg.duration_ms, 20000, "flag wins over file");
	unlink(p);

	p = write_conf("[fpusoakd]\nsample-interval = 1s\nsample-intervall = 2s\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "unknown key: exit 78");
	unlink(p);
	p = write_conf("[fpusoakd]\n\nduration = soon\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "bad value in file: exit 78");
	unlink(p);
	p = write_conf("[other]\nduration = 1s\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "unknown section: exit 78");
	unlink(p);
	p = write_conf("this is not ini\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "syntax error: exit 78");
	unlink(p);
	T_EQ_I(load((const char *[]){ "-c", "/nonexistent/fpusoakd.conf", NULL }), 78, "missing file: exit 78");

	/* --listen is checked whole at parse time, not when the server starts after the run row. */
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:99999", NULL }), 64, "--listen port 99999: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:0", NULL }), 64, "--listen port 0: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:", NULL }), 64, "--listen empty port: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "localhost:8089", NULL }), 64, "--listen host name: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:08089", NULL }), 64, "--listen leading zero: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "[::1:8089", NULL }), 64, "--listen unclosed [: exit 64");
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:65535", NULL }), 0, "--listen port 65535");
	T_EQ_I(load((const char *[]){ "--listen", "127.0.0.1:1", NULL }), 0, "--listen port 1");
	T_EQ_I(load((const char *[]){ "--listen", "[::1]:8089", NULL }), 0, "--listen [::1]:8089");
	p = write_conf("[fpusoakd]\nlisten = 127.0.0.1:70000\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "listen port 70000 in the file: exit 78");
	unlink(p);

	/* Each option is given once: a second value is a mistake, never a silent override. */
	T_EQ_I(load((const char *[]){ "--db", "a.db", "--db", "b.db", NULL }), 64, "--db twice: exit 64");
	T_EQ_I(load((const char *[]){ "--workers", "1", "--workers=2", NULL }), 64, "--workers twice: exit 64");
	T_EQ_I(load((const char *[]){ "-c", "/x", "-c", "/y", NULL }), 64, "-c twice: exit 64");
	p = write_conf("[fpusoakd]\nworkers = 4\nlabel = x\nworkers = 8\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "duplicate key in the file: exit 78");
	unlink(p);
	p = write_conf("[fpusoakd]\nworkers = 4\n");
	T_EQ_I(load((const char *[]){ "-c", p, "--workers", "8", NULL }), 0, "a flag over a file key is no duplicate");
	T_EQ_I(cfg.workers, 8, "and the flag wins");
	unlink(p);

	/* --allow-unconfined, and which limits the user asked for explicitly. */
	T_EQ_I(load((const char *[]){ NULL }), 0, "defaults");
	T_EQ_I(cfg.allow_unconfined, 0, "unconfined runs are not allowed by default");
	T_EQ_I(config_limits_explicit(&cfg), 0, "default limits are not explicit");
	T_EQ_I(load((const char *[]){ "--cgroup-memory-max", "48M", NULL }), 0, "--cgroup-memory-max 48M");
	T_EQ_I(config_limits_explicit(&cfg), 1, "a memory limit given as a flag is explicit");
	T_EQ_I(load((const char *[]){ "--cgroup-memory-max", "0", "--cgroup-pids-max", "0", NULL }), 0, "limits 0");
	T_EQ_I(config_limits_explicit(&cfg), 0, "asking for no limit is not asking for a limit");
	T_EQ_I(load((const char *[]){ "--allow-unconfined", NULL }), 0, "--allow-unconfined takes no value");
	T_EQ_I(cfg.allow_unconfined, 1, "--allow-unconfined sets it");
	T_EQ_I(load((const char *[]){ "--allow-unconfined", "--allow-unconfined", NULL }), 64, "--allow-unconfined twice: 64");
	p = write_conf("[fpusoakd]\ncgroup-pids-max = 100\nallow-unconfined = yes\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 0, "allow-unconfined and a pids limit in the file");
	T_EQ_I(cfg.allow_unconfined, 1, "allow-unconfined = yes");
	T_EQ_I(config_limits_explicit(&cfg), 1, "a pids limit from the file is explicit");
	unlink(p);
	p = write_conf("[fpusoakd]\nallow-unconfined = maybe\n");
	T_EQ_I(load((const char *[]){ "-c", p, NULL }), 78, "allow-unconfined = maybe: exit 78");
	unlink(p);

	char out[4096];
	T_EQ_I(load((const char *[]){ "--sample-interval", "250ms", NULL }), 0, "describe setup");
	config_describe(&cfg, out, sizeof out);
	T_CHECK(strstr(out, "sample-interval=250ms\n") != NULL, "describe shows sample-interval=250ms");

	/* The computed default of model-check-interval: described as "auto", and "auto" loads back to it
	 * (fuzz_config's fixed point failed on an empty file before). */
	T_EQ_I(load((const char *[]){ NULL }), 0, "defaults");
	T_EQ_I(cfg.model_check_interval_ms, -1, "model-check-interval: computed at start (-1)");
	config_describe(&cfg, out, sizeof out);
	T_CHECK(strstr(out, "model-check-interval=auto\n") != NULL, "describe shows model-check-interval=auto");
	{
		char text[4200];
		snprintf(text, sizeof text, "[fpusoakd]\n%s", out);
		p = write_conf(text);
		T_EQ_I(load((const char *[]){ "-c", p, NULL }), 0, "the described defaults load back");
		T_EQ_I(cfg.model_check_interval_ms, -1, "... model-check-interval auto again");
		unlink(p);
	}
	T_EQ_I(load((const char *[]){ "--model-check-interval", "5s", NULL }), 0, "--model-check-interval 5s");
	T_EQ_I(cfg.model_check_interval_ms, 5000, "... 5000 ms");
	T_EQ_I(load((const char *[]){ "--sample-interval", "auto", NULL }), 64, "auto is only for a computed default");
	T_DONE();
}
