/* SPDX-License-Identifier: GPL-2.0-only */
/* sandbox: the web process's system call filter; see sandbox.h. */
#include "web/sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/sched.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Everything the web process was seen to need (strace -f over the integration tests' requests). */
static const int ALLOWED[] = {
	/* files: the DB, its -wal and -shm, /proc/self for glibc, the report's static parts */
	SYS_read, SYS_write, SYS_readv, SYS_writev, SYS_pread64, SYS_pwrite64, SYS_open, SYS_openat, SYS_close,
	SYS_close_range, SYS_fstat, SYS_newfstatat, SYS_stat, SYS_lstat, SYS_statx, SYS_lseek, SYS_access,
	SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat, SYS_getcwd, SYS_fcntl, SYS_flock,
	SYS_fsync, SYS_fdatasync, SYS_ftruncate, SYS_fallocate, SYS_sendfile,
	/* memory */
	SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_brk,
	/* threads, signals, time */
	SYS_futex, SYS_set_robust_list, SYS_get_robust_list, SYS_rseq, SYS_exit,
	SYS_exit_group, SYS_gettid, SYS_getpid, SYS_getppid, SYS_rt_sigaction, SYS_rt_sigprocmask,
	SYS_rt_sigreturn, SYS_rt_sigtimedwait, SYS_rt_sigsuspend, SYS_sigaltstack, SYS_restart_syscall,
	SYS_nanosleep, SYS_clock_nanosleep, SYS_clock_gettime, SYS_clock_getres, SYS_gettimeofday, SYS_time,
	SYS_sched_yield, SYS_sched_getaffinity, SYS_getrandom, SYS_set_tid_address, SYS_prlimit64,
	SYS_getrlimit, SYS_sysinfo, SYS_uname, SYS_getuid, SYS_geteuid, SYS_getgid, SYS_getegid,
	/* waiting and sockets (socket itself is checked by family below) */
	SYS_epoll_create1, SYS_epoll_ctl, SYS_epoll_wait, SYS_epoll_pwait, SYS_eventfd2, SYS_pipe2, SYS_poll,
	SYS_ppoll, SYS_select, SYS_pselect6, SYS_accept, SYS_accept4, SYS_bind, SYS_listen, SYS_getsockname,
	SYS_getpeername, SYS_setsockopt, SYS_getsockopt, SYS_sendto, SYS_recvfrom, SYS_sendmsg, SYS_recvmsg,
	SYS_shutdown,
};

#define NALLOWED (sizeof ALLOWED / sizeof ALLOWED[0])
#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define JEQ(k, t, f) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))

int sandbox_web(char *err, size_t errlen)
{
	/*
	 * The checks with arguments come first, each a block that loads an argument and returns; then one
	 * jump per allowed call.  Jump offsets are 8 bits: the list stays far below 256 entries.
	 */
	struct sock_filter f[32 + NALLOWED];
	struct sock_fprog prog;
	size_t n = 0;
	unsigned pid = (unsigned)getpid();

	f[n++] = (struct sock_filter)LOAD(arch);
	f[n++] = (struct sock_filter)JEQ(AUDIT_ARCH_X86_64, 1, 0);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)LOAD(nr);
	/* x32 system calls (bit 30) are another ABI with other numbers: none of them. */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[n++] = (struct sock_filter)RET(DENY);
	/* clone3's flags are behind a pointer: ENOSYS makes glibc use clone, whose flags can be seen. */
	f[n++] = (struct sock_filter)JEQ(SYS_clone3, 0, 1);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ERRNO | ENOSYS);
	/* clone: threads only (CLONE_THREAD); fork, vfork and posix_spawn are refused. */
	f[n++] = (struct sock_filter)JEQ(SYS_clone, 0, 4);
	f[n++] = (struct sock_filter)LOAD(args[0]);
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
	f[n++] = (struct sock_filter)RET(DENY);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	/* tgkill: our own threads only (abort(), raise()). */
	f[n++] = (struct sock_filter)JEQ(SYS_tgkill, 0, 4);
	f[n++] = (struct sock_filter)LOAD(args[0]);
	f[n++] = (struct sock_filter)JEQ(pid, 1, 0);
	f[n++] = (struct sock_filter)RET(DENY);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	/* socket: AF_UNIX (the journal), AF_INET, AF_INET6 (a listen address given by hand) only. */
	f[n++] = (struct sock_filter)JEQ(SYS_socket, 0, 6);
	f[n++] = (struct sock_filter)LOAD(args[0]);
	f[n++] = (struct sock_filter)JEQ(AF_UNIX, 3, 0);
	f[n++] = (struct sock_filter)JEQ(AF_INET, 2, 0);
	f[n++] = (struct sock_filter)JEQ(AF_INET6, 1, 0);
	f[n++] = (struct sock_filter)RET(DENY);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	/* The rest: nr is still in the accumulator (every block above returned or fell through unchanged). */
	for (size_t i = 0; i < NALLOWED; i++)
		/* Match: jump over the rest of the list and the DENY to ALLOW. */
		f[n++] = (struct sock_filter)JEQ((unsigned)ALLOWED[i], (unsigned char)(NALLOWED - i), 0);
	f[n++] = (struct sock_filter)RET(DENY);
	f[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
	prog = (struct sock_fprog){ .len = (unsigned short)n, .filter = f };
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		snprintf(err, errlen, "cannot install the system call filter: %s", strerror(errno));
		return -1;
	}
	return 0;
}

#else

int sandbox_web(char *err, size_t errlen)
{
	snprintf(err, errlen, "no system call filter for this architecture");
	errno = ENOSYS;
	return -1;
}

#endif
