/* SPDX-License-Identifier: GPL-2.0-only */
/* prio: relative CPU priorities; see prio.h. */
#include "common/prio.h"

#include <errno.h>
#include <sys/resource.h>

int prio_lower(int step, int cap)
{
	int cur, want;

	errno = 0;
	cur = getpriority(PRIO_PROCESS, 0);
	if (cur == -1 && errno)
		return -1;
	want = cur + step < cap ? cur + step : cap;
	if (want <= cur)
		return cur;
	return setpriority(PRIO_PROCESS, 0, want) < 0 ? -1 : want;
}
