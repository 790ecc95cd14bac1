/* SPDX-License-Identifier: GPL-2.0-only */
/* cpuinfo: CPUID, XCR0 and /sys/hypervisor; see cpuinfo.h. */
#include "collector/cpuinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/procfile.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
#else
#define HAVE_CPUID 0
#endif

enum { EAX, EBX, ECX, EDX };

/* One row per feature bit: where CPUID keeps it and what the kernel calls it. */
static const struct feat {
	uint32_t bit;
	const char *name;       /* ours, used in runs.fpu_features */
	const char *procname;   /* /proc/cpuinfo flag, NULL if the kernel hides it */
	uint32_t leaf, sub;
	int reg, shift;
} feats[] = {
	{ CPUINFO_X87, "x87", "fpu", 1, 0, EDX, 0 },
	{ CPUINFO_SSE, "sse", "sse", 1, 0, EDX, 25 },
	{ CPUINFO_SSE2, "sse2", "sse2", 1, 0, EDX, 26 },
	{ CPUINFO_XSAVE, "xsave", "xsave", 1, 0, ECX, 26 },
	{ CPUINFO_OSXSAVE, "osxsave", NULL, 1, 0, ECX, 27 },    /* dynamic (CR4), not printed */
	{ CPUINFO_AVX, "avx", "avx", 1, 0, ECX, 28 },
	{ CPUINFO_FMA, "fma", "fma", 1, 0, ECX, 12 },
	{ CPUINFO_AVX2, "avx2", "avx2", 7, 0, EBX, 5 },
	{ CPUINFO_AVX512F, "avx512f", "avx512f", 7, 0, EBX, 16 },
	{ CPUINFO_AVX512BW, "avx512bw", "avx512bw", 7, 0, EBX, 30 },
	{ CPUINFO_AVX512VL, "avx512vl", "avx512vl", 7, 0, EBX, 31 },
	{ CPUINFO_AMX_TILE, "amx-tile", "amx_tile", 7, 0, EDX, 24 },
	{ CPUINFO_AMX_INT8, "amx-int8", "amx_int8", 7, 0, EDX, 25 },
	{ CPUINFO_AMX_BF16, "amx-bf16", "amx_bf16", 7, 0, EDX, 22 },
	{ CPUINFO_XSAVEOPT, "xsaveopt", "xsaveopt", 0xd, 1, EAX, 0 },
	{ CPUINFO_XSAVEC, "xsavec", "xsavec", 0xd, 1, EAX, 1 },
	{ CPUINFO_XSAVES, "xsaves", "xsaves", 0xd, 1, EAX, 3 },
	{ CPUINFO_XFD, "xfd", NULL, 0xd, 1, EAX, 4 },            /* kernel prints no flag for XFD */
	{ CPUINFO_HYPERVISOR, "hypervisor", "hypervisor", 1, 0, ECX, 31 },
};

static const char *const xnames[CPUINFO_NCOMP] = {
	"x87", "sse", "avx", "mpx_bndregs", "mpx_bndcsr", "avx512_opmask", "avx512_zmm_hi256",
	"avx512_hi16_zmm", "pt", "pkru", "pasid", "cet_u", "cet_s", "hdc", "uintr", "lbr", "hwp",
	"amx_tilecfg", "amx_tiledata",
};

const char *cpuinfo_feature_name(uint32_t bit)
{
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++)
		if (feats[i].bit == bit)
			return feats[i].name;
	return NULL;
}

const char *cpuinfo_feature_procname(uint32_t bit)
{
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++)
		if (feats[i].bit == bit)
			return feats[i].procname;
	return NULL;
}

const char *cpuinfo_xfeature_name(int i)
{
	return i >= 0 && i < CPUINFO_NCOMP ? xnames[i] : NULL;
}

#if HAVE_CPUID
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[EAX], r[EBX], r[ECX], r[EDX]);
}

/* xgetbv faults (#UD) unless CR4.OSXSAVE is set: only call it when CPUID says so. */
static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

/* Copy a 12-byte register signature as text: NULs end it, anything unprintable becomes '?'. */
static void sig_text(const uint32_t regs[3], char out[13])
{
	char raw[12];
	int n = 0;

	memcpy(raw, &regs[0], 4);
	memcpy(raw + 4, &regs[1], 4);
	memcpy(raw + 8, &regs[2], 4);
	for (int i = 0; i < 12; i++) {
		if (raw[i] == 0)
			break;
		out[n++] = raw[i] >= 0x20 && raw[i] < 0x7f ? raw[i] : '?';
	}
	out[n] = 0;
}

