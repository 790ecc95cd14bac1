/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fpusoak_gfp: the 2014 FPU-state allocation, on any kernel, on request.
 *
 * Until 3.16 (and on lazy-FPU kernels after it) the first FPU instruction of
 * a process trapped (#NM) and the handler allocated its XSAVE area from
 * task_xstate_cachep, a slab cache of XSAVE-size objects aligned to 64
 * bytes.  In Xen PV guests that allocation could not sleep, so GFP_ATOMIC
 * was proposed; if it failed the task got SIGKILL.  Today the state lives
 * in task_struct and is allocated at fork with GFP_KERNEL, so the question
 * "does GFP_ATOMIC fail where GFP_KERNEL would not, as fragmentation grows"
 * cannot be asked of the real code path any more.  This module asks it:
 *
 *   HOLD  one object from our own cache of the same geometry, in the
 *         chosen mode, with preemption disabled for the non-sleeping modes
 *         (the #NM handler ran with it disabled); the object lives as long as
 *         the open file, i.e. as long as the worker process that opened it.
 *   TRY   2^order pages with __GFP_NOWARN, freed at once: the allocator's
 *         answer right now, to check fpusoakd's watermark model against.
 *   DRAIN 2^order pages again and again until the allocator says no, all
 *         freed at once: a refused allocation on demand, for the trace's
 *         end-to-end check (never GFP_KERNEL, never more than RAM).
 *
 * The interface is kmod/fpusoak_gfp.h; kmod/README says how to build and
 * load it.  State: one slab cache, a count of objects held (capped by
 * max_held) and counters; nothing is shared with the rest of the kernel, and
 * the module cannot be unloaded while a file is open (fops.owner), so at
 * exit every object has been freed and the cache can be destroyed.
 *
 * Permissions: the node is 0600 root:root and open() checks nothing else.
 * fpusoakd's workers run as uid 0 but drop every capability before they
 * open it; the owner's permission bits need no capability (CAP_DAC_OVERRIDE
 * is only for files one does not own), so they can.  Any other user gets
 * EACCES from the mode.
 */
#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "fpusoak_gfp.h"

/* The largest order alloc_pages() accepts; MAX_ORDER changed meaning in 6.4 and its name in 6.8. */
#if defined(MAX_PAGE_ORDER)
#define FPUSOAK_MAX_ORDER MAX_PAGE_ORDER
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define FPUSOAK_MAX_ORDER MAX_ORDER
#else
#define FPUSOAK_MAX_ORDER (MAX_ORDER - 1)
#endif
#define NORDERS (FPUSOAK_MAX_ORDER + 1)
#define NMODES FPUSOAK_GFP_NMODES
#define XSTATE_ALIGN 64          /* __alignof__(union thread_xstate) in 2014 */
#define XSTATE_CPUID 0x0d
#define FXSAVE_SIZE 512          /* the 2014 size without XSAVE: struct i387_fxsave_struct */

/* private_data while a HOLD allocates: a second HOLD on the same file gets EBUSY. */
#define HOLD_PENDING ((void *)1)

static unsigned int max_held = 8192;
module_param(max_held, uint, 0644);
MODULE_PARM_DESC(max_held, "most objects held at once by all open files together (HOLD gets EDQUOT beyond it)");

/*
 * Testing only: the daemon's handling of a refused HOLD (the worker's SIGKILL, counted as gfp_failed) is
 * otherwise reached only when the allocator really refuses, which a test cannot arrange on demand.
 * Every refuse_every-th HOLD is answered ENOMEM without allocating, counted as a failure of its mode
 * and in counters/hold_injected, so a reader can tell.  Never set it for a measurement.
 */
static unsigned int refuse_every;
module_param(refuse_every, uint, 0644);
MODULE_PARM_DESC(refuse_every, "testing only: refuse every Nth HOLD with ENOMEM without allocating (0 = never)");

/*
 * The object's size in bytes; 0 (the default) is the XSAVE size for XCR0, the 2014 cache's.  Another
 * size asks the same question of a bigger object: SLUB takes a new slab at the cache's preferred
 * order without retrying and then falls back to the smallest order that holds one object
 * (allocate_slab, ORDER_FALLBACK), which is order 0 for any state under 4 KiB, so fragmentation can
 * make such a HOLD slower but hardly refuse it.  AMX's XSAVE area (11,008 bytes with TILEDATA) needs
 * order 2 at the least, on any CPU this module runs on.  Read once at load: 64..65536, rounded up
 * to 64 (EINVAL otherwise); sysfs object_size says what is in force.
 */
#define OBJECT_BYTES_MAX 65536
static unsigned int object_bytes;
module_param(object_bytes, uint, 0444);
MODULE_PARM_DESC(object_bytes, "object size in bytes, 64..65536 (0 = the XSAVE size for XCR0, the default)");

static struct kmem_cache *xstate_cache;
static unsigned int object_size;
static atomic_t held = ATOMIC_INIT(0);

static struct {
	atomic64_t hold_attempts[NMODES], hold_failures[NMODES], hold_refused, hold_injected, hold_seq;
	atomic64_t try_attempts[NMODES][NORDERS], try_failures[NMODES][NORDERS];
} ctr;

static bool mode_ok(u32 mode)
{
	return mode >= FPUSOAK_GFP_KERNEL && mode <= FPUSOAK_GFP_NOWAIT;
}

static gfp_t mode_gfp(u32 mode)
{
	switch (mode) {
	case FPUSOAK_GFP_ATOMIC:
		return GFP_ATOMIC;
	case FPUSOAK_GFP_NOWAIT:
		return GFP_NOWAIT;
	default:
		return GFP_KERNEL;
	}
}

/*
 * No __GFP_NOWARN: the 2014 allocation had none, so a failure leaves the
 * same "page allocation failure" record in the kernel log that fpusoakd
 * already collects (warn_alloc is rate-limited).
 */
static void *hold_alloc(u32 mode)
{
	void *obj;

	if (mode == FPUSOAK_GFP_KERNEL)
		return kmem_cache_alloc(xstate_cache, GFP_KERNEL);
	preempt_disable();
	obj = kmem_cache_alloc(xstate_cache, mode_gfp(mode));
	preempt_enable();
	return obj;
}

static long do_hold(struct file *f, void __user *arg)
{
	struct fpusoak_gfp_hold h;
	unsigned int every;
	void *obj;
	u32 m;

	if (copy_from_user(&h, arg, sizeof(h)))
		return -EFAULT;
	if (!mode_ok(h.mode) || h.size == 0 || h.size > object_size || h.reserved)
		return -EINVAL;
	if (cmpxchg(&f->private_data, NULL, HOLD_PENDING) != NULL)
		return -EBUSY;
	if (atomic_inc_return(&held) > READ_ONCE(max_held)) {
		atomic_dec(&held);
		atomic64_inc(&ctr.hold_refused);
		WRITE_ONCE(f->private_data, NULL);
		return -EDQUOT;
	}
	m = h.mode - 1;
	atomic64_inc(&ctr.hold_attempts[m]);
	every = READ_ONCE(refuse_every);
	if (every && atomic64_inc_return(&ctr.hold_seq) % every == 0) {
		atomic64_inc(&ctr.hold_injected);
		obj = NULL;
	} else {
		obj = hold_alloc(h.mode);
	}
	if (!obj) {
		atomic_dec(&held);
		atomic64_inc(&ctr.hold_failures[m]);
		WRITE_ONCE(f->private_data, NULL);
		return -ENOMEM;
	}
	/* What init_fpu() did next: the state starts out clean. */
	memset(obj, 0, object_size);
	WRITE_ONCE(f->private_data, obj);
	h.object_size = object_size;
	/* The object stays held even if the answer cannot be copied back. */
	return copy_to_user(arg, &h, sizeof(h)) ? -EFAULT : 0;
}

static long do_try(void __user *arg)
{
	struct fpusoak_gfp_try t;
	struct page *page;
	gfp_t gfp;
	u64 t0;
	u32 m;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	if (!mode_ok(t.mode) || t.order > FPUSOAK_MAX_ORDER || (t.flags & ~FPUSOAK_GFP_TRY_NOKSWAPD))
		return -EINVAL;
	m = t.mode - 1;
	gfp = mode_gfp(t.mode) | __GFP_NOWARN;
	if (t.flags & FPUSOAK_GFP_TRY_NOKSWAPD)
		gfp &= ~__GFP_KSWAPD_RECLAIM;
	atomic64_inc(&ctr.try_attempts[m][t.order]);
	t0 = ktime_get_ns();
	if (t.mode == FPUSOAK_GFP_KERNEL) {
		page = alloc_pages(gfp, t.order);
	} else {
		preempt_disable();
		page = alloc_pages(gfp, t.order);
		preempt_enable();
	}
	t.duration_ns = ktime_get_ns() - t0;
	t.ok = page != NULL;
	if (page)
		__free_pages(page, t.order);
	else
		atomic64_inc(&ctr.try_failures[m][t.order]);
	return copy_to_user(arg, &t, sizeof(t)) ? -EFAULT : 0;
}

/*
 * Blocks are chained through the head page's lru, which belongs to whoever
 * allocated a non-compound block.  Preemption is disabled per request in the
 * non-sleeping modes, as in TRY; between requests the loop may reschedule.
 */
static long do_drain(void __user *arg)
{
	struct fpusoak_gfp_drain d;
	struct page *page, *next;
	unsigned long cap;
	LIST_HEAD(blocks);
	gfp_t gfp;
	u32 m;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	if ((d.mode != FPUSOAK_GFP_ATOMIC && d.mode != FPUSOAK_GFP_NOWAIT) || d.order > FPUSOAK_MAX_ORDER ||
	    (d.flags & ~FPUSOAK_GFP_TRY_NOKSWAPD) || d.max_blocks == 0 || d.max_blocks > FPUSOAK_GFP_DRAIN_MAX_BLOCKS)
		return -EINVAL;
	m = d.mode - 1;
	gfp = mode_gfp(d.mode) | __GFP_NOWARN;
	if (d.flags & FPUSOAK_GFP_TRY_NOKSWAPD)
		gfp &= ~__GFP_KSWAPD_RECLAIM;
	cap = min_t(unsigned long, d.max_blocks, totalram_pages() >> d.order);
	d.blocks = 0;
	d.refused = 0;
	while (d.blocks < cap) {
		atomic64_inc(&ctr.try_attempts[m][d.order]);
		preempt_disable();
		page = alloc_pages(gfp, d.order);
		preempt_enable();
		if (!page) {
			atomic64_inc(&ctr.try_failures[m][d.order]);
			d.refused = 1;
			break;
		}
		list_add(&page->lru, &blocks);
		d.blocks++;
		cond_resched();
	}
	list_for_each_entry_safe(page, next, &blocks, lru) {
		list_del(&page->lru);
		__free_pages(page, d.order);
	}
	return copy_to_user(arg, &d, sizeof(d)) ? -EFAULT : 0;
}

static long do_info(struct file *f, void __user *arg)
{
	struct fpusoak_gfp_info i;
	void *obj = READ_ONCE(f->private_data);

	memset(&i, 0, sizeof(i));
	i.abi = FPUSOAK_GFP_ABI;
	i.object_size = object_size;
	i.object_align = XSTATE_ALIGN;
	i.max_order = FPUSOAK_MAX_ORDER;
	i.max_held = READ_ONCE(max_held);
	i.held = (u32)atomic_read(&held);
	i.held_here = obj && obj != HOLD_PENDING;
	return copy_to_user(arg, &i, sizeof(i)) ? -EFAULT : 0;
}

static long gfp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;

	switch (cmd) {
	case FPUSOAK_GFP_IOC_HOLD:
		return (f->f_mode & FMODE_WRITE) ? do_hold(f, p) : -EBADF;
	case FPUSOAK_GFP_IOC_TRY:
		return (f->f_mode & FMODE_WRITE) ? do_try(p) : -EBADF;
	case FPUSOAK_GFP_IOC_DRAIN:
		return (f->f_mode & FMODE_WRITE) ? do_drain(p) : -EBADF;
	case FPUSOAK_GFP_IOC_INFO:
		return do_info(f, p);
	default:
		return -ENOTTY;
	}
}

