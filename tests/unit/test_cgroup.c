/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgroup: parsers on host captures and hand-made edge cases, then the real
 * thing inside a 64 MB / 100-PID sandbox: create, limit, move, provoke
 * EAGAIN and an OOM kill, kill, close.  What the module says is checked
 * against the kernel's files (/proc/PID/cgroup, memory.limit_in_bytes,
 * pids.max), read here independently.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>

#include "cgroup/cgroup.h"
#include "common/procfile.h"
#include "tests/unit/test.h"

static void test_parse_self(void)
{
	static char buf[16384];
	struct cgroup_self s;
	long n = t_fixture("cgroup.self.host", buf, sizeof buf);

	T_CHECK(n > 0, "fixture cgroup.self.host");
	T_EQ_I(cgroup_parse_self(buf, (size_t)n, &s), 0, "host /proc/self/cgroup parses");
	T_CHECK(s.has_v2 && s.has_memory && s.has_pids, "host: v2, memory and pids lines found");
	T_EQ_S(s.v2, "/", "host v2 path");
	T_EQ_S(s.memory, "/process_api/029bc2b48dc3d629cc3216ec1b0a8c3f", "host memory path");
	T_EQ_S(s.pids, "/", "host pids path");

	static const struct {
		const char *in;
		int rc, v2, mem, pids;
		const char *memp;
	} cases[] = {
		{ "0::/system.slice/fpusoakd.service\n", 0, 1, 0, 0, "" },
		{ "5:cpu,cpuacct:/a\n", 0, 0, 0, 0, "" },
		{ "4:memory:/x\n7:pids:/y\n", 0, 0, 1, 1, "/x" },
		{ "3:pids,memory:/both\n", 0, 0, 1, 1, "/both" },
		{ "4:memory:/no/newline", 0, 0, 1, 0, "/no/newline" },
		{ "garbage\n", -1, 0, 0, 0, "" },
		{ "4:memory:relative\n", -1, 0, 0, 0, "" },
		{ "0::\n", -1, 0, 0, 0, "" },
		{ ":memory:/x\n", -1, 0, 0, 0, "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = cgroup_parse_self(cases[i].in, strlen(cases[i].in), &s);
		T_EQ_I(rc, cases[i].rc, "self case %zu rc", i);
		if (rc == 0) {
			T_CHECK(s.has_v2 == cases[i].v2 && s.has_memory == cases[i].mem && s.has_pids == cases[i].pids,
				"self case %zu: v2 %d memory %d pids %d", i, s.has_v2, s.has_memory, s.has_pids);
			if (cases[i].mem)
				T_EQ_S(s.memory, cases[i].memp, "self case %zu memory path", i);
		}
	}
}

static void test_parse_mountinfo(void)
{
	static char buf[65536];
	struct cgroup_mounts m;
	long n = t_fixture("mountinfo.host", buf, sizeof buf);

	T_EQ_I(cgroup_parse_mountinfo(buf, n > 0 ? (size_t)n : 0, &m), 0, "host mountinfo parses");
	T_CHECK(m.v2.found && m.memory.found && m.pids.found, "host: cgroup2, memory and pids mounts found");
	T_EQ_S(m.v2.dir, "/sys/fs/cgroup/unified", "host cgroup2 mount point");
	T_EQ_S(m.memory.dir, "/sys/fs/cgroup/memory", "host memory mount point");
	T_EQ_S(m.pids.dir, "/sys/fs/cgroup/pids", "host pids mount point");
	T_EQ_S(m.memory.root, "/", "host memory mount root");

	static const struct {
		const char *in;
		int rc;
		const char *v2dir, *memdir, *memroot;
	} cases[] = {
		/* systemd layout, with an optional field before the separator */
		{ "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
		  0, "/sys/fs/cgroup", NULL, NULL },
		/* a container's bind-mounted subtree, mount point with an escaped blank */
		{ "40 31 0:32 /docker/abc /sys/fs/cgroup/mem\\040ory rw - cgroup cgroup rw,memory\n", 0, NULL,
		  "/sys/fs/cgroup/mem ory", "/docker/abc" },
		{ "41 31 0:33 / /cg rw - cgroup cgroup rw,pids,memory\n", 0, NULL, "/cg", "/" },
		{ "41 31 0:33 / /cg rw cgroup cgroup rw,memory\n", -1, NULL, NULL, NULL },     /* no separator */
		{ "41 31 0:33 / /c\\09 rw - cgroup cgroup rw,memory\n", -1, NULL, NULL, NULL }, /* bad escape */
		{ "41 31 0:33 / /c\\04 rw - cgroup cgroup rw,memory\n", -1, NULL, NULL, NULL }, /* short escape */
		{ "41 31\n", -1, NULL, NULL, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = cgroup_parse_mountinfo(cases[i].in, strlen(cases[i].in), &m);
		T_EQ_I(rc, cases[i].rc, "mountinfo case %zu rc", i);
		if (rc < 0)
			continue;
		if (cases[i].v2dir)
			T_EQ_S(m.v2.found ? m.v2.dir : "(none)", cases[i].v2dir, "mountinfo case %zu v2", i);
		if (cases[i].memdir) {
			T_EQ_S(m.memory.found ? m.memory.dir : "(none)", cases[i].memdir, "mountinfo case %zu memory", i);
			T_EQ_S(m.memory.root, cases[i].memroot, "mountinfo case %zu memory root", i);
		}
	}
}

static void test_parse_small(void)
{
	pid_t p[3];
	size_t n;
	uint64_t v;
	static const struct {
		const char *in;
		int rc;
		size_t n;
	} pcases[] = {
		{ "1\n22\n333\n", 0, 3 }, { "", 0, 0 }, { "7", 0, 1 }, { "0\n", -1, 0 }, { "12a\n", -1, 0 },
		{ "+1\n", -1, 0 }, { "1\n2\n3\n4\n", -1, 0 }, { "2147483648\n", -1, 0 }, { "\n", -1, 0 },
	};
	for (size_t i = 0; i < sizeof pcases / sizeof pcases[0]; i++) {
		int rc = cgroup_parse_pids(pcases[i].in, strlen(pcases[i].in), p, 3, &n);
		T_EQ_I(rc, pcases[i].rc, "pids case %zu rc", i);
		if (rc == 0)
			T_EQ_I(n, pcases[i].n, "pids case %zu count", i);
	}
	const char *ev = "low 0\nhigh 0\nmax 17\noom 3\noom_kill 2\noom_group_kill 0\n";
	const char *oc = "oom_kill_disable 0\nunder_oom 0\noom_kill 5\n";
	T_CHECK(cgroup_parse_key(ev, strlen(ev), "oom_kill", &v) == 0 && v == 2, "memory.events oom_kill = 2");
	T_CHECK(cgroup_parse_key(ev, strlen(ev), "oom", &v) == 0 && v == 3, "memory.events oom = 3 (not oom_kill)");
	T_CHECK(cgroup_parse_key(oc, strlen(oc), "oom_kill", &v) == 0 && v == 5,
		"memory.oom_control oom_kill = 5 (not oom_kill_disable)");
	T_EQ_I(cgroup_parse_key(oc, strlen(oc), "max", &v), -1, "absent key");
	T_EQ_I(cgroup_parse_key("oom_kill x\n", 11, "oom_kill", &v), -1, "junk value");
	T_EQ_I(cgroup_has_word("cpu io memory pids\n", 19, "memory"), 1, "controllers: memory");
	T_EQ_I(cgroup_has_word("hugetlb\n", 8, "memory"), 0, "controllers: no memory");
	T_EQ_I(cgroup_has_word("memory_x\n", 9, "memory"), 0, "controllers: prefix is not a match");
}

/* ---- live ---------------------------------------------------------------------------------- */

/* The line of /proc/PID/cgroup for a hierarchy ("memory", "pids", or "" for v2), read independently. */
static int proc_cgroup(pid_t pid, const char *ctrl, char *out, size_t outlen)
{
	char rel[64], buf[8192];
	ssize_t n;

	snprintf(rel, sizeof rel, "proc/%d/cgroup", (int)pid);
	n = procfile_read(NULL, rel, buf, sizeof buf);
	if (n < 0)
		return -1;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		if ((!*ctrl && c1[1] == 0) || (*ctrl && strstr(c1 + 1, ctrl))) {
			snprintf(out, outlen, "%s", c2 + 1);
			return 0;
		}
	}
	return -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static long read_num(const char *dir, const char *file)
{
	char p[2048], buf[64];

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if (procfile_read(NULL, p, buf, sizeof buf) < 0)
		return -2;
	if (strncmp(buf, "max", 3) == 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* A child that moves itself into cg (as workers do), then waits to be killed (30 s cap). */
static pid_t sleeper(const struct cgroup *cg, int move)
{
	pid_t p = fork();

	if (p == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		if (move && write(cgroup_child_fd(cg), "0", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	return p;
}

static void wait_moved(pid_t p, const char *ctrl, const char *suffix)
{
	char path[1024] = "";

	for (int i = 0; i < 200; i++) {
		if (proc_cgroup(p, ctrl, path, sizeof path) == 0 && ends_with(path, suffix))
			return;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

static void test_v1_workers(const char *sbname)
{
	char err[256], path[1024], suffix[256];
	struct cgroup *w;
	pid_t kids[40];
	int nk = 0;
	uint64_t oom0, oom1, cur, peak;

	w = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .name = "w", .memory_max = 16u << 20, .pids_max = 20 },
			err, sizeof err);
	T_CHECK(w != NULL, "v1 workers group created inside the sandbox (%s)", w ? "" : err);
	if (!w)
		return;
	T_EQ_I(cgroup_version(w), CGROUP_V1, "version v1");
	T_EQ_I(read_num(cgroup_dir(w), "memory.limit_in_bytes"), 16 << 20, "kernel shows the 16M memory limit");
	T_EQ_I(read_num(cgroup_dir(w), "memory.memsw.limit_in_bytes"), 16 << 20, "memsw pinned to the same limit");
	T_EQ_I(read_num(cgroup_pids_dir(w), "pids.max"), 20, "kernel shows pids.max 20");
	snprintf(suffix, sizeof suffix, "/%s/w", sbname);
	T_CHECK(ends_with(cgroup_dir(w), suffix), "group lives under the sandbox (%s)", cgroup_dir(w));

	/* Move: children write "0" as workers do; /proc/PID/cgroup must agree. */
	for (int i = 0; i < 3; i++)
		kids[nk++] = sleeper(w, 1);
	for (int i = 0; i < 3; i++)
		wait_moved(kids[i], "memory", suffix);
	pid_t listed[64];
	size_t nl = 0;
	T_EQ_I(cgroup_procs(w, listed, 64, &nl), 0, "list procs");
	T_EQ_I(nl, 3, "three children listed");
	int match = 0;
	for (size_t i = 0; i < nl; i++)
		for (int j = 0; j < 3; j++)
			match += listed[i] == kids[j];
	T_EQ_I(match, 3, "the listed PIDs are exactly our children");
	T_CHECK(proc_cgroup(kids[0], "memory", path, sizeof path) == 0 && ends_with(path, suffix),
		"/proc/PID/cgroup shows the child in the memory group (%s)", path);

	/* cgroup_kill must not touch a process outside the group. */
	pid_t outsider = sleeper(w, 0);
	T_EQ_I(cgroup_kill(w, SIGTERM), 3, "cgroup_kill signals the 3 members");
	for (int i = 0; i < 3; i++) {
		int st = 0;
		waitpid(kids[i], &st, 0);
		T_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "member %d died of SIGTERM", i);
	}
	T_EQ_I(kill(outsider, 0), 0, "the child outside the group survived");
	kill(outsider, SIGKILL);
	waitpid(outsider, NULL, 0);
	nk = 0;

	/* pids.max: fork from inside the pids group (as the spawner does) until EAGAIN. */
	T_EQ_I(cgroup_enter_pids(w), 0, "enter the pids group");
	int ok = 0, eagain = 0;
	while (nk < 40) {
		pid_t p = sleeper(w, 0);
		if (p < 0) {
			eagain = errno == EAGAIN;
			break;
		}
		kids[nk++] = p;
		ok++;
	}
	T_EQ_I(ok, 19, "19 forks fit under pids.max 20 (we count as one)");
	T_CHECK(eagain, "the next fork fails with EAGAIN");
	/* The memory group too (the spawner's v1 place): a fork from there is born there, no move. */
	T_EQ_I(cgroup_enter_memory(w), 0, "enter the memory group");
	T_CHECK(proc_cgroup(getpid(), "memory", path, sizeof path) == 0 && ends_with(path, "/w"),
		"we are in the memory group (%s)", path);
	for (int i = 0; i < nk; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < nk; i++)
		waitpid(kids[i], NULL, 0);
	nk = 0;
	pid_t born = sleeper(w, 0);
	T_CHECK(born > 0 && proc_cgroup(born, "memory", path, sizeof path) == 0 && ends_with(path, "/w"),
		"a child forked there is born in the memory group (%s)", path);
	if (born > 0)
		kids[nk++] = born;
	T_EQ_I(cgroup_leave(w), 0, "leave the pids and memory groups");
	T_CHECK(proc_cgroup(getpid(), "pids", path, sizeof path) == 0 && !ends_with(path, "/w"),
		"we are out of the pids group (%s)", path);
	T_CHECK(proc_cgroup(getpid(), "memory", path, sizeof path) == 0 && !ends_with(path, "/w"),
		"we are out of the memory group (%s)", path);
	for (int i = 0; i < nk; i++)
		kill(kids[i], SIGKILL);
	for (int i = 0; i < nk; i++)
		waitpid(kids[i], NULL, 0);
	nk = 0;

	/* OOM: a child touching 32 MB in a 16 MB group is killed and counted. */
	T_EQ_I(cgroup_oom_kills(w, &oom0), 0, "read oom_kill");
	pid_t hog = fork();
	if (hog == 0) {
		alarm(20);
		if (write(cgroup_child_fd(w), "0", 1) != 1)
			_exit(2);
		size_t sz = 32u << 20;
		char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(3);
		for (size_t i = 0; i < sz; i += 4096)
			m[i] = 1;
		_exit(0);
	}
	int st = 0;
	waitpid(hog, &st, 0);
	T_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the 32 MB hog is killed by SIGKILL (0x%x)", st);
	T_EQ_I(cgroup_oom_kills(w, &oom1), 0, "read oom_kill again");
	T_EQ_I(oom1 - oom0, 1, "oom_kill counter rose by exactly one");
	T_EQ_I(cgroup_memory_usage(w, &cur, &peak), 0, "read memory usage");
	T_CHECK(peak > (12u << 20) && peak <= (16u << 20), "peak usage %llu is near and within the 16M limit",
		(unsigned long long)peak);

	/* Raise to unlimited and lower again: v1 needs memsw and memory written in the right order. */
	T_EQ_I(cgroup_set_memory_max(w, 0), 0, "raise to no limit");
	T_CHECK(read_num(cgroup_dir(w), "memory.limit_in_bytes") > (1L << 40), "kernel shows no limit");
	T_EQ_I(cgroup_set_memory_max(w, 8u << 20), 0, "lower to 8M");
	T_EQ_I(read_num(cgroup_dir(w), "memory.limit_in_bytes"), 8 << 20, "kernel shows 8M");
	T_EQ_I(read_num(cgroup_dir(w), "memory.memsw.limit_in_bytes"), 8 << 20, "memsw 8M");
	T_EQ_I(cgroup_memory_max(w), 8 << 20, "module remembers 8M");

	/* Close with members left: they are killed, reaped (ours), and the dirs go. */
	for (int i = 0; i < 3; i++)
		kids[nk++] = sleeper(w, 1);
	for (int i = 0; i < 3; i++)
		wait_moved(kids[i], "memory", suffix);
	char dir[1024], pdir[1024];
	snprintf(dir, sizeof dir, "%s", cgroup_dir(w));
	snprintf(pdir, sizeof pdir, "%s", cgroup_pids_dir(w));
	cgroup_close(w);
	T_CHECK(access(dir, F_OK) < 0 && errno == ENOENT, "memory group removed");
	T_CHECK(access(pdir, F_OK) < 0 && errno == ENOENT, "pids group removed");
	int reaped = 0;
	for (int i = 0; i < nk; i++)
		reaped += waitpid(kids[i], NULL, WNOHANG) < 0 && errno == ECHILD;
	T_EQ_I(reaped, 3, "close killed and reaped the 3 members");

	/* Adopt an empty leftover; refuse one with a process in it. */
	char again[1024];
	snprintf(again, sizeof again, "%s", dir);
	T_EQ_I(mkdir(again, 0755), 0, "leave an empty leftover group");
	w = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .name = "w", .memory_max = 16u << 20 }, err, sizeof err);
	T_CHECK(w != NULL, "an empty leftover is adopted (%s)", w ? "" : err);
	pid_t squat = w ? sleeper(w, 1) : -1;
	if (squat > 0)
		wait_moved(squat, "memory", suffix);
	struct cgroup *w2 = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .name = "w" }, err, sizeof err);
	T_CHECK(w2 == NULL && strstr(err, "has processes"), "a group with a process in it is refused (%s)", err);
	cgroup_close(w2);
	cgroup_close(w);
	T_CHECK(squat < 0 || (waitpid(squat, NULL, WNOHANG) < 0 && errno == ECHILD), "squatter killed and reaped");
}

/* Per-instance names: a pure function of the instance key (the daemon's canonical DB path). */
static void test_instance_names(void)
{
	char a[80], b[80], c[80];

	T_EQ_I(cgroup_instance_name("/var/lib/fpusoakd/fpusoakd.db", CGROUP_V1, a, sizeof a), 0, "v1 name");
	T_CHECK(strncmp(a, "fpusoakd-workers-", 17) == 0 && strlen(a) == 17 + 12, "v1: fpusoakd-workers-<12 hex> (%s)", a);
	T_EQ_I(cgroup_instance_name("/var/lib/fpusoakd/fpusoakd.db", CGROUP_V2, b, sizeof b), 0, "v2 name");
	T_CHECK(strncmp(b, "workers-", 8) == 0 && strcmp(a + 17, b + 8) == 0, "v2: workers-<same hash> (%s)", b);
	T_EQ_I(cgroup_instance_name("/var/lib/fpusoakd/fpusoakd.db", CGROUP_V1, c, sizeof c), 0, "again");
	T_EQ_S(c, a, "the same key gives the same name (a crashed instance's group is found again)");
	T_EQ_I(cgroup_instance_name("/var/lib/fpusoakd/other.db", CGROUP_V1, c, sizeof c), 0, "another key");
	T_CHECK(strcmp(c, a) != 0, "another DB, another group (%s vs %s)", c, a);
	T_EQ_I(cgroup_instance_name("/var/lib/fpusoakd/fpusoakd.db", CGROUP_V1, c, 20), -1, "too small a buffer: -1");
	T_EQ_I(cgroup_instance_name(NULL, CGROUP_V1, c, sizeof c), -1, "no key: -1");
	T_EQ_I(cgroup_instance_name("/x", CGROUP_NONE, c, sizeof c), -1, "no version: -1");
}

/* Two instances under one parent (the shared v1 hierarchy) never share a group. */
static void test_two_instances(const char *sbname)
{
	char err[256], da[1024] = "", db[1024] = "", suffix[256];
	struct cgroup *a, *b;
	struct cgroup_effective ea, eb;

	a = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .key = "/tmp/a.db", .memory_max = 16u << 20, .pids_max = 20 },
			err, sizeof err);
	T_CHECK(a != NULL, "instance A confined (%s)", a ? cgroup_dir(a) : err);
	pid_t pa = a ? sleeper(a, 1) : -1;
	if (pa > 0) {
		snprintf(suffix, sizeof suffix, "/%s", strrchr(cgroup_dir(a), '/') + 1);
		wait_moved(pa, "memory", suffix);
	}
	b = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .key = "/tmp/b.db", .memory_max = 32u << 20, .pids_max = 30 },
			err, sizeof err);
	T_CHECK(b != NULL, "instance B confined too, while A's group holds a process (%s)", b ? cgroup_dir(b) : err);
	if (a && b) {
		snprintf(da, sizeof da, "%s", cgroup_dir(a));
		snprintf(db, sizeof db, "%s", cgroup_dir(b));
		T_CHECK(strcmp(da, db) != 0, "their groups differ (%s, %s)", da, db);
		T_CHECK(strcmp(cgroup_pids_dir(a), cgroup_pids_dir(b)) != 0, "their pids groups differ");
		snprintf(suffix, sizeof suffix, "/%s/", sbname);
		T_CHECK(strstr(da, suffix) != NULL, "A's group is under the sandbox (%s)", da);
		T_EQ_I(cgroup_effective(a, &ea), 0, "A's effective confinement");
		T_EQ_I(cgroup_effective(b, &eb), 0, "B's effective confinement");
		T_EQ_I(ea.memory_max, 16u << 20, "A: memory limit read back from the kernel");
		T_EQ_I(eb.memory_max, 32u << 20, "B: memory limit read back from the kernel");
		T_EQ_I(ea.pids_max, 20, "A: pids.max read back");
		T_EQ_I(eb.pids_max, 30, "B: pids.max read back");
		T_EQ_I(read_num(da, "memory.limit_in_bytes"), 16 << 20, "and the kernel agrees for A");
		T_EQ_I(read_num(db, "memory.limit_in_bytes"), 32 << 20, "and for B");
	}
	cgroup_close(b);
	cgroup_close(a);
	T_CHECK(!da[0] || (access(da, F_OK) < 0 && access(db, F_OK) < 0), "both groups removed at close");
	T_CHECK(pa < 0 || (waitpid(pa, NULL, WNOHANG) < 0 && errno == ECHILD), "A's member killed and reaped");

	/* A crashed instance's empty group (same key) is adopted and removed; nobody else's is touched. */
	char stale[1024], other[1024], name[80];
	struct cgroup *r;
	snprintf(stale, sizeof stale, "%s", da);
	T_EQ_I(cgroup_instance_name("/tmp/c.db", CGROUP_V1, name, sizeof name), 0, "name of another instance");
	snprintf(other, sizeof other, "%.*s/%s", (int)(strrchr(da, '/') - da), da, name);
	T_CHECK(da[0] && mkdir(stale, 0755) == 0 && mkdir(other, 0755) == 0, "leave two empty groups as a crash would");
	r = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V1, .key = "/tmp/a.db", .memory_max = 16u << 20 }, err, sizeof err);
	T_CHECK(r != NULL && strcmp(cgroup_dir(r), stale) == 0, "A again adopts its own leftover (%s)", r ? "" : err);
	cgroup_close(r);
	T_CHECK(access(stale, F_OK) < 0, "and removes it at close");
	T_CHECK(access(other, F_OK) == 0, "another instance's group is left alone");
	rmdir(other);
}

