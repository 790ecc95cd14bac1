/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * helper: where fpusoakd finds the programs it execs (fpusoakd-spawner,
 * fpusoakd-web): beside the running executable first, so a build tree runs
 * its own helpers and never installed ones, else in FPUSOAK_LIBEXECDIR.
 */
#ifndef FPUSOAK_HELPER_H
#define FPUSOAK_HELPER_H

#include <stddef.h>

#ifndef FPUSOAK_LIBEXECDIR
#define FPUSOAK_LIBEXECDIR "/usr/local/libexec/fpusoakd"
#endif

/* The path of helper program name, written into buf and returned, or NULL if neither place has it executable. */
const char *helper_path(const char *name, char *buf, size_t len);

#endif
