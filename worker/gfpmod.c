/* SPDX-License-Identifier: GPL-2.0-only */
/* gfp: the fpusoak_gfp module's client and the --gfp-mode rules; see gfp.h. */
#include "worker/gfpmod.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *const NAMES[] = { "off", "kernel", "atomic", "nowait", "alternate" };

int gfpmod_mode_parse(const char *s, enum gfp_mode *out)
{
	for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
		if (strcmp(s, NAMES[i]) == 0) {
			*out = (enum gfp_mode)i;
			return 0;
		}
	return -1;
}

const char *gfpmod_mode_name(int mode)
{
	return mode >= 0 && (size_t)mode < sizeof NAMES / sizeof NAMES[0] ? NAMES[mode] : "?";
}

enum gfp_mode gfpmod_churn_mode(enum gfp_mode m)
{
	return m == GFP_MODE_ALTERNATE ? GFP_MODE_KERNEL : m;
}

enum gfp_mode gfpmod_probe_mode(enum gfp_mode m, uint64_t n)
{
	if (m != GFP_MODE_ALTERNATE)
		return m;
	return n % 2 == 0 ? GFP_MODE_KERNEL : GFP_MODE_ATOMIC;
}

static int concrete(enum gfp_mode mode)
{
	return mode == GFP_MODE_KERNEL || mode == GFP_MODE_ATOMIC || mode == GFP_MODE_NOWAIT;
}

int gfpmod_open(void)
{
	return open(FPUSOAK_GFP_DEVICE, O_RDWR | O_CLOEXEC);
}

int gfpmod_info(int fd, struct fpusoak_gfp_info *out)
{
	memset(out, 0, sizeof *out);
	if (ioctl(fd, FPUSOAK_GFP_IOC_INFO, out) < 0)
		return -1;
	if (out->abi != FPUSOAK_GFP_ABI) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int gfpmod_hold(int fd, uint32_t size, enum gfp_mode mode)
{
	struct fpusoak_gfp_hold h = { .size = size, .mode = (uint32_t)mode };

	if (!concrete(mode)) {
		errno = EINVAL;
		return -1;
	}
	return ioctl(fd, FPUSOAK_GFP_IOC_HOLD, &h) < 0 ? -1 : 0;
}

int gfpmod_try(int fd, unsigned order, enum gfp_mode mode, int *ok, uint64_t *ns)
{
	struct fpusoak_gfp_try t = { .order = order, .mode = (uint32_t)mode, .flags = FPUSOAK_GFP_TRY_NOKSWAPD };

	if (!concrete(mode)) {
		errno = EINVAL;
		return -1;
	}
	if (ioctl(fd, FPUSOAK_GFP_IOC_TRY, &t) < 0)
		return -1;
	*ok = t.ok != 0;
	if (ns)
		*ns = t.duration_ns;
	return 0;
}

int gfpmod_detect(struct fpusoak_gfp_info *info, char *why, size_t whylen)
{
	int fd = gfpmod_open();

	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			snprintf(why, whylen, "module not loaded");
		else
			snprintf(why, whylen, "cannot open %s: %s", FPUSOAK_GFP_DEVICE, strerror(errno));
		return -1;
	}
	if (gfpmod_info(fd, info) < 0) {
		if (errno == EPROTO)
			snprintf(why, whylen, "%s speaks interface %u, this fpusoakd %d: rebuild the module",
				 FPUSOAK_GFP_DEVICE, info->abi, FPUSOAK_GFP_ABI);
		else
			snprintf(why, whylen, "%s: INFO: %s", FPUSOAK_GFP_DEVICE, strerror(errno));
		close(fd);
		return -1;
	}
	why[0] = 0;
	return fd;
}
