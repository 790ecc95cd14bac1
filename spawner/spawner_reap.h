/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner_reap: reaping the spawner's children and telling what each
 * death was: exited, retired, our own kill, an OOM kill the group counted,
 * a refused HOLD (--gfp-mode), or unknown.  Counted by role (churn or
 * probe, never by the phase the death happened in).
 *
 * Private to the spawner (state.h).
 */
#ifndef FPUSOAK_SPAWNER_REAP_H
#define FPUSOAK_SPAWNER_REAP_H

#include <stdint.h>

struct spawner;

/* Ready bytes of probe workers: reap deaths first, then step the probe once per byte. */
void spawner_reap_ready(struct spawner *s, int64_t now);

/* Reap every dead child (waitid WNOHANG until none), count its fate by role and tell the probes. */
void spawner_reap_all(struct spawner *s, int64_t now);

#endif
