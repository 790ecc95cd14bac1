/* SPDX-License-Identifier: GPL-2.0-only */
/* fragload: the recipe, the shuffle and the exec glue of the fragmenting load; see fragload.h. */
#define _GNU_SOURCE
#include "fragload/fragload.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/blobexec.h"

/* ---- names -------------------------------------------------------------------------------- */

const char *fragload_level_name(int level)
{
	switch (level) {
	case FRAGLOAD_OFF:
		return "off";
	case FRAGLOAD_LIGHT:
		return "light";
	case FRAGLOAD_HEAVY:
		return "heavy";
	default:
		return "?";
	}
}

int fragload_level_parse(const char *s, enum fragload_level *out)
{
	static const enum fragload_level all[] = { FRAGLOAD_OFF, FRAGLOAD_LIGHT, FRAGLOAD_HEAVY };

	for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
		if (strcmp(s, fragload_level_name(all[i])) == 0) {
			*out = all[i];
			return 0;
		}
	return -1;
}

const char *fragload_kind_name(int kind)
{
	static const char *const names[FK_NKINDS] = { "anon", "pipe", "pgtable", "socket", "file" };

	return kind >= 0 && kind < FK_NKINDS ? names[kind] : "?";
}

/* ---- the recipe (pure) -------------------------------------------------------------------- */

/*
 * Shares of a cycle's batch, in per mille.  Unmovable and reclaimable kernel memory together
 * outweigh the movable anon part: it is their survivors that pin pageblocks.
 */
static const uint32_t SHARE[FK_NKINDS] = { 400, 300, 100, 100, 100 };
#define KEEP_EVERY 2
#define ROUNDS 32

/* Bytes one unit of a kind keeps when it survives a cycle (a pipe keeps 2 of its pages, see below). */
uint64_t fragload_kept_unit_bytes(const struct fragload_recipe *r, int k)
{
	return k == FK_PIPE ? 2 * 4096 : r->unit_bytes[k];
}

/* Units of a kind that survive a cycle: every pipe (2 of its pages) and one unit in keep_every of
 * the other kinds. */
uint64_t fragload_survivors_of(const struct fragload_recipe *r, int k)
{
	return k == FK_PIPE ? r->units[k] : r->units[k] / (uint64_t)r->keep_every;
}

/* Survivors of one cycle, in bytes. */
static uint64_t survivors_per_cycle(const struct fragload_recipe *r)
{
	uint64_t s = 0;

	for (int k = 0; k < FK_NKINDS; k++)
		s += fragload_survivors_of(r, k) * fragload_kept_unit_bytes(r, k);
	return s;
}

uint64_t fragload_recipe_peak(const struct fragload_recipe *r)
{
	uint64_t b = 0;

	for (int k = 0; k < FK_NKINDS; k++)
		b += (uint64_t)r->units[k] * r->unit_bytes[k];
	return b + r->keep_cap;
}

/* Cycles the long-lived set takes to fill, plus one: what bounds each kind's count in it. */
uint64_t fragload_kept_cycles(const struct fragload_recipe *r)
{
	uint64_t s = survivors_per_cycle(r);

	return s ? r->keep_cap / s + 2 : 2;
}

/* File descriptors a recipe may hold: 2 per pipe, 1 per file, 2 per socket pair, some slack. */
static uint64_t fds_needed(const struct fragload_recipe *r, uint64_t sockets)
{
	uint64_t c = fragload_kept_cycles(r);

	return 2 * ((uint64_t)r->units[FK_PIPE] + fragload_survivors_of(r, FK_PIPE) * c) +
	       (uint64_t)r->units[FK_FILE] + (fragload_survivors_of(r, FK_FILE) + 1) * c + 2 * sockets + 16;
}

uint64_t fragload_recipe_fds(const struct fragload_recipe *r)
{
	return fds_needed(r, 64);
}

