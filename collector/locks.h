/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * locks: /proc/locks, the kernel's list of file locks.
 *
 * fpusoakd's writer holds flock(LOCK_EX) on its database for as long as it
 * runs (store/writer.c).  `fpusoakd serve` asks whether that lock is held
 * to tell a run that is being written now from one whose writer is gone,
 * and it asks by reading this list: trying the lock itself, even for a
 * moment, could make a daemon starting at that moment refuse the database.
 *
 * A line is "N: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE START END", with
 * MAJ and MIN in hex and INODE in decimal (fs/locks.c, lock_get_status);
 * a blocked waiter's line has "->" after the number and holds nothing.
 */
#ifndef FPUSOAK_LOCKS_H
#define FPUSOAK_LOCKS_H

#include <stddef.h>
#include <stdint.h>

/* Whether buf[0..len) lists a held FLOCK WRITE lock on inode ino of device maj:min: 1 or 0. Pure. */
int locks_flock_held(const char *buf, size_t len, unsigned maj, unsigned min, uint64_t ino);

#endif