/*
 * Xen may sit at 0x40000100 (when it also offers Viridian at 0x40000000),
 * so scan the 0x100-spaced bases the way the kernel does; any other
 * hypervisor is taken from the first base.
 */
static void detect_hypervisor(struct cpuinfo *ci)
{
	uint32_t r[4];
	char sig[13];

	snprintf(ci->hypervisor, sizeof ci->hypervisor, "none");
	if (!(ci->features & CPUINFO_HYPERVISOR))
		return;
	for (uint32_t base = 0x40000000; base < 0x40010000; base += 0x100) {
		cpuid(base, 0, r);
		sig_text((uint32_t[3]){ r[EBX], r[ECX], r[EDX] }, sig);
		if (strcmp(sig, "XenVMMXenVMM") == 0) {
			memcpy(ci->hv_signature, sig, sizeof sig);
			snprintf(ci->hypervisor, sizeof ci->hypervisor, "xen");
			return;
		}
		if (base == 0x40000000)
			memcpy(ci->hv_signature, sig, sizeof sig);
	}
	cpuinfo_hv_name(ci->hv_signature, ci->hypervisor, sizeof ci->hypervisor);
}

const char *cpuinfo_hv_name(const char *sig, char *out, size_t len)
{
	static const struct { const char *sig, *name; } known[] = {
		{ "XenVMMXenVMM", "xen" }, { "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" },
	};
	size_t n = strlen(sig);

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(sig, known[i].sig) == 0) {
			snprintf(out, len, "%s", known[i].name);
			return out;
		}
	/* Signatures are padded to 12 bytes with blanks ("bhyve bhyve "): the padding is not the name. */
	while (n && sig[n - 1] == ' ')
		n--;
	snprintf(out, len, "other:%.*s", (int)n, sig);
	return out;
}

static void detect_model(struct cpuinfo *ci)
{
	uint32_t r[4];
	char buf[49];
	size_t s, e;

	if (ci->max_ext_leaf < 0x80000004)
		return;
	for (uint32_t i = 0; i < 3; i++) {
		cpuid(0x80000002 + i, 0, r);
		memcpy(buf + 16 * i, r, 16);
	}
	buf[48] = 0;
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = ' ';
	s = strspn(buf, " ");
	e = strlen(buf);
	while (e > s && buf[e - 1] == ' ')
		e--;
	memcpy(ci->model, buf + s, e - s);
	ci->model[e - s] = 0;
}

static void detect_xstate(struct cpuinfo *ci)
{
	uint32_t r[4];

	if (ci->features & CPUINFO_OSXSAVE)
		ci->xcr0 = xgetbv0();
	if (ci->max_leaf < 0xd || !(ci->features & CPUINFO_XSAVE))
		return;
	cpuid(0xd, 0, r);
	ci->xsave_user_mask = (uint64_t)r[EDX] << 32 | r[EAX];
	ci->xstate_user_bytes = r[EBX];
	ci->xstate_max_bytes = r[ECX];
	cpuid(0xd, 1, r);
	ci->xstate_compact_bytes = r[EBX];
	for (int i = 2; i < CPUINFO_NCOMP; i++) {
		cpuid(0xd, (uint32_t)i, r);
		ci->comp_size[i] = r[EAX];
		ci->comp_offset[i] = r[EBX];
		ci->comp_flags[i] = r[ECX];
	}
}

int cpuinfo_detect(struct cpuinfo *ci)
{
	uint32_t r[4], leaf7[4] = { 0 }, leafd1[4] = { 0 }, leaf1[4];

	memset(ci, 0, sizeof *ci);
	snprintf(ci->hypervisor, sizeof ci->hypervisor, "none");
	cpuid(0, 0, r);
	ci->max_leaf = r[EAX];
	sig_text((uint32_t[3]){ r[EBX], r[EDX], r[ECX] }, ci->vendor);
	cpuid(0x80000000, 0, r);
	ci->max_ext_leaf = r[EAX] >= 0x80000000 ? r[EAX] : 0;
	cpuid(1, 0, leaf1);
	ci->family = (leaf1[EAX] >> 8) & 0xf;
	ci->model_id = (leaf1[EAX] >> 4) & 0xf;
	ci->stepping = leaf1[EAX] & 0xf;
	if (ci->family == 0xf)
		ci->family += (leaf1[EAX] >> 20) & 0xff;
	if (ci->family >= 6)
		ci->model_id |= ((leaf1[EAX] >> 16) & 0xf) << 4;
	if (ci->max_leaf >= 7)
		cpuid(7, 0, leaf7);
	if (ci->max_leaf >= 0xd)
		cpuid(0xd, 1, leafd1);
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++) {
		const uint32_t *src = feats[i].leaf == 1 ? leaf1 : feats[i].leaf == 7 ? leaf7 : leafd1;
		if (src[feats[i].reg] >> feats[i].shift & 1)
			ci->features |= feats[i].bit;
	}
	detect_model(ci);
	detect_xstate(ci);
	detect_hypervisor(ci);
	ci->valid = 1;
	return 0;
}
#else
int cpuinfo_detect(struct cpuinfo *ci)
{
	memset(ci, 0, sizeof *ci);
	snprintf(ci->hypervisor, sizeof ci->hypervisor, "none");
	return -1;
}
#endif

