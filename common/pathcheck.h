/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pathcheck: say why a database path cannot be opened, before SQLite says
 * "unable to open database file" for every cause alike.
 *
 * SQLite in WAL mode writes the DB and two files beside it (-wal, -shm), so
 * a writer needs the folder to exist, to be a folder, and to be writable,
 * and the path itself to be a regular file or absent.  A reader needs the
 * file to exist and be readable.  The checks are advisory (the open that
 * follows is what counts) but they name the cause.  A non-empty file whose
 * first 16 bytes are not SQLite's header is refused as not a database.
 */
#ifndef FPUSOAK_PATHCHECK_H
#define FPUSOAK_PATHCHECK_H

#include <stddef.h>

/* 0 if nothing is obviously wrong with path for a reader (writer != 0: a writer that may create it);
 * -1 with one phrase in why ("folder /x does not exist", "/x/db is a directory", ...). */
int pathcheck_db(const char *path, int writer, char *why, size_t whylen);

#endif
