/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner_rec: what the spawner tells the daemon: records over its
 * SOCK_SEQPACKET socket (churn_proto.h), never blocking (a full socket
 * parks must-arrive records in a bounded outbox), and the workers' group's
 * OOM-kill counter that STATUS reports.
 *
 * Private to the spawner (spawner_priv.h).
 */
#ifndef FPUSOAK_SPAWNER_REC_H
#define FPUSOAK_SPAWNER_REC_H

#include <stdint.h>
#include <sys/types.h>

struct churn_rec;
struct spawner;

/* Send r; a must-arrive record that does not fit now waits in the outbox, in order (else it is counted
 * lost). */
void spawner_rec_emit(struct spawner *s, const struct churn_rec *r, int must);

/* Send what waits in the outbox, as much as the socket takes. */
void spawner_rec_flush(struct spawner *s);

/* A NOTE record (level: enum log_level): something the daemon should log. */
void spawner_rec_note(struct spawner *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Read the group's oom_kill counter into s->oom_last (never backwards). */
void spawner_rec_oom_poll(struct spawner *s);

/* A STATUS record now (must: wait in the outbox if need be); the next one is due a status period later. */
void spawner_rec_status(struct spawner *s, int64_t now, int must);

/* A DEATH record for a worker killed by a signal, unless this period's cap is reached (then counted
 * dropped). */
void spawner_rec_death(struct spawner *s, int64_t now, pid_t pid, int code, int sig, int64_t born_ms, int role);

/* Send a GFP_REFUSED record for worker pid (role ROLE_*) that held in mode; counted against death_records_max. */
void spawner_rec_gfp_refused(struct spawner *s, int64_t now, pid_t pid, int role, int mode);

#endif
