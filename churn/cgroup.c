/* cgroup: create, limit, watch and empty the workers' cgroup (v1 or v2); see cgroup.h. */
#define _GNU_SOURCE
#include "churn/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/procfile.h"
#include "common/num.h"

#define MOUNTINFO_MAX (1u << 20)   /* container hosts have thousands of mounts; more is an error */
#define SELF_MAX 16384
#define PROCS_MAX (1u << 20)       /* cgroup.procs: ~7 bytes per PID, >100k PIDs */
#define KILL_DEPTH 8               /* we never nest deeper than sandbox/workers */

enum { CTRL_MEMORY = 1, CTRL_PIDS = 2 };

struct cgroup {
	enum cgroup_ver ver;
	char dir[CGROUP_PATH_MAX];       /* memory group (v2: the group) */
	char pids_dir[CGROUP_PATH_MAX];  /* v1 pids group, "" if none; v2: = dir */
	char rel[CGROUP_PATH_MAX];       /* dir relative to its hierarchy root, as /proc/PID/cgroup shows it */
	char pids_rel[CGROUP_PATH_MAX];
	char own[CGROUP_PATH_MAX];       /* where the caller was: v2 dir / v1 memory dir */
	char own_pids[CGROUP_PATH_MAX];  /* v1 pids dir the caller was in */
	char leaf[CGROUP_PATH_MAX];      /* v2 <own>/daemon */
	int created, created_pids, created_leaf, moved_leaf, entered, entered_pids;
	unsigned enabled;                /* v2 controllers this open enabled in <own>/cgroup.subtree_control */
	int pids_ctl;                    /* the group has a pids.max to write */
	int child_fd, clone_fd, pids_procs_fd, oom_fd;
	uint64_t mem_max, pids_max;
};

/* ---- pure parsers -------------------------------------------------------------------------- */

/* Next line of buf[0..len) from *pos: sets *l, *ll (without '\n'); 0, or -1 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **l, size_t *ll)
{
	const char *nl;

	if (*pos >= len)
		return -1;
	*l = buf + *pos;
	nl = memchr(*l, '\n', len - *pos);
	*ll = nl ? (size_t)(nl - *l) : len - *pos;
	*pos += *ll + (nl ? 1 : 0);
	return 0;
}

static int copy_span(char *out, size_t outlen, const char *s, size_t n)
{
	if (n >= outlen || memchr(s, 0, n))
		return -1;
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

/* Is w one of the sep-separated words of s[0..n)? */
static int has_token(const char *s, size_t n, const char *w, char sep)
{
	size_t wl = strlen(w), i = 0;

	while (i <= n) {
		const char *e = memchr(s + i, sep, n - i);
		size_t tl = e ? (size_t)(e - (s + i)) : n - i;
		if (tl == wl && memcmp(s + i, w, wl) == 0)
			return 1;
		if (!e)
			break;
		i += tl + 1;
	}
	return 0;
}

int cgroup_has_word(const char *buf, size_t len, const char *w)
{
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	return len > 0 && has_token(buf, len, w, ' ');
}

int cgroup_parse_self(const char *buf, size_t len, struct cgroup_self *out)
{
	size_t pos = 0, ll;
	const char *l;

	memset(out, 0, sizeof *out);
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		const char *c1, *c2;
		size_t cl;
		if (ll == 0)
			continue;
		c1 = memchr(l, ':', ll);
		c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - l)) : NULL;
		if (!c1 || !c2 || c1 == l)
			return -1;
		const char *path = c2 + 1;
		size_t pl = ll - (size_t)(path - l);
		if (pl == 0 || path[0] != '/')
			return -1;
		cl = (size_t)(c2 - c1 - 1);
		if (c1 - l == 1 && l[0] == '0' && cl == 0) {
			if (copy_span(out->v2, sizeof out->v2, path, pl) < 0)
				return -1;
			out->has_v2 = 1;
			continue;
		}
		if (has_token(c1 + 1, cl, "memory", ',')) {
			if (copy_span(out->memory, sizeof out->memory, path, pl) < 0)
				return -1;
			out->has_memory = 1;
		}
		if (has_token(c1 + 1, cl, "pids", ',')) {
			if (copy_span(out->pids, sizeof out->pids, path, pl) < 0)
				return -1;
			out->has_pids = 1;
		}
	}
	return 0;
}

/* Decode mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static int unescape(char *out, size_t outlen, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			if (i + 3 >= n || s[i + 1] < '0' || s[i + 1] > '3' || s[i + 2] < '0' || s[i + 2] > '7' ||
			    s[i + 3] < '0' || s[i + 3] > '7')
				return -1;
			c = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
			i += 3;
		}
		if (c == 0 || o + 1 >= outlen)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

/* Split a line into space-separated fields; -1 if more than max. */
static int split(const char *l, size_t ll, const char **f, size_t *fl, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < ll) {
		if (l[i] == ' ') {
			i++;
			continue;
		}
		if (n == max)
			return -1;
		f[n] = l + i;
		while (i < ll && l[i] != ' ')
			i++;
		fl[n] = (size_t)(l + i - f[n]);
		n++;
	}
	return n;
}

