/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock: the two clocks fpusoakd uses, in milliseconds.
 *
 * CLOCK_MONOTONIC schedules (a wall-clock jump never makes sampling burst or
 * stall); CLOCK_REALTIME stamps what is stored (Unix epoch ms, UTC).
 */
#ifndef FPUSOAK_CLOCK_H
#define FPUSOAK_CLOCK_H

#include <stdint.h>

/* Milliseconds of CLOCK_MONOTONIC: for intervals and deadlines only. */
int64_t clock_mono_ms(void);

/* Microseconds of CLOCK_MONOTONIC: for short costs (a sample's read time) and kernel-log timing. */
int64_t clock_mono_us(void);

/* Milliseconds since the Unix epoch (CLOCK_REALTIME): for stored timestamps. */
int64_t clock_wall_ms(void);

#endif
