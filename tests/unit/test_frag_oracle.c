/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_frag_oracle: the running kernel is the oracle.  Read /proc/buddyinfo,
 * /sys/kernel/debug/extfrag/unusable_index and extfrag_index, then buddyinfo
 * again; when the two buddyinfo reads are byte-identical the free lists did
 * not change under us (retry up to 200 times), and both debugfs files must
 * then equal, byte for byte, what frag computes and formats from buddyinfo.
 * Mounts debugfs if needed (root) and unmounts it again if it did.
 * SKIPs, with the reason, where debugfs or CONFIG_COMPACTION is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/frag.h"
#include "collector/buddyinfo.h"
#include "common/procfile.h"
#include "test.h"

#define DEBUGFS "/sys/kernel/debug"
#define TRIES 200

static char b1[1 << 16], b2[1 << 16], ub[1 << 16], eb[1 << 16];
static char want_u[1 << 16], want_e[1 << 16];
static struct buddyinfo bi;

/* What mm/vmstat.c unusable_show_print / extfrag_show_print would print for bi. */
static void expected(const struct buddyinfo *b)
{
	size_t ou = 0, oe = 0;

	for (int i = 0; i < b->nzones; i++) {
		const struct buddy_zone *z = &b->z[i];

		ou += (size_t)snprintf(want_u + ou, sizeof want_u - ou, "Node %d, zone %8s ", z->node, z->zone);
		oe += (size_t)snprintf(want_e + oe, sizeof want_e - oe, "Node %d, zone %8s ", z->node, z->zone);
		for (unsigned k = 0; k < (unsigned)b->norders; k++) {
			char u[FRAG_FMT_MAX], e[FRAG_FMT_MAX];
			int ui, ei;

			frag_indices(z->free, b->norders, k, &ui, &ei);
			ou += (size_t)snprintf(want_u + ou, sizeof want_u - ou, "%s ", frag_format_unusable(ui, u, sizeof u));
			oe += (size_t)snprintf(want_e + oe, sizeof want_e - oe, "%s ", frag_format_extfrag(ei, e, sizeof e));
		}
		ou += (size_t)snprintf(want_u + ou, sizeof want_u - ou, "\n");
		oe += (size_t)snprintf(want_e + oe, sizeof want_e - oe, "\n");
	}
}

static int debugfs_mounted(void)
{
	struct stat a, b;

	/* A mount point has a different device from its parent. */
	return stat(DEBUGFS, &a) == 0 && stat("/sys/kernel", &b) == 0 && a.st_dev != b.st_dev;
}

/* Show the first differing line of want vs got. */
static void first_diff(const char *want, const char *got)
{
	const char *w = want, *g = got;

	while (*w && *g) {
		const char *wn = strchr(w, '\n'), *gn = strchr(g, '\n');
		size_t wl = wn ? (size_t)(wn - w) : strlen(w), gl = gn ? (size_t)(gn - g) : strlen(g);

		if (wl != gl || memcmp(w, g, wl) != 0) {
			printf("      kernel: \"%.*s\"\n      ours:   \"%.*s\"\n", (int)gl, g, (int)wl, w);
			return;
		}
		if (!wn || !gn)
			break;
		w = wn + 1;
		g = gn + 1;
	}
}

int main(void)
{
	int mounted_here = 0, fb = -1, fu = -1, fe = -1, stable = -1;
	ssize_t n1 = 0, n2 = 0, nu = 0, ne = 0;

	if (geteuid() != 0) {
		T_SKIP("debugfs oracle needs root");
		T_DONE();
	}
	if (access(DEBUGFS "/extfrag/unusable_index", R_OK) != 0 && !debugfs_mounted()) {
		if (mount("none", DEBUGFS, "debugfs", 0, NULL) != 0) {
			T_SKIP("cannot mount debugfs on " DEBUGFS ": %s", strerror(errno));
			T_DONE();
		}
		mounted_here = 1;
	}
	fu = open(DEBUGFS "/extfrag/unusable_index", O_RDONLY | O_CLOEXEC);
	fe = open(DEBUGFS "/extfrag/extfrag_index", O_RDONLY | O_CLOEXEC);
	fb = open("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
	if (fu < 0 || fe < 0) {
		T_SKIP("no " DEBUGFS "/extfrag (kernel without CONFIG_COMPACTION or CONFIG_DEBUG_FS?): %s", strerror(errno));
		goto out;
	}
	if (fb < 0) {
		T_SKIP("cannot open /proc/buddyinfo: %s", strerror(errno));
		goto out;
	}
	/* Back-to-back preads on open files keep the window short; identical buddyinfo bytes bracket it. */
	for (int t = 0; t < TRIES; t++) {
		n1 = procfile_pread(fb, b1, sizeof b1);
		nu = procfile_pread(fu, ub, sizeof ub);
		ne = procfile_pread(fe, eb, sizeof eb);
		n2 = procfile_pread(fb, b2, sizeof b2);
		if (n1 < 0 || nu < 0 || ne < 0 || n2 < 0) {
			T_CHECK(0, "read buddyinfo/debugfs: %s", strerror(errno));
			goto out;
		}
		if (n1 == n2 && memcmp(b1, b2, (size_t)n1) == 0) {
			stable = t;
			break;
		}
	}
	if (stable < 0) {
		T_SKIP("buddyinfo changed across the debugfs reads %d times in a row (busy machine); no stable snapshot", TRIES);
		goto out;
	}
	printf("# stable snapshot after %d retries\n", stable);
	T_CHECK(buddyinfo_parse(b1, (size_t)n1, &bi) == 0 && bi.nzones > 0, "buddyinfo parses (%d zones, %d orders)",
		bi.nzones, bi.norders);
	expected(&bi);
	T_CHECK((size_t)nu == strlen(want_u) && memcmp(ub, want_u, (size_t)nu) == 0,
		"unusable_index: all %d x %d values equal the kernel's, byte for byte", bi.nzones, bi.norders);
	if ((size_t)nu != strlen(want_u) || memcmp(ub, want_u, (size_t)nu) != 0)
		first_diff(want_u, ub);
	T_CHECK((size_t)ne == strlen(want_e) && memcmp(eb, want_e, (size_t)ne) == 0,
		"extfrag_index: all %d x %d values equal the kernel's, byte for byte", bi.nzones, bi.norders);
	if ((size_t)ne != strlen(want_e) || memcmp(eb, want_e, (size_t)ne) != 0)
		first_diff(want_e, eb);
	printf("# kernel unusable_index:\n%s# kernel extfrag_index:\n%s", ub, eb);
out:
	if (fb >= 0)
		close(fb);
	if (fu >= 0)
		close(fu);
	if (fe >= 0)
		close(fe);
	if (mounted_here && umount(DEBUGFS) != 0)
		printf("# could not unmount debugfs: %s\n", strerror(errno));
	T_DONE();
}
