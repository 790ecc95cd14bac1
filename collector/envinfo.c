/* SPDX-License-Identifier: GPL-2.0-only */
/* envinfo: the run's environment; see envinfo.h. */
#include "collector/envinfo.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector/cpuinfo.h"
#include "collector/kv.h"
#include "collector/xenstore.h"
#include "collector/zoneinfo.h"
#include "common/num.h"
#include "common/procfile.h"

/* Read a small file into out, trimmed at the first newline; "" if unreadable. */
static void read_line(const char *root, const char *rel, char *out, size_t outlen)
{
	char buf[8192];
	ssize_t n = procfile_read(root, rel, buf, sizeof buf);

	/* Absent or unreadable: keep what the caller had (e.g. uname's release under a fixture tree). */
	if (n <= 0)
		return;
	buf[strcspn(buf, "\n")] = 0;
	/* These end up in HTML and logs; keep them printable. */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	snprintf(out, outlen, "%s", buf);
}

static void mem_total(const char *proc_root, struct envinfo *out)
{
	struct kv_set *mi = malloc(sizeof *mi);   /* 28 KiB, once per run: not on the stack */
	char buf[16384];
	ssize_t n = mi ? procfile_read(proc_root, "meminfo", buf, sizeof buf) : -1;
	uint64_t v;

	if (n > 0 && meminfo_parse(buf, (size_t)n, mi) == 0) {
		if (kv_get(mi, "MemTotal", &v) == 0)
			out->mem_total_kb = (int64_t)v;
		if (kv_get(mi, "MemFree", &v) == 0 && v <= INT64_MAX)
			out->mem_free_kb = (int64_t)v;
		if (kv_get(mi, "MemAvailable", &v) == 0 && v <= INT64_MAX)
			out->mem_available_kb = (int64_t)v;
	}
	free(mi);
}

/*
 * The pages the kernel knows: zoneinfo's present, summed over zones, is the physpages of the boot
 * log's "Memory: …K/<present>K available (… reserved)" (mm_init's mem_init_print_info), so present
 * minus MemTotal is what the kernel keeps for itself (image, memory map, early allocations).
 */
static void mem_present(const char *proc_root, struct envinfo *out)
{
	const size_t cap = 4 << 20;   /* zoneinfo of a large NUMA machine; the sampler's cap */
	char *buf = malloc(cap);
	struct zoneinfo *zi = malloc(sizeof *zi);
	uint64_t pages = 0;
	ssize_t n;

	if (!buf || !zi || out->page_size <= 0)
		goto fail;
	n = procfile_read(proc_root, "zoneinfo", buf, cap);
	if (n <= 0 || zoneinfo_parse(buf, (size_t)n, zi) < 0)
		goto fail;
	for (int i = 0; i < zi->nzones; i++) {
		if (zi->z[i].present > (UINT64_MAX >> 20) - pages)
			goto fail;
		pages += zi->z[i].present;
	}
	out->mem_present_kb = (int64_t)(pages * (uint64_t)out->page_size / 1024);
fail:
	free(buf);
	free(zi);
}

/* A Xen guest's size as its balloon driver sees it (/sys/devices/system/xen_memory, CONFIG_XEN_BALLOON). */
static void domain_size(const char *sys_root, struct envinfo *out)
{
	char buf[64];
	uint64_t v;
	size_t used;
	ssize_t n = procfile_read(sys_root, "devices/system/xen_memory/xen_memory0/info/current_kb", buf, sizeof buf);

	/* One number and its newline, nothing else. */
	if (n > 0 && num_prefix_u64(buf, (size_t)n, &v, &used) == 0 && (used == (size_t)n || (buf[used] == '\n' &&
	    used + 1 == (size_t)n)) && v <= INT64_MAX)
		out->domain_kb = (int64_t)v;
}

/*
 * dom0 or domU, and the id.  /proc/xen/capabilities (xenfs) says control_d in
 * the control domain, which is domain 0, and nothing in a guest; a guest's
 * own id is in the Xen store.  The store is asked only on the live system:
 * a fixture tree has no store, and in a dom0 the answer is known already
 * (asking there before xenstored runs would wait for nothing).
 */
