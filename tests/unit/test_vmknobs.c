/* SPDX-License-Identifier: GPL-2.0-only */
/* test_vmknobs: the integer and bracketed-choice parsers, and a collect over a fixture tree and this machine. */
#include <sys/stat.h>

#include "collector/vmknobs.h"
#include "test.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0 || !(f = fopen(path, "w")))
		return;
	fputs(text, f);
	fclose(f);
}

int main(void)
{
	char out[VMKNOB_VALUE_MAX], dir[] = "/tmp/test_vmknobs.XXXXXX", proc[600], sys[600];
	struct vmknobs k;

	T_CHECK(vmknob_parse_int("67584\n", 6, out, sizeof out) == 0 && strcmp(out, "67584") == 0, "integer: %s", out);
	T_CHECK(vmknob_parse_int("-1\n", 3, out, sizeof out) == 0 && strcmp(out, "-1") == 0, "negative integer");
	T_EQ_I(vmknob_parse_int("12 13\n", 6, out, sizeof out), -1, "two numbers");
	T_EQ_I(vmknob_parse_int("", 0, out, sizeof out), -1, "empty");
	T_EQ_I(vmknob_parse_int("0x10\n", 5, out, sizeof out), -1, "hex");
	T_CHECK(vmknob_parse_choice("always [madvise] never\n", 23, out, sizeof out) == 0 && strcmp(out, "madvise") == 0,
		"THP enabled: %s", out);
	T_CHECK(vmknob_parse_choice("always defer defer+madvise [madvise] never\n", 43, out, sizeof out) == 0 &&
		strcmp(out, "madvise") == 0, "THP defrag: %s", out);
	T_CHECK(vmknob_parse_choice("[always] madvise never", 22, out, sizeof out) == 0 && strcmp(out, "always") == 0,
		"first word chosen, no newline");
	T_EQ_I(vmknob_parse_choice("always madvise never\n", 21, out, sizeof out), -1, "no choice");
	T_EQ_I(vmknob_parse_choice("[always] [never]\n", 17, out, sizeof out), -1, "two choices");
	T_EQ_I(vmknob_parse_choice("[]\n", 3, out, sizeof out), -1, "empty choice");
	T_EQ_I(vmknob_parse_choice("[a b]\n", 6, out, sizeof out), -1, "a blank inside");
	T_EQ_I(vmknob_parse_choice("[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]", 33, out, sizeof out), -1, "too long: refused");

	/* A fixture tree: a kernel without defrag_mode, one knob garbled (left out, not 0). */
	if (!mkdtemp(dir)) {
		T_SKIP("no temp dir");
		T_DONE();
	}
	snprintf(proc, sizeof proc, "%s/proc", dir);
	snprintf(sys, sizeof sys, "%s/sys", dir);
	put(proc, "sys/vm/min_free_kbytes", "16384\n");
	put(proc, "sys/vm/watermark_scale_factor", "10\n");
	put(proc, "sys/vm/watermark_boost_factor", "garbled\n");
	put(proc, "sys/vm/compaction_proactiveness", "20\n");
	put(proc, "sys/vm/extfrag_threshold", "500\n");
	put(sys, "kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
	put(sys, "kernel/mm/transparent_hugepage/defrag", "always defer defer+madvise [madvise] never\n");
	vmknobs_collect(proc, sys, &k);
	{
		char all[512] = "";
		for (int i = 0; i < k.n; i++)
			t_app(all, sizeof all, "%s%s=%s", i ? " " : "", k.k[i].name, k.k[i].value);
		T_EQ_S(all, "vm.min_free_kbytes=16384 vm.watermark_scale_factor=10 vm.compaction_proactiveness=20 "
		       "vm.extfrag_threshold=500 thp.enabled=always thp.defrag=madvise", "fixture tree: what is there, nothing else");
	}
	{
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			T_SKIP("temp dir left: %s", dir);
	}
	vmknobs_collect("/proc", "/sys", &k);
	T_CHECK(k.n >= 5 && strcmp(k.k[0].name, "vm.min_free_kbytes") == 0, "this machine: %d knobs, %s=%s", k.n,
		k.n ? k.k[0].name : "-", k.n ? k.k[0].value : "-");
	T_DONE();
}
