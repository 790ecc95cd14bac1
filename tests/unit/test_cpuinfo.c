/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpuinfo: what CPUID says must agree with what the kernel says about the
 * same CPU.  Independent sources: /proc/cpuinfo (vendor_id, model name,
 * flags: the kernel's own CPUID read, minus what it disabled) and the boot
 * log's "x86/fpu:" lines (the kernel's reading of leaf 0xD).  The sysfs
 * reader runs on hand-made trees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "collector/cpuinfo.h"
#include "collector/procfile.h"
#include "common/num.h"
#include "tests/unit/test.h"

static char procbuf[1 << 20];

/* Value of the first "key\t: value" line of /proc/cpuinfo, or NULL. */
static const char *proc_field(const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);

	for (char *l = procbuf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) != 0 || (l[kl] != '\t' && l[kl] != ' '))
			continue;
		char *c = strchr(l, ':');
		char *e = strchr(l, '\n');
		if (!c || !e || c > e)
			return NULL;
		c++;
		while (*c == ' ')
			c++;
		snprintf(out, outlen, "%.*s", (int)(e - c), c);
		return out;
	}
	return NULL;
}

static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return 1;
	return 0;
}

/* The boot log's per-component sizes; returns how many lines were found (0: log unavailable). */
static int dmesg_xstate(uint32_t sizes[CPUINFO_NCOMP], uint64_t *enabled, int64_t *ctx)
{
	static char log[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof log - 1);
	int found = 0;

	*enabled = 0;
	*ctx = -1;
	if (n <= 0)
		return 0;
	log[n] = 0;
	for (char *p = log; (p = strstr(p, "xstate_sizes[")); p++) {
		char *q = p + strlen("xstate_sizes[");
		uint64_t idx, sz;
		size_t used;
		if (num_prefix_u64(q, strlen(q), &idx, &used) < 0 || idx >= CPUINFO_NCOMP)
			continue;
		q += used;
		if (strncmp(q, "]:", 2) != 0)
			continue;
		q += 2;
		while (*q == ' ')
			q++;
		if (num_prefix_u64(q, strlen(q), &sz, &used) < 0)
			continue;
		sizes[idx] = (uint32_t)sz;
		found++;
	}
	char *e = strstr(log, "Enabled xstate features 0x");
	if (e) {
		e += strlen("Enabled xstate features ");
		size_t l = strcspn(e, ",");
		if (num_parse_hex(e, l, enabled) < 0)
			*enabled = 0;
		char *c = strstr(e, "context size is ");
		uint64_t v;
		size_t used;
		if (c && num_prefix_u64(c + 16, strlen(c + 16), &v, &used) == 0)
			*ctx = (int64_t)v;
	}
	return found;
}