static int gfp_open(struct inode *inode, struct file *f)
{
	/* misc_open() left the miscdevice here; from now on it is the object held, or NULL. */
	f->private_data = NULL;
	return nonseekable_open(inode, f);
}

static int gfp_release(struct inode *inode, struct file *f)
{
	void *obj = f->private_data;

	if (obj && obj != HOLD_PENDING) {
		kmem_cache_free(xstate_cache, obj);
		atomic_dec(&held);
	}
	return 0;
}

static const struct file_operations gfp_fops = {
	.owner = THIS_MODULE,
	.open = gfp_open,
	.release = gfp_release,
	.unlocked_ioctl = gfp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* ---- sysfs: /sys/class/misc/fpusoak_gfp/{object_size,...} and counters/ ---------------------- */

enum ctr_kind { C_HOLD_ATT, C_HOLD_FAIL, C_TRY_ATT, C_TRY_FAIL, C_REFUSED, C_INJECTED, C_HELD, C_SIZE, C_ALIGN, C_MAXORD };

struct ctr_attr {
	struct device_attribute attr;
	int kind, mode;
};

/* Per order, one line: "n0 n1 ... nMAX" (an array of one type, as sysfs allows). */
static ssize_t emit_orders(char *buf, atomic64_t *v)
{
	int n = 0;

	for (int o = 0; o < NORDERS; o++)
		n += sysfs_emit_at(buf, n, "%s%lld", o ? " " : "", (long long)atomic64_read(&v[o]));
	return n + sysfs_emit_at(buf, n, "\n");
}

static ssize_t ctr_show(struct device *dev, struct device_attribute *da, char *buf)
{
	struct ctr_attr *a = container_of(da, struct ctr_attr, attr);

	switch (a->kind) {
	case C_HOLD_ATT:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&ctr.hold_attempts[a->mode]));
	case C_HOLD_FAIL:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&ctr.hold_failures[a->mode]));
	case C_TRY_ATT:
		return emit_orders(buf, ctr.try_attempts[a->mode]);
	case C_TRY_FAIL:
		return emit_orders(buf, ctr.try_failures[a->mode]);
	case C_REFUSED:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&ctr.hold_refused));
	case C_INJECTED:
		return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&ctr.hold_injected));
	case C_HELD:
		return sysfs_emit(buf, "%d\n", atomic_read(&held));
	case C_SIZE:
		return sysfs_emit(buf, "%u\n", object_size);
	case C_ALIGN:
		return sysfs_emit(buf, "%u\n", XSTATE_ALIGN);
	case C_MAXORD:
		return sysfs_emit(buf, "%u\n", FPUSOAK_MAX_ORDER);
	}
	return -EINVAL;
}

