/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_rec: records to the daemon, the group's OOM counter; see spawner_rec.h. */
#define _GNU_SOURCE
#include "churn/spawner_rec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "churn/spawner_priv.h"
#include "churn/spawner_tab.h"

static int try_send(struct spawner *s, const struct churn_rec *r, size_t len)
{
	ssize_t n = send(s->sock, r, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n == (ssize_t)len ? 0 : -1;
}

/* Send; must-arrive records that do not fit now wait in the outbox (in order). */
void spawner_rec_emit(struct spawner *s, const struct churn_rec *r, int must)
{
	size_t len = churn_rec_size(r->type);

	if (s->out.n == 0 && try_send(s, r, len) == 0)
		return;
	if (!must || s->out.n == OUTBOX_MAX || !(s->out.rec[s->out.n] = malloc(len))) {
		s->out_dropped++;
		return;
	}
	memcpy(s->out.rec[s->out.n], r, len);
	s->out.len[s->out.n++] = len;
}

void spawner_rec_flush(struct spawner *s)
{
	int i = 0;

	while (i < s->out.n && try_send(s, s->out.rec[i], s->out.len[i]) == 0)
		free(s->out.rec[i++]);
	memmove(s->out.rec, s->out.rec + i, sizeof s->out.rec[0] * (size_t)(s->out.n - i));
	memmove(s->out.len, s->out.len + i, sizeof s->out.len[0] * (size_t)(s->out.n - i));
	s->out.n -= i;
}

void spawner_rec_note(struct spawner *s, int level, const char *fmt, ...)
{
	static struct churn_rec r;
	va_list ap;

	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_NOTE;
	r.u.note.level = level;
	va_start(ap, fmt);
	vsnprintf(r.u.note.text, sizeof r.u.note.text, fmt, ap);
	va_end(ap);
	spawner_rec_emit(s, &r, 1);
}

/*
 * Read the group's OOM counter.  Kills are attributed one by one to the workers whose deaths they
 * explain (spawner_reap_all), never by the phase the counter moved in: a probe's fill kills probe
 * workers, but a churn worker that dies of an OOM kill while being retired is still a churn worker.
 */
void spawner_rec_oom_poll(struct spawner *s)
{
	uint64_t v;

	if (!s->have_oom || cgroup_oom_kills(s->cg, &v) < 0 || v < s->oom_last)
		return;
	s->oom_last = v;
}

void spawner_rec_status(struct spawner *s, int64_t now, int must)
{
	static struct churn_rec r;

	spawner_rec_oom_poll(s);
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_STATUS;
	r.u.status.mono_ms = now / 1000000;
	r.u.status.real_ms = spawner_real_ms();
	r.u.status.seq = ++s->seq;
	r.u.status.state = s->state;
	r.u.status.params = s->ctl.p;
	r.u.status.c = s->c;
	r.u.status.probe = s->pc;
	r.u.status.probe_alive = s->probe_alive;
	r.u.status.deaths_dropped = s->deaths_dropped;
	r.u.status.probes_done = s->probes_done;
	r.u.status.memcg_oom_total = s->oom_last - s->oom_base;
	r.u.status.oom_unattributed = s->oom_last - s->oom_base - s->oom_attributed;
	spawner_rec_emit(s, &r, must);
	s->deaths_sent = 0;
	s->next_status = now + s->cfg->cc.status_ms * 1000000;
}

void spawner_rec_gfp_refused(struct spawner *s, int64_t now, pid_t pid, int role, int mode)
{
	static struct churn_rec r;

	if (s->deaths_sent >= s->cfg->cc.death_records_max) {
		s->deaths_dropped++;
		return;
	}
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_GFP_REFUSED;
	r.u.refusal.mono_ms = now / 1000000;
	r.u.refusal.real_ms = spawner_real_ms();
	r.u.refusal.pid = pid;
	r.u.refusal.role = role == ROLE_PROBE ? CHURN_ROLE_PROBE : CHURN_ROLE_CHURN;
	r.u.refusal.mode = mode;
	spawner_rec_emit(s, &r, 0);
	s->deaths_sent++;
}

void spawner_rec_death(struct spawner *s, int64_t now, pid_t pid, int code, int sig, int64_t born_ms, int role)
{
	static struct churn_rec r;

	if (s->deaths_sent >= s->cfg->cc.death_records_max) {
		s->deaths_dropped++;
		return;
	}
	memset(&r, 0, sizeof r);
	r.type = CHURN_REC_DEATH;
	r.u.death.mono_ms = now / 1000000;
	r.u.death.real_ms = spawner_real_ms();
	r.u.death.age_ms = now / 1000000 - born_ms;
	r.u.death.pid = pid;
	r.u.death.signal = sig;
	r.u.death.core = code == CLD_DUMPED;
	r.u.death.role = role == ROLE_PROBE ? CHURN_ROLE_PROBE : CHURN_ROLE_CHURN;
	spawner_rec_emit(s, &r, 0);
	s->deaths_sent++;
}
