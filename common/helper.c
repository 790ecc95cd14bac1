/* SPDX-License-Identifier: GPL-2.0-only */
/* helper: finding the programs fpusoakd execs; see helper.h. */
#include "common/helper.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *helper_path(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash;

	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash && (size_t)snprintf(buf, len, "%.*s/%s", (int)(slash - exe), exe, name) < len &&
		    access(buf, X_OK) == 0)
			return buf;
	}
	if ((size_t)snprintf(buf, len, "%s/%s", FPUSOAK_LIBEXECDIR, name) < len && access(buf, X_OK) == 0)
		return buf;
	return NULL;
}