#define CTR(_name, _kind, _mode) \
	static struct ctr_attr ctr_##_name = { __ATTR(_name, 0444, ctr_show, NULL), _kind, _mode }
#define MODE_CTRS(_m, _i) \
	CTR(hold_##_m##_attempts, C_HOLD_ATT, _i); CTR(hold_##_m##_failures, C_HOLD_FAIL, _i); \
	CTR(try_##_m##_attempts, C_TRY_ATT, _i); CTR(try_##_m##_failures, C_TRY_FAIL, _i)

MODE_CTRS(kernel, 0);
MODE_CTRS(atomic, 1);
MODE_CTRS(nowait, 2);
CTR(hold_refused, C_REFUSED, 0);
CTR(hold_injected, C_INJECTED, 0);
CTR(held, C_HELD, 0);
CTR(object_size, C_SIZE, 0);
CTR(object_align, C_ALIGN, 0);
CTR(max_order, C_MAXORD, 0);

#define MODE_ATTRS(_m) \
	&ctr_hold_##_m##_attempts.attr.attr, &ctr_hold_##_m##_failures.attr.attr, \
	&ctr_try_##_m##_attempts.attr.attr, &ctr_try_##_m##_failures.attr.attr

static struct attribute *counter_attrs[] = {
	MODE_ATTRS(kernel), MODE_ATTRS(atomic), MODE_ATTRS(nowait), &ctr_hold_refused.attr.attr,
	&ctr_hold_injected.attr.attr, NULL,
};

static struct attribute *info_attrs[] = {
	&ctr_held.attr.attr, &ctr_object_size.attr.attr, &ctr_object_align.attr.attr, &ctr_max_order.attr.attr, NULL,
};

static const struct attribute_group counter_group = { .name = "counters", .attrs = counter_attrs };
static const struct attribute_group info_group = { .attrs = info_attrs };
static const struct attribute_group *gfp_groups[] = { &info_group, &counter_group, NULL };

static struct miscdevice gfp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = FPUSOAK_GFP_NAME,
	.fops = &gfp_fops,
	.groups = gfp_groups,
	.mode = 0600,
};

/* ---- init / exit --------------------------------------------------------------------------- */

/* The 2014 xstate_size: CPUID leaf 0xd, sub-leaf 0, EBX = bytes for the features enabled in XCR0. */
static unsigned int xsave_size(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!boot_cpu_has(X86_FEATURE_XSAVE))
		return FXSAVE_SIZE;
	cpuid_count(XSTATE_CPUID, 0, &eax, &ebx, &ecx, &edx);
	return ebx >= FXSAVE_SIZE ? ebx : FXSAVE_SIZE;
}