int fragload_recipe(enum fragload_level level, uint64_t base, uint64_t fds, struct fragload_recipe *out)
{
	struct fragload_recipe r;
	uint64_t batch;

	memset(out, 0, sizeof *out);
	if (level != FRAGLOAD_LIGHT && level != FRAGLOAD_HEAVY)
		return -1;
	memset(&r, 0, sizeof r);
	r.level = level;
	r.base = base;
	r.keep_every = KEEP_EVERY;
	r.rounds = ROUNDS;
	/*
	 * The bound.  Heavy takes a quarter of the base, light a sixteenth.  Of that, 1/8 is a cycle's
	 * batch and 7/8 the long-lived set, which a cycle's survivors (~half the batch) fill in about
	 * 15 cycles.  What the control in the Xen test bed taught (docs/fragment.md): the
	 * unusable index moves with the small holes the survivors leave, and the next cycle's fill
	 * takes those holes back first (__rmqueue_smallest).  With a batch of 1/12, survivors from its
	 * second half only (a quarter of it) and equal phases, the index rose only +0.009 to +0.027 in
	 * 190 s in a guest with ~17 MB free in DMA32, while the headroom fell by what the load held.
	 * Survivors from the whole batch leave holes all through it, the short hold and free and the
	 * long rest keep them open longer before the next fill, and 1/8 makes more of them: +0.127
	 * against +0.003 without the load, the headroom falling steadily (-8,003 blocks/h).
	 */
	r.cap = level == FRAGLOAD_HEAVY ? base / 4 : base / 16;
	batch = r.cap / 8;
	r.keep_cap = r.cap - batch;
	r.unit_bytes[FK_ANON] = 4096;
	r.unit_bytes[FK_PIPE] = FRAGLOAD_PIPE_PAGES * 4096;
	r.unit_bytes[FK_PGTABLE] = 4096;
	r.unit_bytes[FK_SOCKET] = FRAGLOAD_MSG_EST;
	r.unit_bytes[FK_FILE] = FRAGLOAD_FILE_EST;
	for (int k = 0; k < FK_NKINDS; k++) {
		uint64_t n = batch * SHARE[k] / 1000 / r.unit_bytes[k];
		r.units[k] = n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
	}
	/*
	 * Pipes and files cost descriptors: scale both down to what the process may open.  Fewer of
	 * them make the long-lived set take more cycles to fill (and hold more of each), so step.
	 */
	while (fds_needed(&r, 64) > fds && (r.units[FK_PIPE] > 1 || r.units[FK_FILE] > 1)) {
		/* Down to one of each, not none: a small batch has only a few pipes to give up. */
		for (int k = FK_PIPE; k <= FK_FILE; k += FK_FILE - FK_PIPE)
			if (r.units[k] > 1)
				r.units[k] -= r.units[k] / 8 ? r.units[k] / 8 : 1;
	}
	if (fds_needed(&r, 64) > fds)
		return -1;
	for (int k = 0; k < FK_NKINDS; k++)
		if (r.units[k] == 0)
			return -1;
	/*
	 * A cycle is a fixed stretch of wall time (fragload_run.c paces it from its start), with room
	 * in it for the work: a fill and a free took 4-8 s at a batch of 1/8 in the Xen test bed's dom0
	 * under TCG, beside the churn.  Then a guest ages by the clock, not by how fast its CPU is.
	 */
	if (level == FRAGLOAD_HEAVY) {
		r.fill_ms = 4000;
		r.hold_ms = 2000;
		r.free_ms = 2000;
		r.rest_ms = 8000;
	} else {
		r.fill_ms = 8000;
		r.hold_ms = 4000;
		r.free_ms = 4000;
		r.rest_ms = 16000;
	}
	*out = r;
	return 0;
}

/* ---- shuffle (pure) ----------------------------------------------------------------------- */

uint64_t fragload_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

void fragload_shuffle(uint32_t *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(fragload_rand(state) % i);
		uint32_t t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

size_t fragload_rec_size(uint32_t type)
{
	size_t h = offsetof(struct fragload_rec, u);

	switch (type) {
	case FRAGLOAD_REC_HELLO:
		return h + sizeof(struct fragload_hello);
	case FRAGLOAD_REC_STATUS:
		return h + sizeof(struct fragload_status);
	case FRAGLOAD_REC_NOTE:
		return h + sizeof(struct fragload_note);
	default:
		return h;
	}
}

/* ---- exec into the static helper ---------------------------------------------------------- */

#define BLOB_MAGIC "FPUFRAG1"

struct blob_hdr {
	char magic[8];
	uint32_t cfg_size, rec_size, cmd_size, pad;
};
_Static_assert(sizeof(struct blob_hdr) + sizeof(struct fragload_cfg) <= FRAGLOAD_BLOB_MAX, "raise FRAGLOAD_BLOB_MAX");

size_t fragload_blob_pack(const struct fragload_cfg *cfg, void *buf, size_t cap)
{
	struct blob_hdr h = { .cfg_size = sizeof *cfg, .rec_size = sizeof(struct fragload_rec),
			      .cmd_size = sizeof(struct fragload_cmd) };

	if (sizeof h + sizeof *cfg > cap)
		return 0;
	memcpy(h.magic, BLOB_MAGIC, sizeof h.magic);
	memcpy(buf, &h, sizeof h);
	memcpy((char *)buf + sizeof h, cfg, sizeof *cfg);
	return sizeof h + sizeof *cfg;
}

int fragload_blob_unpack(const void *buf, size_t len, struct fragload_cfg *cfg, char *why, size_t whylen)
{
	struct blob_hdr h;

	if (len != sizeof h + sizeof *cfg) {
		snprintf(why, whylen, "fragment config blob is %zu bytes, want %zu", len, sizeof h + sizeof *cfg);
		return -1;
	}
	memcpy(&h, buf, sizeof h);
	if (memcmp(h.magic, BLOB_MAGIC, sizeof h.magic) != 0 || h.cfg_size != sizeof *cfg ||
	    h.rec_size != sizeof(struct fragload_rec) || h.cmd_size != sizeof(struct fragload_cmd)) {
		snprintf(why, whylen, "fragment config from another build: install fpusoakd and fpusoakd-spawner together");
		return -1;
	}
	memcpy(cfg, (const char *)buf + sizeof h, sizeof *cfg);
	return 0;
}

int fragload_exec(const struct fragload_cfg *cfg, const char *path)
{
	unsigned char blob[sizeof(struct blob_hdr) + sizeof(struct fragload_cfg)];
	char fdarg[16];
	char *argv[] = { "fpusoakd-fragment", "--internal-fragment", fdarg, NULL };
	size_t len = fragload_blob_pack(cfg, blob, sizeof blob);
	int mfd = blobexec_memfd("fpusoakd-fragment-cfg", blob, len), saved;

	if (mfd < 0)
		return -1;
	/* The socket and the directory cross the exec; everything else of the daemon's is CLOEXEC. */
	if (fcntl(cfg->sock, F_SETFD, 0) < 0 || (cfg->dirfd >= 0 && fcntl(cfg->dirfd, F_SETFD, 0) < 0))
		goto fail;
	snprintf(fdarg, sizeof fdarg, "%d", mfd);
	execv(path, argv);
fail:
	saved = errno;
	close(mfd);
	errno = saved;
	return -1;
}
