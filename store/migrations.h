/* SPDX-License-Identifier: GPL-2.0-only */
/* migrations: the schema/NNN_name.sql files, embedded at build time by tools/embed.sh. */
#ifndef FPUSOAK_MIGRATIONS_H
#define FPUSOAK_MIGRATIONS_H

struct migration {
	int version;          /* NNN of schema/NNN_name.sql; PRAGMA user_version after applying */
	const char *name;
	const char *sql;
};

extern const struct migration store_migrations[];   /* ascending version */
extern const int store_nmigrations;

#endif
