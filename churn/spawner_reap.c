/* SPDX-License-Identifier: GPL-2.0-only */
/* spawner_reap: reaping workers and telling what each death was; see spawner_reap.h. */
#define _GNU_SOURCE
#include "churn/spawner_reap.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "churn/spawner_priv.h"
#include "churn/spawner_probe.h"
#include "churn/spawner_rec.h"
#include "churn/spawner_tab.h"

/* Why a worker that died of SIGKILL died: our own kill, an OOM kill the cgroup counted, or unknown. */
static enum churn_kill_cause kill_cause(struct spawner *s, int ours, int code, int status)
{
	if (code == CLD_EXITED || status != SIGKILL)
		return CHURN_KILL_UNKNOWN;
	if (ours)
		return CHURN_KILL_OURS;
	/* The kernel counts an OOM kill (memcg_memory_event) before it sends the SIGKILL: read it now. */
	spawner_rec_oom_poll(s);
	return s->have_oom && churn_oom_attribute(s->oom_last - s->oom_base, &s->oom_attributed) ? CHURN_KILL_OOM
												 : CHURN_KILL_UNKNOWN;
}

/* PIDs of workers whose HOLD was refused: mark their slots (they are zombies until reaped, so present). */
static void gfp_drain(struct spawner *s)
{
	pid_t pids[64];
	ssize_t n;

	if (s->gfp_rd < 0)
		return;
	while ((n = read(s->gfp_rd, pids, sizeof pids)) > 0)
		for (ssize_t i = 0; i < n / (ssize_t)sizeof pids[0]; i++) {
			struct slot *sl = spawner_tab_find(&s->tab, pids[i]);
			if (sl)
				sl->flags |= SLOT_GFP_FAILED;
		}
}

/* A SIGKILL death of a worker that reported a refused HOLD first (it wrote before it died). */
static int gfp_death(struct spawner *s, struct slot *sl, const siginfo_t *si)
{
	if (s->gfp_rd < 0 || si->si_code != CLD_KILLED || si->si_status != SIGKILL)
		return 0;
	if (!(sl->flags & SLOT_GFP_FAILED))
		gfp_drain(s);
	return (sl->flags & SLOT_GFP_FAILED) != 0;
}

/* Ready bytes: one per probe worker that has touched its memory.  Deaths are reaped first. */
void spawner_reap_ready(struct spawner *s, int64_t now)
{
	char buf[64];
	ssize_t n;

	while ((n = read(s->ready_rd, buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			uint64_t oom = 0;
			spawner_reap_all(s, now);
			if (s->have_oom)
				cgroup_oom_kills(s->cg, &oom);
			spawner_probe_cap_act(s, now, probe_cap_ready(&s->cap, now, oom));
		}
}

void spawner_reap_all(struct spawner *s, int64_t now)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			return;
		struct slot *sl = spawner_tab_find(&s->tab, si.si_pid);
		if (!sl)
			continue;
		int role = sl->role, ours = sl->ours;
		int64_t born = sl->born_ms;
		/* A refused HOLD (--gfp-mode) is a cause of its own, never an OOM kill or ours. */
		int gfp = role != ROLE_SWITCH && gfp_death(s, sl, &si);
		enum churn_kill_cause cause;
		spawner_tab_remove(&s->tab, sl);
		switch (role) {
		case ROLE_CHURN:
			if (gfp) {
				churn_count_gfp_failed(&s->c);
				spawner_rec_gfp_refused(s, now, si.si_pid, role, gfpmod_churn_mode(s->gfp_mode));
				break;
			}
			churn_count_death_cause(&s->c, si.si_code, si.si_status,
						kill_cause(s, ours, si.si_code, si.si_status));
			if (si.si_code != CLD_EXITED)
				spawner_rec_death(s, now, si.si_pid, si.si_code, si.si_status, born, role);
			break;
		case ROLE_PROBE:
			s->probe_alive--;
			if (gfp) {
				churn_count_gfp_failed(&s->pc);
				spawner_rec_gfp_refused(s, now, si.si_pid, role, s->cap_gfp);
				s->cap_gfp_failed++;
				spawner_probe_cap_act(s, now, probe_cap_gfp_failed(&s->cap, now, gfpmod_mode_name(s->cap_gfp)));
				break;
			}
			cause = kill_cause(s, ours, si.si_code, si.si_status);
			churn_count_death_cause(&s->pc, si.si_code, si.si_status, cause);
			s->cap_oom += cause == CHURN_KILL_OOM;
			if (si.si_code != CLD_EXITED)
				spawner_rec_death(s, now, si.si_pid, si.si_code, si.si_status, born, role);
			spawner_probe_cap_act(s, now, probe_cap_death(&s->cap, now, si.si_code, si.si_status));
			break;
		case ROLE_SWITCH:
			spawner_probe_sw_done(s, now, si.si_code, si.si_status);
			break;
		}
	}
}
