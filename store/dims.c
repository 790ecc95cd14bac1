/* SPDX-License-Identifier: GPL-2.0-only */
/* dims: the names and zones the writer interns; see dims.h. */
#include "store/dims.h"

#include <stdio.h>
#include <string.h>

const char *const store_src_names[NSRC] = { "vmstat", "meminfo", "counter", "migratetype", "slab" };

int dims_load(struct dims *d, sqlite3 *db)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(db, "SELECT name_id, source, name FROM names", -1, &s, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *src = (const char *)sqlite3_column_text(s, 1);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		if (id < 0 || id >= MAX_NAMES || !src || !name)
			continue;
		snprintf(d->names[id].name, sizeof d->names[id].name, "%s", name);
		d->names[id].src = SRC_VMSTAT;
		for (int k = 0; k < NSRC; k++)
			if (strcmp(src, store_src_names[k]) == 0)
				d->names[id].src = (uint8_t)k;
		d->names[id].persisted = 1;
		if (id >= d->nnames)
			d->nnames = id + 1;
	}
	sqlite3_finalize(s);
	if (sqlite3_prepare_v2(db, "SELECT zone_id, node, name FROM zones", -1, &s, NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(s) == SQLITE_ROW) {
		int id = sqlite3_column_int(s, 0);
		const char *name = (const char *)sqlite3_column_text(s, 2);
		if (id < 0 || id >= MAX_ZONES || !name)
			continue;
		d->zones[id].node = sqlite3_column_int(s, 1);
		snprintf(d->zones[id].name, sizeof d->zones[id].name, "%s", name);
		d->zones[id].persisted = 1;
		if (id >= d->nzones)
			d->nzones = id + 1;
	}
	sqlite3_finalize(s);
	return 0;
}

int dims_name(struct dims *d, uint8_t src, const char *name)
{
	for (int i = 0; i < d->nnames; i++)
		if (d->names[i].src == src && d->names[i].name[0] && strcmp(d->names[i].name, name) == 0)
			return i;
	if (d->nnames >= MAX_NAMES)
		return -1;
	snprintf(d->names[d->nnames].name, KV_NAME_MAX, "%s", name);
	d->names[d->nnames].src = src;
	return d->nnames++;
}

int dims_zone(struct dims *d, int node, const char *name)
{
	for (int i = 0; i < d->nzones; i++)
		if (d->zones[i].node == node && strcmp(d->zones[i].name, name) == 0)
			return i;
	if (d->nzones >= MAX_ZONES)
		return -1;
	d->zones[d->nzones].node = node;
	snprintf(d->zones[d->nzones].name, ZONE_NAME_MAX, "%s", name);
	return d->nzones++;
}

int dims_write(const struct dims *d, struct stmts *s)
{
	int rc;

	for (int i = 0; i < d->nnames; i++) {
		const struct name_ent *ne = &d->names[i];
		if (ne->persisted || !ne->name[0])
			continue;
		sqlite3_bind_int(s->s[S_NAME], 1, i);
		sqlite3_bind_text(s->s[S_NAME], 2, store_src_names[ne->src], -1, SQLITE_STATIC);
		sqlite3_bind_text(s->s[S_NAME], 3, ne->name, -1, SQLITE_STATIC);
		if ((rc = stmts_step(s, S_NAME)) != SQLITE_OK)
			return rc;
	}
	for (int i = 0; i < d->nzones; i++) {
		const struct zone_ent *ze = &d->zones[i];
		if (ze->persisted)
			continue;
		sqlite3_bind_int(s->s[S_ZONE], 1, i);
		sqlite3_bind_int(s->s[S_ZONE], 2, ze->node);
		sqlite3_bind_text(s->s[S_ZONE], 3, ze->name, -1, SQLITE_STATIC);
		if ((rc = stmts_step(s, S_ZONE)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

void dims_committed(struct dims *d)
{
	for (int i = 0; i < d->nnames; i++)
		d->names[i].persisted = 1;
	for (int i = 0; i < d->nzones; i++)
		d->zones[i].persisted = 1;
}
