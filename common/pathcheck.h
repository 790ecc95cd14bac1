/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pathcheck: say why a database path cannot be opened, before SQLite says
 * "unable to open database file" for every cause alike.
 *
 * SQLite in WAL mode writes the DB and two files beside it (-wal, -shm), so
 * a writer needs the folder to exist, to be a folder, and to be writable,
 * and the path itself to be a regular file or absent.  A reader needs the
 * file to exist and be readable.  The checks are advisory (the open that
 * follows is what counts) but they name the cause.
 */
#ifndef FPUSOAK_PATHCHECK_H
#define FPUSOAK_PATHCHECK_H

#include <stddef.h>

/* 0 if nothing is obviously wrong with path for a reader (writer != 0: a writer that may create it);
 * -1 with one phrase in why ("folder /x does not exist", "/x/db is a directory", ...). */
int pathcheck_db(const char *path, int writer, char *why, size_t whylen);

/*
 * 0 if path is absent, empty or starts with SQLite's 16-byte header; -1 with why ("... is not an SQLite
 * database") if not.  It opens and closes the file: call it only in a process that holds no SQLite
 * connection to path, since closing any descriptor of a file drops every POSIX lock the process holds on
 * it, SQLite's included (a daemon that did so while writing lost its WAL to the next reader).
 */
int pathcheck_db_header(const char *path, char *why, size_t whylen);

#endif
