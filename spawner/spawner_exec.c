/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_exec: the spawner as a small static binary, handed its config across exec; see spawner.h. */
#define _GNU_SOURCE
#include "spawner/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/blobexec.h"

/*
 * Both ends are built from the same tree and installed together, but a stale helper next to a new
 * daemon must be refused, not misread: the layout number changes with any of these structs.
 */
#define BLOB_MAGIC "FPUSPAWN"
#define BLOB_LAYOUT 2u

struct blob_hdr {
	char magic[8];
	uint32_t layout;
	uint32_t cfg_size;            /* sizeof(struct spawner_cfg) */
	uint32_t cg_size;             /* cgroup_blob_size(), or 0 when the spawner runs unconfined */
	uint32_t rec_size;            /* sizeof(struct churn_rec): the records it will send */
	uint32_t cmd_size;            /* sizeof(struct spawner_cmd): the commands it will read */
	uint32_t pad;
};

size_t spawner_blob_pack(const struct spawner_cfg *cfg, void *buf, size_t cap)
{
	struct blob_hdr h = { .layout = BLOB_LAYOUT, .cfg_size = sizeof *cfg, .rec_size = sizeof(struct churn_rec),
			      .cmd_size = sizeof(struct spawner_cmd) };
	unsigned char *p = buf;
	size_t need;

	memcpy(h.magic, BLOB_MAGIC, sizeof h.magic);
	h.cg_size = cfg->cg ? (uint32_t)cgroup_blob_size() : 0;
	need = sizeof h + sizeof *cfg + h.cg_size;
	if (need > cap)
		return 0;
	memcpy(p, &h, sizeof h);
	memcpy(p + sizeof h, cfg, sizeof *cfg);
	if (cfg->cg)
		cgroup_blob_save(cfg->cg, p + sizeof h + sizeof *cfg);
	return need;
}

int spawner_blob_unpack(const void *buf, size_t len, struct spawner_cfg *cfg, char *why, size_t whylen)
{
	const unsigned char *p = buf;
	struct blob_hdr h;

	if (len < sizeof h) {
		snprintf(why, whylen, "config blob truncated (%zu bytes)", len);
		return -1;
	}
	memcpy(&h, p, sizeof h);
	if (memcmp(h.magic, BLOB_MAGIC, sizeof h.magic) != 0) {
		snprintf(why, whylen, "not a spawner config blob");
		return -1;
	}
	if (h.layout != BLOB_LAYOUT || h.cfg_size != sizeof *cfg || (h.cg_size && h.cg_size != cgroup_blob_size()) ||
	    h.rec_size != sizeof(struct churn_rec) || h.cmd_size != sizeof(struct spawner_cmd)) {
		snprintf(why, whylen, "config layout %u (%u/%u bytes) from another build than this helper's %u (%zu/%zu):"
			 " install fpusoakd and fpusoakd-spawner together", h.layout, h.cfg_size, h.cg_size, BLOB_LAYOUT,
			 sizeof *cfg, cgroup_blob_size());
		return -1;
	}
	if (len != sizeof h + h.cfg_size + h.cg_size) {
		snprintf(why, whylen, "config blob is %zu bytes, header says %zu", len,
			 sizeof h + (size_t)h.cfg_size + h.cg_size);
		return -1;
	}
	memcpy(cfg, p + sizeof h, sizeof *cfg);
	/* Pointers are the daemon's addresses: meaningless here. */
	cfg->cc.cgroup_name = NULL;
	cfg->cc.spawner_exe = NULL;
	cfg->cg = NULL;
	cfg->exec_errno = 0;
	cfg->exec_ok = 1;
	if (h.cg_size && !(cfg->cg = cgroup_blob_load(p + sizeof h + sizeof *cfg))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	return 0;
}

static int keep_across_exec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

int spawner_exec(const struct spawner_cfg *cfg, const char *path)
{
	unsigned char blob[SPAWNER_BLOB_MAX];
	char fdarg[16];
	char *argv[] = { "fpusoakd-spawner", "--internal-spawner", fdarg, NULL };
	int fds[8], n, mfd, saved;
	size_t len = spawner_blob_pack(cfg, blob, sizeof blob);

	if (!len) {
		errno = E2BIG;
		return -1;
	}
	mfd = blobexec_memfd("fpusoakd-spawner-cfg", blob, len);
	if (mfd < 0)
		return -1;
	n = cgroup_fds(cfg->cg, fds, 7);
	fds[n++] = cfg->sock;
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && keep_across_exec(fds[i]) < 0)
			goto fail;
	snprintf(fdarg, sizeof fdarg, "%d", mfd);
	execv(path, argv);
fail:
	saved = errno;
	close(mfd);
	errno = saved;
	return -1;
}

int spawner_exec_main(int argc, char **argv)
{
	unsigned char blob[SPAWNER_BLOB_MAX + 1];
	struct spawner_cfg cfg;      /* lives on: spawner_main never returns */
	char why[256];
	ssize_t n = blobexec_read(argc, argv, "--internal-spawner", blob, sizeof blob);

	if (n == 0)
		return 0;
	if (spawner_blob_unpack(blob, (size_t)n, &cfg, why, sizeof why) < 0) {
		fprintf(stderr, "fpusoakd-spawner: %s\n", why);
		_exit(70);
	}
	spawner_main(&cfg);
}