static void test_live(void)
{
	struct cpuinfo ci;
	char feat[512], detail[1024], want[128], flags[8192];

	T_EQ_I(cpuinfo_detect(&ci), 0, "cpuinfo_detect succeeds on x86");
	if (!ci.valid)
		return;
	T_CHECK(cpuinfo_features(&ci, feat, sizeof feat) == 0, "feature list fits");
	T_CHECK(cpuinfo_xstate_detail(&ci, detail, sizeof detail) == 0, "xstate detail fits");
	printf("found: vendor=%s model=\"%s\" family=%u model=%u stepping=%u\n", ci.vendor, ci.model,
	       ci.family, ci.model_id, ci.stepping);
	printf("found: features: %s\n", feat);
	printf("found: xstate: %s\n", detail);
	printf("found: hypervisor=%s signature=\"%s\"\n", cpuinfo_hypervisor_name(&ci), ci.hv_signature);

	if (procfile_read(NULL, "proc/cpuinfo", procbuf, sizeof procbuf) < 0) {
		T_SKIP("/proc/cpuinfo unreadable: no cross-check");
		return;
	}
	if (proc_field("vendor_id", want, sizeof want))
		T_EQ_S(ci.vendor, want, "vendor matches /proc/cpuinfo vendor_id");
	if (proc_field("model name", want, sizeof want)) {
		char got[64];
		T_EQ_I(cpuinfo_proc_model(procbuf, strlen(procbuf), got, sizeof got), 1, "cpuinfo_proc_model finds it");
		T_EQ_S(got, want, "cpuinfo_proc_model reads /proc/cpuinfo's model name as the test does");
		/* A hypervisor may tell CPUID and the kernel different names (an AMD EPYC VM: "Oxide Virtual
		 * Turin-like Processor" against "AMD EPYC"): then the decoding cannot be checked here, and
		 * both names are what a run records (runs.cpu_model, runs.cpu_model_kernel). */
		if (strcmp(ci.model, want) == 0)
			T_CHECK(1, "CPUID brand string matches /proc/cpuinfo model name (%s)", want);
		else
			T_SKIP("CPUID brand string \"%s\" differs from the kernel's \"%s\" (a hypervisor's choice):"
			       " brand decoding not cross-checked here; runs record both", ci.model, want);
	}
	if (!proc_field("flags", flags, sizeof flags)) {
		T_SKIP("no flags line in /proc/cpuinfo");
		return;
	}
	for (uint32_t bit = 1; bit <= CPUINFO_HYPERVISOR; bit <<= 1) {
		const char *pn = cpuinfo_feature_procname(bit), *name = cpuinfo_feature_name(bit);
		int cpu = !!(ci.features & bit), kern;
		if (!pn)
			continue;
		kern = has_word(flags, pn);
		if (cpu == kern) {
			T_CHECK(1, "%s: CPUID %d, /proc/cpuinfo %d", name, cpu, kern);
			continue;
		}
		/* The kernel hides what it did not enable in XCR0 (e.g. avx512f without ZMM state). */
		int xstate_dep = bit & (CPUINFO_AVX | CPUINFO_FMA | CPUINFO_AVX2 | CPUINFO_AVX512F |
					CPUINFO_AVX512BW | CPUINFO_AVX512VL | CPUINFO_AMX_TILE |
					CPUINFO_AMX_INT8 | CPUINFO_AMX_BF16);
		uint64_t need = bit & (CPUINFO_AMX_TILE | CPUINFO_AMX_INT8 | CPUINFO_AMX_BF16) ? 0x60000 :
				bit & (CPUINFO_AVX512F | CPUINFO_AVX512BW | CPUINFO_AVX512VL) ? 0xe6 : 0x6;
		T_CHECK(cpu && !kern && xstate_dep && (ci.xcr0 & need) != need,
			"%s: CPUID %d but /proc/cpuinfo %d (only allowed when XCR0 lacks the state)", name, cpu, kern);
	}
	T_EQ_I(!strcmp(cpuinfo_hypervisor_name(&ci), "none"), !has_word(flags, "hypervisor"),
	       "hypervisor named iff the kernel sees the hypervisor bit");
	T_CHECK(has_word(feat, "x87") && has_word(feat, "sse2"), "x87 and sse2 listed (x86-64 baseline)");
}

static void test_xstate(void)
{
	struct cpuinfo ci;
	uint32_t dsz[CPUINFO_NCOMP] = { 0 };
	uint64_t enabled, supervisor = 0;
	int64_t ctx, std_end = 576;
	char hex[32], detail[1024];

	cpuinfo_detect(&ci);
	if (!(ci.features & CPUINFO_OSXSAVE)) {
		T_SKIP("no OSXSAVE: XCR0 not readable");
		return;
	}
	T_EQ_I(ci.xcr0 & 3, 3, "XCR0 has x87 and SSE (architecturally required)");
	T_EQ_I(ci.xcr0 & ~ci.xsave_user_mask, 0, "XCR0 only enables components CPUID 0xD.0 offers");
	/* Standard format: the area for XCR0 ends where its last enabled component ends. */
	for (int i = 2; i < CPUINFO_NCOMP; i++) {
		if (ci.comp_flags[i] & 1)
			supervisor |= 1ull << i;
		if ((ci.xcr0 >> i & 1) && ci.comp_offset[i] + ci.comp_size[i] > std_end)
			std_end = ci.comp_offset[i] + ci.comp_size[i];
	}
	T_EQ_I(ci.xstate_user_bytes, std_end, "0xD.0 EBX = end of the last XCR0 component (offset+size)");
	T_CHECK(ci.xstate_max_bytes >= ci.xstate_user_bytes, "max size >= enabled size");
	snprintf(hex, sizeof hex, "xcr0=0x%llx", (unsigned long long)ci.xcr0);
	cpuinfo_xstate_detail(&ci, detail, sizeof detail);
	T_CHECK(strstr(detail, hex) == detail, "detail starts with %s", hex);
	if ((ci.xcr0 & 0xe0) == 0xe0)
		T_CHECK(strstr(detail, "avx512_zmm_hi256=") != NULL, "AVX-512 enabled: zmm_hi256 size listed");

	if (dmesg_xstate(dsz, &enabled, &ctx) == 0) {
		T_SKIP("boot log has no x86/fpu lines (rotated out or dmesg restricted): no kernel cross-check");
		return;
	}
	for (int i = 2; i < CPUINFO_NCOMP; i++)
		if (dsz[i])
			T_EQ_I(ci.comp_size[i], dsz[i], "component %d (%s) size matches the boot log", i,
			       cpuinfo_xfeature_name(i));
	T_EQ_I(enabled & ~supervisor, ci.xcr0, "boot log's enabled user features = XCR0");
	if (ci.features & CPUINFO_XSAVES)
		T_EQ_I(ci.xstate_compact_bytes, ctx, "0xD.1 EBX = boot log's context size (compacted)");
}