static int set_mnt(struct cgroup_mnt *m, const char *root, size_t rl, const char *dir, size_t dl)
{
	if (m->found)
		return 0;
	if (unescape(m->root, sizeof m->root, root, rl) < 0 || unescape(m->dir, sizeof m->dir, dir, dl) < 0)
		return -1;
	m->found = 1;
	return 0;
}

int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *out)
{
	size_t pos = 0, ll;
	const char *l;

	memset(out, 0, sizeof *out);
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		const char *f[64];
		size_t fl[64];
		int n, sep = -1;
		if (ll == 0)
			continue;
		n = split(l, ll, f, fl, 64);
		if (n < 10)
			return -1;
		for (int i = 6; i < n; i++)
			if (fl[i] == 1 && f[i][0] == '-') {
				sep = i;
				break;
			}
		if (sep < 0 || sep + 3 >= n)
			return -1;
		const char *type = f[sep + 1], *opts = f[sep + 3];
		size_t tl = fl[sep + 1], ol = fl[sep + 3];
		if (tl == 7 && memcmp(type, "cgroup2", 7) == 0) {
			if (set_mnt(&out->v2, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
		} else if (tl == 6 && memcmp(type, "cgroup", 6) == 0) {
			if (has_token(opts, ol, "memory", ',') && set_mnt(&out->memory, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
			if (has_token(opts, ol, "pids", ',') && set_mnt(&out->pids, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
		}
	}
	return 0;
}

int cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n)
{
	size_t pos = 0, ll;
	const char *l;
	uint64_t v;

	*n = 0;
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		if (num_parse_u64(l, ll, &v) < 0 || v == 0 || v > INT_MAX)
			return -1;
		if (*n == cap)
			return -1;
		pids[(*n)++] = (pid_t)v;
	}
	return 0;
}

int cgroup_parse_key(const char *buf, size_t len, const char *key, uint64_t *out)
{
	size_t pos = 0, ll, kl = strlen(key);
	const char *l;

	while (next_line(buf, len, &pos, &l, &ll) == 0)
		if (ll > kl && memcmp(l, key, kl) == 0 && l[kl] == ' ')
			return num_parse_u64(l + kl + 1, ll - kl - 1, out);
	return -1;
}

/* ---- file helpers ------------------------------------------------------------------------- */

static int join(char *out, size_t outlen, const char *a, const char *b)
{
	size_t al = strlen(a);
	int n;

	while (al > 1 && a[al - 1] == '/')
		al--;
	n = snprintf(out, outlen, "%.*s%s%s", (int)al, a, al == 1 && a[0] == '/' ? "" : "/", b);
	if (n < 0 || (size_t)n >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int wfile(const char *dir, const char *file, const char *val)
{
	char p[CGROUP_PATH_MAX + 64];
	int fd, saved;
	ssize_t w;

	if (join(p, sizeof p, dir, file) < 0)
		return -1;
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	w = write(fd, val, strlen(val));
	saved = errno;
	close(fd);
	errno = saved;
	return w == (ssize_t)strlen(val) ? 0 : -1;
}

static ssize_t rfile(const char *dir, const char *file, char *buf, size_t cap)
{
	char p[CGROUP_PATH_MAX + 64];

	if (join(p, sizeof p, dir, file) < 0)
		return -1;
	return procfile_read(NULL, p, buf, cap);
}

static int has_file(const char *dir, const char *file)
{
	char p[CGROUP_PATH_MAX + 64];

	return join(p, sizeof p, dir, file) == 0 && access(p, F_OK) == 0;
}

static int open_in(const char *dir, const char *file, int flags)
{
	char p[CGROUP_PATH_MAX + 64];

	if (join(p, sizeof p, dir, file) < 0)
		return -1;
	return open(p, flags | O_CLOEXEC);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Absolute directory of hierarchy path p under mount m (p must lie under the mounted root). */
static int hier_dir(const struct cgroup_mnt *m, const char *p, char *out, size_t outlen)
{
	size_t rl = strlen(m->root);

	if (strcmp(m->root, "/") != 0) {
		if (strncmp(p, m->root, rl) != 0 || (p[rl] != 0 && p[rl] != '/')) {
			errno = ENOENT;
			return -1;
		}
		p += rl;
	}
	if (!*p || strcmp(p, "/") == 0)
		return snprintf(out, outlen, "%s", m->dir) < (int)outlen ? 0 : -1;
	return join(out, outlen, m->dir, p + 1);
}

/* ---- membership and killing --------------------------------------------------------------- */

static int under(const char *path, const char *group)
{
	size_t gl = strlen(group);

	return strncmp(path, group, gl) == 0 && (path[gl] == 0 || path[gl] == '/' || strcmp(group, "/") == 0);
}

/* Is pid (now) in our group or below it, according to /proc/PID/cgroup? */
static int pid_in_group(const struct cgroup *cg, pid_t pid)
{
	char rel[32], buf[SELF_MAX];
	struct cgroup_self s;
	ssize_t n;

	snprintf(rel, sizeof rel, "proc/%d/cgroup", (int)pid);
	n = procfile_read(NULL, rel, buf, sizeof buf);
	if (n < 0 || cgroup_parse_self(buf, (size_t)n, &s) < 0)
		return 0;
	if (cg->ver == CGROUP_V2)
		return s.has_v2 && under(s.v2, cg->rel);
	return (s.has_memory && under(s.memory, cg->rel)) ||
	       (cg->pids_rel[0] && s.has_pids && under(s.pids, cg->pids_rel));
}

/*
 * pidfd_open pins the process: if the PID was recycled between reading
 * cgroup.procs and here, the pidfd names the newcomer, the membership
 * check fails, and nothing is sent.  If the pinned process exits after
 * the check, pidfd_send_signal fails with ESRCH instead of hitting a
 * successor.
 */
static int kill_verified(const struct cgroup *cg, pid_t pid, int sig)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), rc;

	if (fd < 0)
		return -1;
	if (!pid_in_group(cg, pid)) {
		close(fd);
		return -1;
	}
	rc = (int)syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	close(fd);
	return rc;
}

static int read_pids(const char *dir, pid_t *pids, size_t cap, size_t *n)
{
	char *buf = malloc(PROCS_MAX);
	ssize_t len;
	int rc = -1;

	*n = 0;
	if (!buf)
		return -1;
	len = rfile(dir, "cgroup.procs", buf, PROCS_MAX);
	if (len >= 0)
		rc = cgroup_parse_pids(buf, (size_t)len, pids, cap, n);
	if (rc < 0 && len >= 0)
		errno = EFBIG;
	free(buf);
	return rc;
}

/* PIDs we signalled, so that exactly those (if they are our children) get reaped. */
struct killed {
	pid_t *pid;
	size_t n, cap;
};

static void note_killed(struct killed *k, pid_t pid)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		if (k->pid[i] == pid)
			return;
	if (k->n == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 64;
		pid_t *np = realloc(k->pid, nc * sizeof *np);
		if (!np)
			return;
		k->pid = np;
		k->cap = nc;
	}
	k->pid[k->n++] = pid;
}

/* Reap those signalled PIDs that are our children and have died; a PID not our child is skipped. */
static void reap_killed(struct killed *k)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->pid[i] > 0) {
			pid_t r = waitpid(k->pid[i], NULL, WNOHANG);
			if (r == k->pid[i] || (r < 0 && errno == ECHILD))
				k->pid[i] = 0;
		}
}

/* Signal every verified member of dir and its subgroups; count in *sent, note them in k. */
static void kill_tree(const struct cgroup *cg, const char *dir, int sig, int depth, int *sent, struct killed *k)
{
	pid_t *pids;
	size_t n = 0;
	DIR *d;
	struct dirent *e;

	if (depth > KILL_DEPTH)
		return;
	pids = malloc(sizeof *pids * (PROCS_MAX / 2));
	if (pids && read_pids(dir, pids, PROCS_MAX / 2, &n) == 0)
		for (size_t i = 0; i < n; i++)
			if (pids[i] != getpid() && kill_verified(cg, pids[i], sig) == 0) {
				(*sent)++;
				note_killed(k, pids[i]);
			}
	free(pids);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char sub[CGROUP_PATH_MAX];
		if (e->d_type != DT_DIR || e->d_name[0] == '.' || join(sub, sizeof sub, dir, e->d_name) < 0)
			continue;
		kill_tree(cg, sub, sig, depth + 1, sent, k);
	}
	closedir(d);
}