/* Append " tok" (no leading blank when out is empty); -1 when it does not fit. */
static int append(char *out, size_t outlen, size_t *used, const char *tok)
{
	size_t n = strlen(tok);

	if (*used + (*used ? 1 : 0) + n + 1 > outlen)
		return -1;
	if (*used)
		out[(*used)++] = ' ';
	memcpy(out + *used, tok, n + 1);
	*used += n;
	return 0;
}

int cpuinfo_features(const struct cpuinfo *ci, char *out, size_t outlen)
{
	size_t used = 0;

	if (outlen == 0)
		return -1;
	out[0] = 0;
	for (size_t i = 0; i < sizeof feats / sizeof feats[0]; i++)
		if (feats[i].bit != CPUINFO_HYPERVISOR && (ci->features & feats[i].bit) &&
		    append(out, outlen, &used, feats[i].name) < 0)
			return -1;
	return 0;
}

int cpuinfo_xstate_detail(const struct cpuinfo *ci, char *out, size_t outlen)
{
	char tok[64];
	size_t used = 0;

	if (outlen == 0)
		return -1;
	out[0] = 0;
	if (!ci->valid)
		return 0;
	snprintf(tok, sizeof tok, "xcr0=0x%llx user=%lld max=%lld compacted=%lld",
		 (unsigned long long)ci->xcr0, (long long)ci->xstate_user_bytes,
		 (long long)ci->xstate_max_bytes, (long long)ci->xstate_compact_bytes);
	if (append(out, outlen, &used, tok) < 0)
		return -1;
	for (int i = 2; i < CPUINFO_NCOMP; i++) {
		if (!(ci->xcr0 >> i & 1) || !ci->comp_size[i])
			continue;
		snprintf(tok, sizeof tok, "%s=%u", xnames[i], ci->comp_size[i]);
		if (append(out, outlen, &used, tok) < 0)
			return -1;
	}
	return 0;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

int cpuinfo_proc_model(const char *buf, size_t len, char *out, size_t outlen)
{
	static const char key[] = "model name";
	size_t pos = 0;

	if (outlen)
		out[0] = 0;
	while (pos < len) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos), *c, *v, *e;
		size_t n = nl ? (size_t)(nl - l) : len - pos;

		pos += n + 1;
		if (n < sizeof key - 1 || memcmp(l, key, sizeof key - 1) != 0)
			continue;
		for (c = l + sizeof key - 1; c < l + n && blank(*c); c++)
			;
		if (c == l + n || *c != ':')
			continue;
		for (v = c + 1; v < l + n && blank(*v); v++)
			;
		for (e = l + n; e > v && blank(e[-1]); e--)
			;
		if ((size_t)(e - v) >= outlen)
			return -1;
		for (const char *p = v; p < e; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return -1;
		memcpy(out, v, (size_t)(e - v));
		out[e - v] = 0;
		return 1;
	}
	return 0;
}

const char *cpuinfo_hypervisor_name(const struct cpuinfo *ci)
{
	return ci->hypervisor[0] ? ci->hypervisor : "none";
}

/* Trim a one-word sysfs value in place; 0 if it is a plain token, -1 otherwise. */
static int sys_token(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return -1;
	}
	return 0;
}

int cpuinfo_hv_sys(const char *sys_root, char *type, size_t typelen, char *guest, size_t guestlen)
{
	char buf[64];
	ssize_t n;

	if (typelen)
		type[0] = 0;
	if (guestlen)
		guest[0] = 0;
	n = procfile_read(sys_root, "hypervisor/type", buf, sizeof buf);
	if (n < 0 || sys_token(buf) < 0 || strlen(buf) >= typelen)
		return -1;
	memcpy(type, buf, strlen(buf) + 1);
	/* guest_type appeared in Linux 4.14 (Xen only); its absence is not an error. */
	n = procfile_read(sys_root, "hypervisor/guest_type", buf, sizeof buf);
	if (n >= 0 && sys_token(buf) == 0 && strlen(buf) < guestlen)
		memcpy(guest, buf, strlen(buf) + 1);
	return 0;
}
