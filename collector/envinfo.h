/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * envinfo: what a run records about its machine, once, at its start.
 *
 * Kernel release/version and /proc/cmdline (users look for eagerfpu=),
 * boot id (kernel-log sequence numbers restart with a boot), hypervisor and
 * guest type, CPU model, FPU features and XSAVE sizes, MemTotal, page size;
 * under Xen, whether this is the control domain or a guest, and its id.
 * And what the machine really has (issue 30): the pages the kernel knows
 * (zoneinfo's present, all zones: the "Memory: …K/<present>K available" of
 * the boot log), so present − MemTotal is what the kernel keeps for itself;
 * MemFree and MemAvailable at the start; a Xen guest's size as its balloon
 * driver has it (what the domain was given).
 */
#ifndef FPUSOAK_ENVINFO_H
#define FPUSOAK_ENVINFO_H

#include <stdint.h>

struct envinfo {
	char kernel_release[65];
	char kernel_version[129];
	char hostname[65];
	char boot_id[40];
	char cmdline[4096];
	char hypervisor[32];         /* xen|kvm|hyperv|vmware|none|other:<sig> */
	char guest_type[32];         /* from /sys/hypervisor/guest_type, "" if absent */
	char xen_domain[8];          /* "dom0" | "domU" | "" (not Xen, or cannot tell) */
	int64_t xen_domid;           /* the domain's id; -1 unknown */
	char cpu_model[64];          /* CPUID's brand string */
	char cpu_model_kernel[64];   /* /proc/cpuinfo's model name; "" if none (see cpuinfo_proc_model) */
	char fpu_features[256];
	char xstate_detail[512];
	int64_t xstate_bytes;
	int64_t mem_total_kb;
	int64_t page_size;
	int64_t mem_free_kb;         /* MemFree at collection; -1 unknown */
	int64_t mem_available_kb;    /* MemAvailable at collection; -1 unknown (before 3.14) */
	int64_t mem_present_kb;      /* sum of zoneinfo's present pages, in kB; -1 unknown */
	int64_t domain_kb;           /* Xen: the balloon driver's current_kb; -1 not Xen or unknown */
};

/* Collect everything under proc_root/sys_root ("/proc", "/sys"); missing pieces stay empty. Never fails.  Asks the Xen store (at most 1 s) only on the live system (proc_root "/proc"). */
void envinfo_collect(const char *proc_root, const char *sys_root, struct envinfo *out);

#endif