static void test_sysfs(void)
{
	static const struct {
		const char *root;
		int rc;
		const char *type, *guest;
	} cases[] = {
		{ "sys-xen-pv", 0, "xen", "PV" },
		{ "sys-xen-old", 0, "xen", "" },
		{ "sys-hv-junk", -1, "", "" },
		{ "no-such-dir", -1, "", "" },
	};
	const char *fx = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	char root[512], type[16], guest[16], small[3];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(root, sizeof root, "%s/%s", fx, cases[i].root);
		T_EQ_I(cpuinfo_hv_sys(root, type, sizeof type, guest, sizeof guest), cases[i].rc,
		       "hv_sys %s rc", cases[i].root);
		T_EQ_S(type, cases[i].type, "hv_sys %s type", cases[i].root);
		T_EQ_S(guest, cases[i].guest, "hv_sys %s guest_type", cases[i].root);
	}
	snprintf(root, sizeof root, "%s/sys-xen-pv", fx);
	T_EQ_I(cpuinfo_hv_sys(root, small, sizeof small, guest, sizeof guest), -1,
	       "type longer than the caller's buffer is an error, not a cut");
	int rc = cpuinfo_hv_sys("/sys", type, sizeof type, guest, sizeof guest);
	printf("found: /sys/hypervisor: %s%s%s\n", rc == 0 ? type : "(absent)", guest[0] ? "/" : "", guest);
}

/* Issue 31: "other:bhyve bhyve " (the signature's blank padding) showed in /metrics labels and summaries. */
static void test_hv_name(void)
{
	char out[32];

	T_EQ_S(cpuinfo_hv_name("bhyve bhyve ", out, sizeof out), "other:bhyve bhyve", "bhyve: the padding is not the name");
	T_EQ_S(cpuinfo_hv_name("TCGTCGTCGTCG", out, sizeof out), "other:TCGTCGTCGTCG", "TCG: 12 bytes, no padding");
	T_EQ_S(cpuinfo_hv_name("KVMKVMKVM", out, sizeof out), "kvm", "KVM");
	T_EQ_S(cpuinfo_hv_name("Microsoft Hv", out, sizeof out), "hyperv", "Hyper-V (a blank inside is kept)");
	T_EQ_S(cpuinfo_hv_name("", out, sizeof out), "other:", "no signature");
}

/* cpuinfo_proc_model over /proc/cpuinfo text: the first "model name", trimmed; absent, cut or odd: said. */
static void test_proc_model(void)
{
	static const struct { const char *in; int rc; const char *want; } t[] = {
		{ "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nflags\t: fpu\n", 1, "AMD EPYC" },
		{ "model name\t:   Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz  \nmodel name\t: second\n", 1,
		  "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz" },
		{ "model\t\t: 17\nmodel names\t: no\n", 0, "" },          /* a longer key is another key */
		{ "processor\t: 0\nBogoMIPS\t: 100\n", 0, "" },          /* arm64 prints none */
		{ "model name\t:\n", 1, "" },                              /* empty, as a hypervisor may leave it */
		{ "model name : x\x01y\n", -1, "" },                       /* a control character is not a name */
		{ "model name\t: AMD EPYC", 1, "AMD EPYC" },                /* last line without a newline */
		{ "model name\t: 0123456789012345678901234567890123456789012345678901234567890123456789\n", -1, "" },
		{ "", 0, "" },
	};
	char out[64];

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = cpuinfo_proc_model(t[i].in, strlen(t[i].in), out, sizeof out);
		T_EQ_I(rc, t[i].rc, "proc_model case %zu: rc", i);
		if (rc == 1)
			T_EQ_S(out, t[i].want, "proc_model case %zu: name", i);
	}
}

int main(void)
{
	test_hv_name();
	test_proc_model();
	test_live();
	test_xstate();
	test_sysfs();
	T_DONE();
}
