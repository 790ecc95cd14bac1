/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner_probe: the spawner's side of the probes: the capacity probe's
 * steps (retire churn, fill one worker at a time, release, report) around
 * probe.h's rules, and the switch probe's child.  One probe at a time.
 *
 * Private to the spawner (state.h).
 */
#ifndef FPUSOAK_SPAWNER_PROBE_H
#define FPUSOAK_SPAWNER_PROBE_H

#include <stdint.h>

#include "spawner/probe.h"

struct spawner;

/* Begin a capacity probe: retire the churn workers (SIGTERM) and arm the retire deadline. */
void spawner_probe_cap_start(struct spawner *s, int64_t now);

/* Do what the probe's rules said: SPAWN the next probe worker, RELEASE them all, or nothing. */
void spawner_probe_cap_act(struct spawner *s, int64_t now, enum probe_act act);

/* Every probe worker is gone: restore the limit, send PROBE_DONE, resume churn (unless stopping). */
void spawner_probe_cap_finish(struct spawner *s, int64_t now);

/* Deadlines and phase ends of the capacity probe in progress (none: nothing to do). */
void spawner_probe_cap_progress(struct spawner *s, int64_t now);

/* Fork the switch probe's child, which execs the program afresh (probe_switch_exec_main). */
void spawner_probe_sw_start(struct spawner *s, int64_t now);

/* Take the switch probe's result from its pipe if it is complete. */
void spawner_probe_sw_read(struct spawner *s);

/* The switch probe's child was reaped (waitid code/status): send its PROBE_DONE. */
void spawner_probe_sw_done(struct spawner *s, int64_t now, int code, int status);

#endif
