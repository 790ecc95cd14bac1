/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_sandbox: the web process's system call filter (web/sandbox.h), in a
 * forked child that installs it and reports what each call did: what the
 * web process needs works (threads, files, unix and inet sockets), the rest
 * is refused with EPERM (fork, exec, netlink sockets, connect, ptrace,
 * signals to other processes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include "tests/unit/test.h"
#include "web/sandbox.h"

enum { R_INSTALL, R_THREAD, R_OPEN, R_UNIX, R_INET, R_NETLINK, R_CONNECT, R_FORK, R_EXEC, R_PTRACE, R_KILL, R_N };

static void *thread_fn(void *arg)
{
	return arg;
}

/* In the child: 0 = the call worked, else its errno. */
static void probe(int out)
{
	int r[R_N], s;
	pthread_t t;
	char err[256];
	pid_t p;

	memset(r, 0, sizeof r);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	r[R_INSTALL] = sandbox_web(err, sizeof err) == 0 ? 0 : errno ? errno : -1;
	r[R_THREAD] = pthread_create(&t, NULL, thread_fn, NULL);
	if (!r[R_THREAD])
		pthread_join(t, NULL);
	s = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	r[R_OPEN] = s < 0 ? errno : 0;
	if (s >= 0)
		close(s);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	r[R_UNIX] = s < 0 ? errno : 0;
	if (s >= 0)
		close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r[R_INET] = s < 0 ? errno : 0;
	if (s >= 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(9), .sin_addr.s_addr = htonl(0x7f000001) };
		r[R_CONNECT] = connect(s, (struct sockaddr *)&a, sizeof a) < 0 ? errno : 0;
		close(s);
	}
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
	r[R_NETLINK] = s < 0 ? errno : 0;
	if (s >= 0)
		close(s);
	p = fork();
	if (p == 0)
		_exit(0);
	r[R_FORK] = p < 0 ? errno : 0;
	if (p > 0)
		waitpid(p, NULL, 0);
	execl("/bin/true", "true", (char *)NULL);
	r[R_EXEC] = errno;
	r[R_PTRACE] = ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 ? errno : 0;
	r[R_KILL] = kill(getppid(), 0) < 0 ? errno : 0;
	if (write(out, r, sizeof r) != (ssize_t)sizeof r)
		_exit(2);
	_exit(0);
}

int main(void)
{
	int p[2], r[R_N], st;
	pid_t c;

#if !defined(__x86_64__)
	T_SKIP("the filter is built for x86_64 only");
	T_DONE();
#endif
	if (pipe(p) < 0)
		T_DONE();
	c = fork();
	if (c == 0) {
		close(p[0]);
		probe(p[1]);
	}
	close(p[1]);
	T_CHECK(read(p[0], r, sizeof r) == (ssize_t)sizeof r, "the sandboxed child reports");
	waitpid(c, &st, 0);
	T_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the sandboxed child exits normally (status %d)", st);
	T_EQ_I(r[R_INSTALL], 0, "the filter installs");
	T_EQ_I(r[R_THREAD], 0, "threads start (clone with CLONE_THREAD; clone3 answered ENOSYS, glibc falls back)");
	T_EQ_I(r[R_OPEN], 0, "files open");
	T_EQ_I(r[R_UNIX], 0, "an AF_UNIX socket (the journal) is allowed");
	T_EQ_I(r[R_INET], 0, "an AF_INET socket (a listen address given by hand) is allowed");
	T_EQ_I(r[R_CONNECT], EPERM, "connect is refused: nothing goes out");
	T_EQ_I(r[R_NETLINK], EPERM, "an AF_NETLINK socket is refused");
	T_EQ_I(r[R_FORK], EPERM, "fork is refused");
	T_EQ_I(r[R_EXEC], EPERM, "exec is refused");
	T_EQ_I(r[R_PTRACE], EPERM, "ptrace is refused");
	T_EQ_I(r[R_KILL], EPERM, "kill of another process is refused");
	T_DONE();
}