/* An unprivileged process cannot create a group: a clear error, nothing created. */
static void test_no_permission(void)
{
	int fds[2];
	char err[256] = "";

	if (pipe(fds) < 0)
		return;
	pid_t p = fork();
	if (p == 0) {
		alarm(10);
		close(fds[0]);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		struct cgroup *cg = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_AUTO, .name = "nope", .memory_max = 1u << 20 },
						 err, sizeof err);
		if (write(fds[1], err, strlen(err) + 1) < 0)
			_exit(4);
		_exit(cg ? 3 : 0);
	}
	close(fds[1]);
	ssize_t n = read(fds[0], err, sizeof err - 1);
	close(fds[0]);
	err[n > 0 ? n : 0] = 0;
	int st = 0;
	waitpid(p, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "as nobody, cgroup_open fails (status 0x%x)", st);
	T_CHECK(strstr(err, "Permission denied") != NULL, "and says why: %s", err);
}

/* v2 mechanics in the unified hierarchy (no controllers needed): leaf move, clone3 into the group. */
static void test_v2(void)
{
	char err[256], name[64], path[1024];
	struct cgroup *outer, *w;

	snprintf(name, sizeof name, "fpusoak-test-v2-%d", (int)getpid());
	outer = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V2, .name = name, .enter = 1 }, err, sizeof err);
	if (!outer) {
		T_SKIP("no usable cgroup2 hierarchy: %s", err);
		return;
	}
	T_CHECK(proc_cgroup(getpid(), "", path, sizeof path) == 0 && ends_with(path, name), "entered %s", path);
	w = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_V2, .name = "workers", .leaf_self = 1 }, err, sizeof err);
	T_CHECK(w != NULL, "v2 workers group with the daemon leaf (%s)", w ? "" : err);
	if (w) {
		T_CHECK(proc_cgroup(getpid(), "", path, sizeof path) == 0 && ends_with(path, "/daemon"),
			"we moved into the daemon leaf (%s)", path);
		struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD,
					 .cgroup = (uint64_t)cgroup_clone_fd(w) };
		pid_t p = (pid_t)syscall(SYS_clone3, &ca, sizeof ca);
		if (p == 0) {
			alarm(30);
			for (;;)
				pause();
		}
		T_CHECK(p > 0, "clone3(CLONE_INTO_CGROUP) works");
		T_CHECK(p > 0 && proc_cgroup(p, "", path, sizeof path) == 0 && ends_with(path, "/workers"),
			"the child was born in workers (%s)", path);
		cgroup_close(w);
		T_CHECK(p > 0 && waitpid(p, NULL, WNOHANG) < 0 && errno == ECHILD, "close killed and reaped it");
		T_CHECK(proc_cgroup(getpid(), "", path, sizeof path) == 0 && ends_with(path, name),
			"close moved us back out of the leaf (%s)", path);
	}
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", cgroup_dir(outer));
	cgroup_close(outer);
	T_CHECK(access(dir, F_OK) < 0, "outer v2 group removed");
}

