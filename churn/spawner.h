/*
 * spawner: the single-threaded process that forks, reaps and counts workers.
 *
 * One loop over ppoll(): the daemon's socket (commands, EOF = stop), a
 * signalfd (SIGCHLD, SIGTERM), the capacity probe's ready pipe and the
 * switch probe's result pipe; the timeout is the controller's next spawn,
 * the next STATUS record or a probe deadline.  Workers are reaped with
 * waitid(WNOHANG) until none is left, so coalesced SIGCHLDs lose nothing.
 *
 * Workers are looked up by PID in an open-addressing table sized once at
 * start (no allocation per spawn): the spawner is forked for every worker,
 * so its footprint is part of every fork's cost and stays small.
 *
 * Private to churn/: the daemon uses churn.h.
 */
#ifndef FPUSOAK_SPAWNER_H
#define FPUSOAK_SPAWNER_H

#include <stdint.h>
#include <sys/types.h>

#include "churn/churn.h"

enum spawner_cmd_type { SPAWNER_CMD_SET = 1, SPAWNER_CMD_PROBE, SPAWNER_CMD_STATUS, SPAWNER_CMD_STOP };

/* Daemon → spawner, one per SEQPACKET message. */
struct spawner_cmd {
	uint32_t type;              /* enum spawner_cmd_type */
	int32_t probe_kind;         /* enum churn_probe_kind for SPAWNER_CMD_PROBE */
	struct churn_params params; /* for SPAWNER_CMD_SET */
};

struct spawner_cfg {
	struct churn_cfg cc;        /* as given to churn_open (strings not used) */
	struct cgroup *cg;          /* the workers' group, NULL when unconfined (the spawner's copy) */
	int sock;                   /* its end of the socketpair */
	pid_t daemon;               /* for the PDEATHSIG race check */
	int pop_cap, probe_cap;     /* caps in force */
};

/* Bytes on the wire for a record of this type (header + its union member). */
size_t spawner_rec_size(uint32_t type);

/* Run the spawner in the freshly forked child: never returns (exit code 0 after a clean stop). */
void spawner_main(const struct spawner_cfg *cfg) __attribute__((noreturn));

#endif