/* Count members of dir and its subgroups other than the caller. */
static size_t count_tree(const char *dir, int depth)
{
	pid_t *pids;
	size_t n = 0, total = 0;
	DIR *d;
	struct dirent *e;

	if (depth > KILL_DEPTH)
		return 0;
	pids = malloc(sizeof *pids * (PROCS_MAX / 2));
	if (pids && read_pids(dir, pids, PROCS_MAX / 2, &n) == 0)
		for (size_t i = 0; i < n; i++)
			total += pids[i] != getpid();
	free(pids);
	d = opendir(dir);
	if (!d)
		return total;
	while ((e = readdir(d))) {
		char sub[CGROUP_PATH_MAX];
		if (e->d_type == DT_DIR && e->d_name[0] != '.' && join(sub, sizeof sub, dir, e->d_name) == 0)
			total += count_tree(sub, depth + 1);
	}
	closedir(d);
	return total;
}

/* Remove dir and its (empty) subgroups, deepest first; retry while exiting tasks linger. */
static int rmdir_tree(const char *dir, int depth)
{
	DIR *d;
	struct dirent *e;

	if (depth > KILL_DEPTH)
		return -1;
	d = opendir(dir);
	if (d) {
		while ((e = readdir(d))) {
			char sub[CGROUP_PATH_MAX];
			if (e->d_type == DT_DIR && e->d_name[0] != '.' && join(sub, sizeof sub, dir, e->d_name) == 0)
				rmdir_tree(sub, depth + 1);
		}
		closedir(d);
	}
	for (int i = 0; i < 100; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		sleep_ms(20);
	}
	return -1;
}