/*
 * A cache of its own, never merged into another of the same geometry (SLUB
 * merges by default): its objects and slabs are ours alone and it shows up
 * in /proc/slabinfo as fpusoak_xstate.  Before SLAB_NO_MERGE (6.5) a usercopy
 * region is what keeps a cache from being merged; nothing is ever copied.
 * Not SLAB_ACCOUNT: the 2014 cache was not charged to a memory cgroup.
 */
static struct kmem_cache *cache_create(unsigned int size)
{
#ifdef SLAB_NO_MERGE
	return kmem_cache_create("fpusoak_xstate", size, XSTATE_ALIGN, SLAB_NO_MERGE, NULL);
#else
	return kmem_cache_create_usercopy("fpusoak_xstate", size, XSTATE_ALIGN, 0, 0, size, NULL);
#endif
}

static int __init fpusoak_gfp_init(void)
{
	int err;

	if (object_bytes && (object_bytes < XSTATE_ALIGN || object_bytes > OBJECT_BYTES_MAX)) {
		pr_err("fpusoak_gfp: object_bytes=%u out of range (64..65536)\n", object_bytes);
		return -EINVAL;
	}
	object_size = object_bytes ? ALIGN(object_bytes, XSTATE_ALIGN) : xsave_size();
	xstate_cache = cache_create(object_size);
	if (!xstate_cache)
		return -ENOMEM;
	err = misc_register(&gfp_misc);
	if (err) {
		kmem_cache_destroy(xstate_cache);
		return err;
	}
	pr_info("fpusoak_gfp: /dev/%s: objects of %u bytes aligned %u, TRY orders 0..%d, max_held %u\n",
		FPUSOAK_GFP_NAME, object_size, XSTATE_ALIGN, FPUSOAK_MAX_ORDER, max_held);
	if (refuse_every)
		pr_warn("fpusoak_gfp: refuse_every=%u: every %u-th HOLD is refused on purpose (testing only)\n",
			refuse_every, refuse_every);
	return 0;
}

static void __exit fpusoak_gfp_exit(void)
{
	/* No file is open (each holds a module reference), so every object is back in the cache. */
	misc_deregister(&gfp_misc);
	kmem_cache_destroy(xstate_cache);
}

module_init(fpusoak_gfp_init);
module_exit(fpusoak_gfp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fpusoakd: FPU-state-sized allocations as GFP_KERNEL, GFP_ATOMIC or GFP_NOWAIT, and allocator probes");
MODULE_VERSION("1");
