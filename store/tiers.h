/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tiers: the bucket widths of the rollup tiers (the tier column of buddy_rollup, buddy_wide_rollup,
 * tick_rollup and rollup_state), one definition for the writer, the reader and their callers.
 *
 * Plain int literals so that SQL text can name them (STORE_SQL_INT); schema/003_rollups.sql's
 * v_buddyinfo_1m and v_buddyinfo_1h spell the same numbers.  int is wide enough for any sum of a
 * few of them; -Werror turns an overflowing constant expression into a build failure.
 */
#ifndef FPUSOAK_TIERS_H
#define FPUSOAK_TIERS_H

#define STORE_TIER_MINUTE_MS 60000     /* the minute rollup */
#define STORE_TIER_HOUR_MS 3600000     /* the hour rollup: whole minutes folded into it */

/* A macro's integer value as SQL text: STORE_SQL_INT(STORE_TIER_MINUTE_MS) is "60000". */
#define STORE_SQL_INT(x) STORE_SQL_INT_(x)
#define STORE_SQL_INT_(x) #x

/* The tiers as SQL text, for statements that name one. */
#define STORE_TIER_MINUTE_SQL STORE_SQL_INT(STORE_TIER_MINUTE_MS)
#define STORE_TIER_HOUR_SQL STORE_SQL_INT(STORE_TIER_HOUR_MS)

#endif
