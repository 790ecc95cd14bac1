/* SPDX-License-Identifier: GPL-2.0-only */
/* vmknobs: the allocator's knobs of a run; see vmknobs.h. */
#include "collector/vmknobs.h"

#include <stdio.h>
#include <string.h>

#include "collector/procfile.h"
#include "common/num.h"

static const struct {
	const char *name;         /* as stored */
	const char *path;         /* under proc_root (sys = 0) or sys_root (sys = 1) */
	int sys, choice;
} KNOBS[] = {
	{ "vm.min_free_kbytes", "sys/vm/min_free_kbytes", 0, 0 },
	{ "vm.watermark_scale_factor", "sys/vm/watermark_scale_factor", 0, 0 },
	{ "vm.watermark_boost_factor", "sys/vm/watermark_boost_factor", 0, 0 },
	{ "vm.compaction_proactiveness", "sys/vm/compaction_proactiveness", 0, 0 },
	{ "vm.extfrag_threshold", "sys/vm/extfrag_threshold", 0, 0 },
	{ "vm.defrag_mode", "sys/vm/defrag_mode", 0, 0 },
	{ "thp.enabled", "kernel/mm/transparent_hugepage/enabled", 1, 1 },
	{ "thp.defrag", "kernel/mm/transparent_hugepage/defrag", 1, 1 },
};

_Static_assert(sizeof KNOBS / sizeof KNOBS[0] <= VMKNOBS_MAX, "room for every knob");

int vmknob_parse_int(const char *buf, size_t len, char *out, size_t outlen)
{
	int64_t v;

	/* One line: the number and its newline (procfs writes "%d\n"). */
	if (len && buf[len - 1] == '\n')
		len--;
	if (num_parse_i64(buf, len, &v) < 0 || (size_t)snprintf(out, outlen, "%lld", (long long)v) >= outlen)
		return -1;
	return 0;
}

int vmknob_parse_choice(const char *buf, size_t len, char *out, size_t outlen)
{
	const char *open = NULL, *close = NULL;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '[') {
			if (open)
				return -1;   /* two choices: not the format */
			open = buf + i;
		} else if (c == ']') {
			if (!open || close)
				return -1;
			close = buf + i;
		} else if ((c < 0x20 || c > 0x7e) && !(c == '\n' && i == len - 1)) {
			return -1;
		}
	}
	if (!open || !close || close - open < 2 || (size_t)(close - open - 1) >= outlen)
		return -1;
	for (const char *p = open + 1; p < close; p++)
		if (*p == ' ')
			return -1;
	memcpy(out, open + 1, (size_t)(close - open - 1));
	out[close - open - 1] = 0;
	return 0;
}

void vmknobs_collect(const char *proc_root, const char *sys_root, struct vmknobs *out)
{
	char buf[256];

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof KNOBS / sizeof KNOBS[0]; i++) {
		ssize_t n = procfile_read(KNOBS[i].sys ? sys_root : proc_root, KNOBS[i].path, buf, sizeof buf);
		char *v = out->k[out->n].value;
		if (n < 0)
			continue;
		if ((KNOBS[i].choice ? vmknob_parse_choice : vmknob_parse_int)(buf, (size_t)n, v, VMKNOB_VALUE_MAX) < 0)
			continue;
		snprintf(out->k[out->n].name, VMKNOB_NAME_MAX, "%s", KNOBS[i].name);
		out->n++;
	}
}