static void xen_domain(const char *proc_root, struct envinfo *out)
{
	char buf[256];
	ssize_t n = procfile_read(proc_root, "xen/capabilities", buf, sizeof buf);
	int64_t id = -1;

	if (n >= 0 && xen_caps_control_d(buf, (size_t)n)) {
		snprintf(out->xen_domain, sizeof out->xen_domain, "dom0");
		out->xen_domid = 0;
		return;
	}
	if (proc_root && strcmp(proc_root, "/proc") == 0 && xs_query_domid("/dev/xen/xenbus", 1000, &id) == 0) {
		out->xen_domid = id;
		snprintf(out->xen_domain, sizeof out->xen_domain, "%s", id == 0 ? "dom0" : "domU");
		return;
	}
	/* capabilities readable and without control_d: a guest whose id we could not read. */
	if (n >= 0)
		snprintf(out->xen_domain, sizeof out->xen_domain, "domU");
}

/*
 * The kernel's name for the CPU: a hypervisor may give it another than CPUID's (cpuinfo.h).  One read:
 * seq_file returns whole records, and the first CPU's (~1.5 KB) holds the name; the whole file of a
 * 256-CPU machine would be 400 KB for one string.
 */
static void proc_model(const char *proc_root, struct envinfo *out)
{
	char path[512], buf[8192];
	ssize_t n = -1;
	int fd;

	out->cpu_model_kernel[0] = 0;
	if (procfile_path(proc_root, "cpuinfo", path, sizeof path) < 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n <= 0 || cpuinfo_proc_model(buf, (size_t)n, out->cpu_model_kernel, sizeof out->cpu_model_kernel) < 0)
		out->cpu_model_kernel[0] = 0;
}

void envinfo_collect(const char *proc_root, const char *sys_root, struct envinfo *out)
{
	struct utsname u;
	struct cpuinfo ci;

	memset(out, 0, sizeof *out);
	if (uname(&u) == 0) {
		snprintf(out->kernel_release, sizeof out->kernel_release, "%s", u.release);
		snprintf(out->kernel_version, sizeof out->kernel_version, "%s", u.version);
		snprintf(out->hostname, sizeof out->hostname, "%s", u.nodename);
	}
	/* A fixture tree may carry its own kernel identity. */
	read_line(proc_root, "sys/kernel/osrelease", out->kernel_release, sizeof out->kernel_release);
	read_line(proc_root, "cmdline", out->cmdline, sizeof out->cmdline);
	read_line(proc_root, "sys/kernel/random/boot_id", out->boot_id, sizeof out->boot_id);
	out->mem_free_kb = out->mem_available_kb = out->mem_present_kb = out->domain_kb = -1;
	mem_total(proc_root, out);
	out->page_size = sysconf(_SC_PAGESIZE);
	mem_present(proc_root, out);

	cpuinfo_detect(&ci);
	snprintf(out->cpu_model, sizeof out->cpu_model, "%s", ci.model);
	proc_model(proc_root, out);
	cpuinfo_features(&ci, out->fpu_features, sizeof out->fpu_features);
	cpuinfo_xstate_detail(&ci, out->xstate_detail, sizeof out->xstate_detail);
	out->xstate_bytes = ci.xstate_user_bytes;
	/* /sys/hypervisor is authoritative for Xen (PV guests have no CPUID leaf to trust). */
	read_line(sys_root, "hypervisor/type", out->hypervisor, sizeof out->hypervisor);
	read_line(sys_root, "hypervisor/guest_type", out->guest_type, sizeof out->guest_type);
	if (!out->hypervisor[0])
		snprintf(out->hypervisor, sizeof out->hypervisor, "%s", cpuinfo_hypervisor_name(&ci));
	out->xen_domid = -1;
	if (strcmp(out->hypervisor, "xen") == 0) {
		xen_domain(proc_root, out);
		domain_size(sys_root, out);
	}
}