/* ---- limits ------------------------------------------------------------------------------- */

static int v1_limit(uint64_t cur, uint64_t bytes, const char *dir, int memsw)
{
	char v[32];
	/* memsw.limit must stay >= limit: raise memsw first, lower it last. */
	int raise = bytes == 0 || (cur != 0 && bytes > cur);

	snprintf(v, sizeof v, bytes ? "%llu" : "-1", (unsigned long long)bytes);
	if (memsw && raise && wfile(dir, "memory.memsw.limit_in_bytes", v) < 0)
		return -1;
	if (wfile(dir, "memory.limit_in_bytes", v) < 0)
		return -1;
	if (memsw && !raise && wfile(dir, "memory.memsw.limit_in_bytes", v) < 0)
		return -1;
	return 0;
}

int cgroup_set_memory_max(struct cgroup *cg, uint64_t bytes)
{
	char v[32];

	if (!cg)
		return -1;
	if (cg->ver == CGROUP_V1) {
		if (v1_limit(cg->mem_max, bytes, cg->dir, has_file(cg->dir, "memory.memsw.limit_in_bytes")) < 0)
			return -1;
	} else {
		snprintf(v, sizeof v, bytes ? "%llu" : "max", (unsigned long long)bytes);
		if (wfile(cg->dir, "memory.max", v) < 0)
			return -1;
		/* Without this a limited group pages out instead of hitting its limit. */
		if (has_file(cg->dir, "memory.swap.max") && wfile(cg->dir, "memory.swap.max", bytes ? "0" : "max") < 0)
			return -1;
	}
	cg->mem_max = bytes;
	return 0;
}

int cgroup_set_pids_max(struct cgroup *cg, uint64_t n)
{
	char v[32];

	if (!cg || !cg->pids_ctl) {
		errno = ENOENT;
		return -1;
	}
	snprintf(v, sizeof v, n ? "%llu" : "max", (unsigned long long)n);
	if (wfile(cg->pids_dir, "pids.max", v) < 0)
		return -1;
	cg->pids_max = n;
	return 0;
}

/* ---- open / close ------------------------------------------------------------------------- */

#define ADOPT_WAIT_MS 2000   /* a crashed instance's workers die by PDEATHSIG within milliseconds */

/*
 * mkdir, or adopt an existing group if nobody is in it: the name is this
 * instance's own (cgroup_instance_name), so an existing group is what a
 * crash of the same instance left.  Its last processes may still be dying.
 */
static int make_group(const char *dir, int *created, char *err, size_t errlen)
{
	pid_t p[1];
	size_t n = 0;

	if (mkdir(dir, 0755) == 0) {
		*created = 1;
		return 0;
	}
	if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create cgroup %s: %s", dir, strerror(errno));
		return -1;
	}
	for (int waited = 0;; waited += 20) {
		if (read_pids(dir, p, 1, &n) == 0 && n == 0 && count_tree(dir, 0) == 0)
			break;
		if (waited >= ADOPT_WAIT_MS) {
			snprintf(err, errlen, "cgroup %s exists and has processes (pid %d%s; another fpusoakd on the same"
				 " database?)", dir, n ? (int)p[0] : 0, n ? "" : " in a subgroup");
			return -1;
		}
		sleep_ms(20);
	}
	*created = 1;   /* adopted: ours to remove */
	return 0;
}

