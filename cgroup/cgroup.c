/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup: open and close the workers' cgroup (v1 or v2), and the handle's accessors; see cgroup.h. */
#define _GNU_SOURCE
#include "cgroup/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cgroup_fs.h"
#include "cgroup/cgroup_priv.h"
#include "common/procfile.h"

#define MOUNTINFO_MAX (1u << 20)   /* container hosts have thousands of mounts; more is an error */

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
		if (cgroup_fs_read_pids(dir, p, 1, &n) == 0 && n == 0 && cgroup_fs_count_tree(dir, 0) == 0)
			break;
		if (waited >= ADOPT_WAIT_MS) {
			snprintf(err, errlen, "cgroup %s exists and has processes (pid %d%s; another fpusoakd on the same"
				 " database?)", dir, n ? (int)p[0] : 0, n ? "" : " in a subgroup");
			return -1;
		}
		cgroup_fs_sleep_ms(20);
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
	char sbuf[CGROUP_FS_SELF_MAX], *mbuf = malloc(MOUNTINFO_MAX);
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

	if (cgroup_fs_hier_dir(&mnt->v2, self->v2, cg->own, sizeof cg->own) < 0) {
		snprintf(err, errlen, "own cgroup %s is not under the cgroup2 mount %s", self->v2, mnt->v2.dir);
		return -1;
	}
	if (cgroup_fs_join(cg->dir, sizeof cg->dir, cg->own, cfg->name) < 0 ||
	    cgroup_fs_join(cg->rel, sizeof cg->rel, self->v2, cfg->name) < 0 ||
	    cgroup_fs_join(cg->leaf, sizeof cg->leaf, cg->own, "daemon") < 0) {
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
		if (cgroup_fs_write(cg->leaf, "cgroup.procs", "0") < 0) {
			snprintf(err, errlen, "cannot move into %s: %s", cg->leaf, strerror(errno));
			return -1;
		}
		cg->moved_leaf = 1;
	}
	cn = cgroup_fs_read(cg->own, "cgroup.controllers", ctl, sizeof ctl);
	sn = cgroup_fs_read(cg->own, "cgroup.subtree_control", sub, sizeof sub);
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
		if (cgroup_fs_write(cg->own, "cgroup.subtree_control", "+memory") < 0) {
			snprintf(err, errlen, "cannot enable memory controller in %s: %s%s", cg->own, strerror(errno),
				 errno == EBUSY ? " (it still holds processes: move the daemon into a leaf)" : "");
			return -1;
		}
		cg->enabled |= CTRL_MEMORY;
	}
	if (want_pids && !cgroup_has_word(sub, (size_t)sn, "pids")) {
		if (cgroup_fs_write(cg->own, "cgroup.subtree_control", "+pids") < 0) {
			snprintf(err, errlen, "cannot enable pids controller in %s: %s", cg->own, strerror(errno));
			return -1;
		}
		cg->enabled |= CTRL_PIDS;
	}
	cg->pids_ctl = want_pids;
	if (make_group(cg->dir, &cg->created, err, errlen) < 0)
		return -1;
	cg->clone_fd = cgroup_fs_open(cg->own, cfg->name, O_PATH | O_DIRECTORY);
	cg->child_fd = cgroup_fs_open(cg->dir, "cgroup.procs", O_WRONLY);
	if (cg->clone_fd < 0 || cg->child_fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	if (want_mem)
		cg->oom_fd = cgroup_fs_open(cg->dir, "memory.events", O_RDONLY);
	return 0;
}

static int open_v1(struct cgroup *cg, const struct cgroup_cfg *cfg, const struct cgroup_self *self,
		   const struct cgroup_mounts *mnt, char *err, size_t errlen)
{
	if (cgroup_fs_hier_dir(&mnt->memory, self->memory, cg->own, sizeof cg->own) < 0 ||
	    cgroup_fs_join(cg->dir, sizeof cg->dir, cg->own, cfg->name) < 0 ||
	    cgroup_fs_join(cg->rel, sizeof cg->rel, self->memory, cfg->name) < 0) {
		snprintf(err, errlen, "cannot place a group under memory cgroup %s", self->memory);
		return -1;
	}
	if (self->has_pids && mnt->pids.found) {
		if (cgroup_fs_hier_dir(&mnt->pids, self->pids, cg->own_pids, sizeof cg->own_pids) < 0 ||
		    cgroup_fs_join(cg->pids_dir, sizeof cg->pids_dir, cg->own_pids, cfg->name) < 0 ||
		    cgroup_fs_join(cg->pids_rel, sizeof cg->pids_rel, self->pids, cfg->name) < 0) {
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
	cg->child_fd = cgroup_fs_open(cg->dir, "cgroup.procs", O_WRONLY);
	cg->oom_fd = cgroup_fs_open(cg->dir, "memory.oom_control", O_RDONLY);
	if (cg->pids_dir[0])
		cg->pids_procs_fd = cgroup_fs_open(cg->pids_dir, "cgroup.procs", O_WRONLY);
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
	if (v2ok && cgroup_fs_hier_dir(&mnt->v2, self->v2, own, sizeof own) == 0 &&
	    (n = cgroup_fs_read(own, "cgroup.controllers", ctl, sizeof ctl)) >= 0 && cgroup_has_word(ctl, (size_t)n, "memory"))
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
	if (cgroup_fs_write(cg->dir, "cgroup.procs", "0") < 0) {
		snprintf(err, errlen, "cannot enter %s: %s", cg->dir, strerror(errno));
		return -1;
	}
	cg->entered = 1;
	if (cg->ver == CGROUP_V1 && cg->pids_dir[0]) {
		if (cgroup_fs_write(cg->pids_dir, "cgroup.procs", "0") < 0) {
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
		cgroup_fs_write(cg->own, "cgroup.procs", "0");
	if (cg->entered_pids)
		cgroup_fs_write(cg->own_pids, "cgroup.procs", "0");
	cg->entered = cg->entered_pids = 0;
	close_fd(&cg->child_fd);
	close_fd(&cg->clone_fd);
	close_fd(&cg->pids_procs_fd);
	close_fd(&cg->oom_fd);
	if (cg->created || cg->created_pids)
		cgroup_kill_empty(cg);
	if (cg->created)
		cgroup_fs_rmdir_tree(cg->dir, 0);
	if (cg->created_pids)
		cgroup_fs_rmdir_tree(cg->pids_dir, 0);
	/*
	 * v2: leave our own cgroup as we found it (controllers off, back out of the leaf), unless
	 * another instance's group still lives beside ours: turning a controller off in the parent
	 * takes it away from that group too, with its limits.
	 */
	if (cg->enabled && !other_groups(cg)) {
		if (cg->enabled & CTRL_MEMORY)
			cgroup_fs_write(cg->own, "cgroup.subtree_control", "-memory");
		if (cg->enabled & CTRL_PIDS)
			cgroup_fs_write(cg->own, "cgroup.subtree_control", "-pids");
	}
	if (cg->moved_leaf && cgroup_fs_write(cg->own, "cgroup.procs", "0") == 0 && cg->created_leaf)
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
	if (cgroup_fs_write(cg->own, "cgroup.procs", "0") < 0)
		return -1;
	return cg->pids_dir[0] ? cgroup_fs_write(cg->own_pids, "cgroup.procs", "0") : 0;
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
