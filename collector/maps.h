/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * maps: one line of /proc/PID/maps, parsed.
 *
 * The spawner uses it to find the shared libraries neither it nor a worker
 * runs (the daemon's HTTP, TLS, SQLite and journal stacks: 18 of its 22
 * libraries, ~100 of its 137 mappings) and unmaps them.  fork's cost grows
 * with the parent's mappings (dup_mmap, copy_page_range, anon_vma_fork per
 * VMA, and the same again in the child's exit_mmap), and the spawner forks
 * once per worker.
 *
 * Line format (fs/proc/task_mmu.c, show_map_vma): "start-end perms offset
 * major:minor inode" then, after padding, an optional path.  The path is
 * the rest of the line (it may contain spaces, or end in " (deleted)").
 */
#ifndef FPUSOAK_MAPS_H
#define FPUSOAK_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct maps_entry {
	uint64_t start, end;          /* [start, end) */
	uint64_t offset;
	uint32_t dev_major, dev_minor;
	uint64_t inode;               /* 0: anonymous, [heap], [stack], [vdso]... */
	char perms[5];                /* "r-xp" */
	const char *path;             /* into the caller's buffer, not NUL-terminated; NULL if none */
	size_t path_len;
};

/* Parse one line buf[0..len) (no newline); 0, or -1 on anything malformed (start >= end included). */
int maps_parse_line(const char *buf, size_t len, struct maps_entry *out);

/* 1 if a and b are mappings of the same file (device and inode, inode != 0), else 0. */
int maps_same_file(const struct maps_entry *a, const struct maps_entry *b);

#endif