int cgroup_instance_name(const char *key, enum cgroup_ver ver, char *out, size_t len)
{
	uint64_t h = 14695981039346656037ull;   /* FNV-1a 64 */
	int n;

	if (!key || (ver != CGROUP_V1 && ver != CGROUP_V2))
		return -1;
	for (const unsigned char *c = (const unsigned char *)key; *c; c++) {
		h ^= *c;
		h *= 1099511628211ull;
	}
	n = snprintf(out, len, "%s-%012llx", ver == CGROUP_V2 ? "workers" : "fpusoakd-workers",
		     (unsigned long long)(h & 0xffffffffffffull));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int locate(struct cgroup_self *self, struct cgroup_mounts *mnt, char *err, size_t errlen)
{
	char sbuf[SELF_MAX], *mbuf = malloc(MOUNTINFO_MAX);
	ssize_t n;
	int rc = -1;

	if (!mbuf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = procfile_read(NULL, "proc/self/cgroup", sbuf, sizeof sbuf);
	if (n < 0 || cgroup_parse_self(sbuf, (size_t)n, self) < 0) {
		snprintf(err, errlen, "cannot read /proc/self/cgroup");
		goto out;
	}
	n = procfile_read(NULL, "proc/self/mountinfo", mbuf, MOUNTINFO_MAX);
	if (n < 0 || cgroup_parse_mountinfo(mbuf, (size_t)n, mnt) < 0) {
		snprintf(err, errlen, "cannot read /proc/self/mountinfo");
		goto out;
	}
	rc = 0;
out:
	free(mbuf);
	return rc;
}

static int open_v2(struct cgroup *cg, const struct cgroup_cfg *cfg, const struct cgroup_self *self,
		   const struct cgroup_mounts *mnt, char *err, size_t errlen)
{
	char ctl[512], sub[512];
	ssize_t cn, sn;
	int want_mem, want_pids;

	if (hier_dir(&mnt->v2, self->v2, cg->own, sizeof cg->own) < 0) {
		snprintf(err, errlen, "own cgroup %s is not under the cgroup2 mount %s", self->v2, mnt->v2.dir);
		return -1;
	}
	if (join(cg->dir, sizeof cg->dir, cg->own, cfg->name) < 0 ||
	    join(cg->rel, sizeof cg->rel, self->v2, cfg->name) < 0 ||
	    join(cg->leaf, sizeof cg->leaf, cg->own, "daemon") < 0) {
		snprintf(err, errlen, "cgroup path too long");
		return -1;
	}
	snprintf(cg->pids_dir, sizeof cg->pids_dir, "%s", cg->dir);
	snprintf(cg->pids_rel, sizeof cg->pids_rel, "%s", cg->rel);
	if (cfg->leaf_self) {
		if (mkdir(cg->leaf, 0755) == 0)
			cg->created_leaf = 1;
		else if (errno != EEXIST) {
			snprintf(err, errlen, "cannot create %s: %s", cg->leaf, strerror(errno));
			return -1;
		}
		if (wfile(cg->leaf, "cgroup.procs", "0") < 0) {
			snprintf(err, errlen, "cannot move into %s: %s", cg->leaf, strerror(errno));
			return -1;
		}
		cg->moved_leaf = 1;
	}
	cn = rfile(cg->own, "cgroup.controllers", ctl, sizeof ctl);
	sn = rfile(cg->own, "cgroup.subtree_control", sub, sizeof sub);
	if (cn < 0 || sn < 0) {
		snprintf(err, errlen, "cannot read controllers of %s: %s", cg->own, strerror(errno));
		return -1;
	}
	want_mem = cgroup_has_word(ctl, (size_t)cn, "memory");
	want_pids = cgroup_has_word(ctl, (size_t)cn, "pids");
	if (cfg->memory_max && !want_mem) {
		snprintf(err, errlen, "memory controller not available in %s (delegate it: Delegate=yes)", cg->own);
		return -1;
	}
	if (cfg->pids_max && !want_pids) {
		snprintf(err, errlen, "pids controller not available in %s", cg->own);
		return -1;
	}
	if (want_mem && !cgroup_has_word(sub, (size_t)sn, "memory")) {
		if (wfile(cg->own, "cgroup.subtree_control", "+memory") < 0) {
			snprintf(err, errlen, "cannot enable memory controller in %s: %s%s", cg->own, strerror(errno),
				 errno == EBUSY ? " (it still holds processes: move the daemon into a leaf)" : "");
			return -1;
		}
		cg->enabled |= CTRL_MEMORY;
	}
	if (want_pids && !cgroup_has_word(sub, (size_t)sn, "pids")) {
		if (wfile(cg->own, "cgroup.subtree_control", "+pids") < 0) {
			snprintf(err, errlen, "cannot enable pids controller in %s: %s", cg->own, strerror(errno));
			return -1;
		}
		cg->enabled |= CTRL_PIDS;
	}
	cg->pids_ctl = want_pids;
	if (make_group(cg->dir, &cg->created, err, errlen) < 0)
		return -1;
	cg->clone_fd = open_in(cg->own, cfg->name, O_PATH | O_DIRECTORY);
	cg->child_fd = open_in(cg->dir, "cgroup.procs", O_WRONLY);
	if (cg->clone_fd < 0 || cg->child_fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	if (want_mem)
		cg->oom_fd = open_in(cg->dir, "memory.events", O_RDONLY);
	return 0;
}

static int open_v1(struct cgroup *cg, const struct cgroup_cfg *cfg, const struct cgroup_self *self,
		   const struct cgroup_mounts *mnt, char *err, size_t errlen)
{
	if (hier_dir(&mnt->memory, self->memory, cg->own, sizeof cg->own) < 0 ||
	    join(cg->dir, sizeof cg->dir, cg->own, cfg->name) < 0 ||
	    join(cg->rel, sizeof cg->rel, self->memory, cfg->name) < 0) {
		snprintf(err, errlen, "cannot place a group under memory cgroup %s", self->memory);
		return -1;
	}
	if (self->has_pids && mnt->pids.found) {
		if (hier_dir(&mnt->pids, self->pids, cg->own_pids, sizeof cg->own_pids) < 0 ||
		    join(cg->pids_dir, sizeof cg->pids_dir, cg->own_pids, cfg->name) < 0 ||
		    join(cg->pids_rel, sizeof cg->pids_rel, self->pids, cfg->name) < 0) {
			snprintf(err, errlen, "cannot place a group under pids cgroup %s", self->pids);
			return -1;
		}
	} else if (cfg->pids_max) {
		snprintf(err, errlen, "no v1 pids hierarchy mounted");
		return -1;
	}
	if (make_group(cg->dir, &cg->created, err, errlen) < 0)
		return -1;
	if (cg->pids_dir[0] && make_group(cg->pids_dir, &cg->created_pids, err, errlen) < 0)
		return -1;
	cg->pids_ctl = cg->pids_dir[0] != 0;
	cg->child_fd = open_in(cg->dir, "cgroup.procs", O_WRONLY);
	cg->oom_fd = open_in(cg->dir, "memory.oom_control", O_RDONLY);
	if (cg->pids_dir[0])
		cg->pids_procs_fd = open_in(cg->pids_dir, "cgroup.procs", O_WRONLY);
	if (cg->child_fd < 0 || cg->oom_fd < 0 || (cg->pids_dir[0] && cg->pids_procs_fd < 0)) {
		snprintf(err, errlen, "cannot open files of %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	return 0;
}

static int valid_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return 0;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			return 0;
	return 1;
}

static enum cgroup_ver pick(const struct cgroup_cfg *cfg, const struct cgroup_self *self,
			    const struct cgroup_mounts *mnt, char *err, size_t errlen)
{
	char own[CGROUP_PATH_MAX], ctl[512];
	ssize_t n;
	int v2ok = self->has_v2 && mnt->v2.found, v1ok = self->has_memory && mnt->memory.found;

	if (cfg->ver == CGROUP_V2 || cfg->ver == CGROUP_V1) {
		if ((cfg->ver == CGROUP_V2 && v2ok) || (cfg->ver == CGROUP_V1 && v1ok))
			return cfg->ver;
		snprintf(err, errlen, "cgroup %s requested but not mounted", cfg->ver == CGROUP_V2 ? "v2" : "v1 memory");
		return CGROUP_NONE;
	}
	if (v2ok && hier_dir(&mnt->v2, self->v2, own, sizeof own) == 0 &&
	    (n = rfile(own, "cgroup.controllers", ctl, sizeof ctl)) >= 0 && cgroup_has_word(ctl, (size_t)n, "memory"))
		return CGROUP_V2;
	if (v1ok)
		return CGROUP_V1;
	snprintf(err, errlen, "no cgroup memory controller: v2 %s, v1 memory %s",
		 v2ok ? "has no memory controller here" : "not mounted", mnt->memory.found ? "not joined" : "not mounted");
	return CGROUP_NONE;
}

static int apply(struct cgroup *cg, const struct cgroup_cfg *cfg, char *err, size_t errlen)
{
	if ((cfg->memory_max || cg->ver == CGROUP_V1) && cgroup_set_memory_max(cg, cfg->memory_max) < 0) {
		snprintf(err, errlen, "cannot set memory limit in %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	if (cg->pids_ctl && cgroup_set_pids_max(cg, cfg->pids_max) < 0) {
		snprintf(err, errlen, "cannot set pids.max in %s: %s", cg->pids_dir, strerror(errno));
		return -1;
	}
	if (!cfg->enter)
		return 0;
	if (wfile(cg->dir, "cgroup.procs", "0") < 0) {
		snprintf(err, errlen, "cannot enter %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	cg->entered = 1;
	if (cg->ver == CGROUP_V1 && cg->pids_dir[0]) {
		if (wfile(cg->pids_dir, "cgroup.procs", "0") < 0) {
			snprintf(err, errlen, "cannot enter %s: %s", cg->pids_dir, strerror(errno));
			return -1;
		}
		cg->entered_pids = 1;
	}
	return 0;
}

struct cgroup *cgroup_open(const struct cgroup_cfg *cfg, char *err, size_t errlen)
{
	struct cgroup_self self;
	struct cgroup_mounts mnt;
	struct cgroup_cfg named;
	struct cgroup *cg;
	char instance[64];

	if (cfg->name && !valid_name(cfg->name)) {
		snprintf(err, errlen, "invalid cgroup name");
		return NULL;
	}
	cg = calloc(1, sizeof *cg);
	if (!cg) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cg->child_fd = cg->clone_fd = cg->pids_procs_fd = cg->oom_fd = -1;
	if (locate(&self, &mnt, err, errlen) < 0)
		goto fail;
	cg->ver = pick(cfg, &self, &mnt, err, errlen);
	if (cg->ver == CGROUP_NONE)
		goto fail;
	named = *cfg;
	if (!named.name) {
		char pidkey[32];
		snprintf(pidkey, sizeof pidkey, "pid:%d", (int)getpid());
		if (cgroup_instance_name(cfg->key ? cfg->key : pidkey, cg->ver, instance, sizeof instance) < 0) {
			snprintf(err, errlen, "cannot name the group");
			goto fail;
		}
		named.name = instance;
	}
	if ((cg->ver == CGROUP_V2 ? open_v2 : open_v1)(cg, &named, &self, &mnt, err, errlen) < 0)
		goto fail;
	if (apply(cg, &named, err, errlen) < 0)
		goto fail;
	return cg;
fail:
	cgroup_close(cg);
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Kill until the group is empty (bounded: 3 s).  Dead members leave
 * cgroup.procs at exit, before they are reaped, so those that are our
 * children are reaped from the list of PIDs we signalled, never with
 * waitpid(-1), which could steal an unrelated child of the caller.
 */
static void empty_group(struct cgroup *cg)
{
	struct killed k = { 0 };

	for (int round = 0; round < 150; round++) {
		int sent = 0;
		size_t left = count_tree(cg->dir, 0) + (cg->ver == CGROUP_V1 && cg->created_pids ? count_tree(cg->pids_dir, 0) : 0);
		reap_killed(&k);
		if (left == 0)
			break;
		kill_tree(cg, cg->dir, SIGKILL, 0, &sent, &k);
		if (cg->ver == CGROUP_V1 && cg->created_pids)
			kill_tree(cg, cg->pids_dir, SIGKILL, 0, &sent, &k);
		sleep_ms(20);
	}
	for (int round = 0; round < 50; round++) {
		size_t pending = 0;
		reap_killed(&k);
		for (size_t i = 0; i < k.n; i++)
			pending += k.pid[i] != 0;
		if (!pending)
			break;
		sleep_ms(20);
	}
	free(k.pid);
}

/* v2: does <own> hold a group other than our leaf (and our own group, already removed)? */
static int other_groups(const struct cgroup *cg)
{
	DIR *d = opendir(cg->own);
	struct dirent *e;
	const char *leaf = strrchr(cg->leaf, '/');
	int found = 0;

	if (!d)
		return 1;   /* cannot tell: keep the controllers */
	while (!found && (e = readdir(d)))
		found = e->d_type == DT_DIR && e->d_name[0] != '.' && !(leaf && strcmp(e->d_name, leaf + 1) == 0) &&
			strcmp(cg->dir + strlen(cg->own) + 1, e->d_name) != 0;
	closedir(d);
	return found;
}

void cgroup_close(struct cgroup *cg)
{
	if (!cg)
		return;
	if (cg->entered)
		wfile(cg->own, "cgroup.procs", "0");
	if (cg->entered_pids)
		wfile(cg->own_pids, "cgroup.procs", "0");
	cg->entered = cg->entered_pids = 0;
	close_fd(&cg->child_fd);
	close_fd(&cg->clone_fd);
	close_fd(&cg->pids_procs_fd);
	close_fd(&cg->oom_fd);
	if (cg->created || cg->created_pids)
		empty_group(cg);
	if (cg->created)
		rmdir_tree(cg->dir, 0);
	if (cg->created_pids)
		rmdir_tree(cg->pids_dir, 0);
	/*
	 * v2: leave our own cgroup as we found it (controllers off, back out of the leaf), unless
	 * another instance's group still lives beside ours: turning a controller off in the parent
	 * takes it away from that group too, with its limits.
	 */
	if (cg->enabled && !other_groups(cg)) {
		if (cg->enabled & CTRL_MEMORY)
			wfile(cg->own, "cgroup.subtree_control", "-memory");
		if (cg->enabled & CTRL_PIDS)
			wfile(cg->own, "cgroup.subtree_control", "-pids");
	}
	if (cg->moved_leaf && wfile(cg->own, "cgroup.procs", "0") == 0 && cg->created_leaf)
		rmdir(cg->leaf);
	free(cg);
}

/* ---- accessors ---------------------------------------------------------------------------- */

enum cgroup_ver cgroup_version(const struct cgroup *cg)
{
	return cg ? cg->ver : CGROUP_NONE;
}

const char *cgroup_dir(const struct cgroup *cg)
{
	return cg ? cg->dir : "";
}

const char *cgroup_pids_dir(const struct cgroup *cg)
{
	return cg ? cg->pids_dir : "";
}

int cgroup_child_fd(const struct cgroup *cg)
{
	return cg ? cg->child_fd : -1;
}

int cgroup_clone_fd(const struct cgroup *cg)
{
	return cg && cg->ver == CGROUP_V2 ? cg->clone_fd : -1;
}

int cgroup_fds(const struct cgroup *cg, int *out, int max)
{
	int n = 0;

	if (!cg)
		return 0;
	const int fds[4] = { cg->child_fd, cg->clone_fd, cg->pids_procs_fd, cg->oom_fd };
	for (int i = 0; i < 4 && n < max; i++)
		if (fds[i] >= 0)
			out[n++] = fds[i];
	return n;
}

int cgroup_reset_peak(const struct cgroup *cg)
{
	if (!cg || cg->ver != CGROUP_V1)
		return -1;
	return wfile(cg->dir, "memory.max_usage_in_bytes", "0");
}

int cgroup_enter_pids(const struct cgroup *cg)
{
	if (!cg || cg->ver != CGROUP_V1 || cg->pids_procs_fd < 0)
		return 0;
	return write(cg->pids_procs_fd, "0", 1) == 1 ? 0 : -1;
}

int cgroup_enter_memory(const struct cgroup *cg)
{
	if (!cg || cg->ver != CGROUP_V1 || cg->child_fd < 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return write(cg->child_fd, "0", 1) == 1 ? 0 : -1;
}

int cgroup_leave(const struct cgroup *cg)
{
	if (!cg || cg->ver != CGROUP_V1)
		return 0;
	if (wfile(cg->own, "cgroup.procs", "0") < 0)
		return -1;
	return cg->pids_dir[0] ? wfile(cg->own_pids, "cgroup.procs", "0") : 0;
}

uint64_t cgroup_memory_max(const struct cgroup *cg)
{
	return cg ? cg->mem_max : 0;
}

uint64_t cgroup_pids_max(const struct cgroup *cg)
{
	return cg ? cg->pids_max : 0;
}

int cgroup_oom_kills(const struct cgroup *cg, uint64_t *out)
{
	char buf[1024];
	ssize_t n;

	if (!cg || cg->oom_fd < 0)
		return -1;
	n = procfile_pread(cg->oom_fd, buf, sizeof buf);
	if (n < 0)
		return -1;
	return cgroup_parse_key(buf, (size_t)n, "oom_kill", out);
}

static int read_u64(const char *dir, const char *file, uint64_t *out)
{
	char buf[64];
	ssize_t n = rfile(dir, file, buf, sizeof buf);

	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	if (n == 3 && memcmp(buf, "max", 3) == 0) {
		*out = UINT64_MAX;
		return 0;
	}
	return num_parse_u64(buf, (size_t)n, out);
}

/* v1 prints "no limit" as the largest page-aligned long (9223372036854771712); anything from 2^62 is none. */
#define V1_UNLIMITED (1ull << 62)

int cgroup_effective(const struct cgroup *cg, struct cgroup_effective *out)
{
	uint64_t v;

	memset(out, 0, sizeof *out);
	if (!cg)
		return -1;
	out->ver = cg->ver;
	snprintf(out->dir, sizeof out->dir, "%s", cg->dir);
	if (cg->pids_ctl)
		snprintf(out->pids_dir, sizeof out->pids_dir, "%s", cg->pids_dir);
	if (read_u64(cg->dir, cg->ver == CGROUP_V2 ? "memory.max" : "memory.limit_in_bytes", &v) == 0) {
		out->memory_known = 1;
		out->memory_max = v == UINT64_MAX || v >= V1_UNLIMITED ? 0 : v;
	}
	if (cg->pids_ctl && read_u64(cg->pids_dir, "pids.max", &v) == 0) {
		out->pids_known = 1;
		out->pids_max = v == UINT64_MAX ? 0 : v;
	}
	return 0;
}

int cgroup_memory_usage(const struct cgroup *cg, uint64_t *current, uint64_t *peak)
{
	int v2 = cg && cg->ver == CGROUP_V2;

	if (!cg)
		return -1;
	*peak = 0;
	if (read_u64(cg->dir, v2 ? "memory.current" : "memory.usage_in_bytes", current) < 0)
		return -1;
	read_u64(cg->dir, v2 ? "memory.peak" : "memory.max_usage_in_bytes", peak);
	return 0;
}

int cgroup_procs(const struct cgroup *cg, pid_t *pids, size_t cap, size_t *n)
{
	size_t a = 0, b = 0;
	pid_t self = getpid();

	*n = 0;
	if (!cg)
		return -1;
	if (read_pids(cg->dir, pids, cap, &a) < 0)
		return -1;
	if (cg->ver == CGROUP_V1 && cg->pids_dir[0]) {
		pid_t *more = malloc(sizeof *more * (cap ? cap : 1));
		if (!more || read_pids(cg->pids_dir, more, cap, &b) < 0) {
			free(more);
			return -1;
		}
		for (size_t i = 0; i < b; i++) {
			size_t j = 0;
			while (j < a && pids[j] != more[i])
				j++;
			if (j < a)
				continue;
			if (a == cap) {
				free(more);
				errno = EFBIG;
				return -1;
			}
			pids[a++] = more[i];
		}
		free(more);
	}
	for (size_t i = 0; i < a; i++)
		if (pids[i] != self)
			pids[(*n)++] = pids[i];
	return 0;
}

int cgroup_kill(const struct cgroup *cg, int sig)
{
	int sent = 0;
	pid_t *pids;
	size_t n;

	if (!cg)
		return -1;
	pids = malloc(sizeof *pids * (PROCS_MAX / 2));
	if (!pids || cgroup_procs(cg, pids, PROCS_MAX / 2, &n) < 0) {
		free(pids);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (kill_verified(cg, pids[i], sig) == 0)
			sent++;
	free(pids);
	return sent;
}

size_t cgroup_blob_size(void)
{
	return sizeof(struct cgroup);
}

void cgroup_blob_save(const struct cgroup *cg, void *out)
{
	memcpy(out, cg, sizeof *cg);
}

struct cgroup *cgroup_blob_load(const void *in)
{
	struct cgroup *cg = malloc(sizeof *cg);

	if (!cg)
		return NULL;
	memcpy(cg, in, sizeof *cg);
	/* Bytes from another process: every path ends inside its array whatever they say. */
	cg->dir[CGROUP_PATH_MAX - 1] = cg->pids_dir[CGROUP_PATH_MAX - 1] = cg->rel[CGROUP_PATH_MAX - 1] = 0;
	cg->pids_rel[CGROUP_PATH_MAX - 1] = cg->own[CGROUP_PATH_MAX - 1] = 0;
	cg->own_pids[CGROUP_PATH_MAX - 1] = cg->leaf[CGROUP_PATH_MAX - 1] = 0;
	return cg;
}