int main(void)
{
	char err[256], name[64], path[1024];
	struct cgroup *sb;

	alarm(120);
	test_parse_self();
	test_parse_mountinfo();
	test_parse_small();
	test_instance_names();

	snprintf(name, sizeof name, "fpusoak-test-cg-%d", (int)getpid());
	sb = cgroup_open(&(struct cgroup_cfg){ .ver = CGROUP_AUTO, .name = name, .enter = 1,
					      .memory_max = 64u << 20, .pids_max = 100 },
			 err, sizeof err);
	if (!sb) {
		T_SKIP("cannot create a sandbox cgroup (%s): live tests skipped", err);
		T_DONE();
	}
	T_CHECK(proc_cgroup(getpid(), "memory", path, sizeof path) == 0 && ends_with(path, name),
		"sandbox entered (memory %s)", path);
	if (cgroup_version(sb) == CGROUP_V1) {
		test_v1_workers(name);
		test_two_instances(name);
	} else
		T_SKIP("sandbox is v2: v1 worker tests skipped");
	test_no_permission();
	test_v2();
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", cgroup_dir(sb));
	cgroup_close(sb);
	T_CHECK(access(dir, F_OK) < 0, "sandbox removed");
	T_CHECK(proc_cgroup(getpid(), "memory", path, sizeof path) == 0 && !ends_with(path, name),
		"we are back where we started (%s)", path);
	T_DONE();
}
