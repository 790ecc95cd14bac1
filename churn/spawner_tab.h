/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spawner_tab: the spawner's PID table.  Workers are looked up by PID in an
 * open-addressing table (linear probing, backward-shift deletion) sized once
 * at start and grown only when the population asked for needs it: no
 * allocation per spawn, and it lives in a shared mapping that fork neither
 * copies nor COW-marks (the spawner is forked for every worker, so its
 * footprint is part of every fork's cost).
 *
 * Private to the spawner (spawner_priv.h).
 */
#ifndef FPUSOAK_SPAWNER_TAB_H
#define FPUSOAK_SPAWNER_TAB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct slot;
struct table;
struct spawner;

/* The slot of pid, or NULL if pid is not ours. */
struct slot *spawner_tab_find(struct table *t, pid_t pid);

/* Add pid with its role and birth time; 0, or -1 if that would make the table more than half full. */
int spawner_tab_insert(struct table *t, pid_t pid, int role, int64_t born_ms);

/* Take victim out (backward-shift deletion: no tombstones). */
void spawner_tab_remove(struct table *t, struct slot *victim);

/* A zeroed table of slots (a power of two) in shared anonymous memory, touched in full; NULL on failure. */
struct slot *spawner_tab_alloc(size_t slots);

/* Slots (a power of two) for a population of `workers` and a full capacity probe bounded by the memory it may fill, at most half full. */
size_t spawner_tab_slots(const struct spawner *s, int64_t workers);

/* Move into a bigger table when `workers` needs one (SPAWNER_CMD_SET); 0, or -1 out of memory (table unchanged). */
int spawner_tab_grow(struct spawner *s, int64_t workers);

/* Send sig to every child of one role; a SIGKILL marks each death as ours first. */
void spawner_tab_signal(struct spawner *s, int role, int sig);

/* Keep batch children of one role retiring: SIGTERM to ones not sent it yet (SLOT_RELEASED) until batch
 * of those sent it are alive; how many were sent now. */
int spawner_tab_release(struct spawner *s, int role, int batch);

#endif
