-- SPDX-License-Identifier: GPL-2.0-only
-- 006_change_only: a zone's buddyinfo and atomic-risk row is stored when it changes.
--
-- Measured on schema 5 (bench/RESULTS.md): buddy and atomic_risk were 259 of
-- 533 bytes per 1-second tick, one row per zone per tick, yet on a real guest
-- only the zone that serves allocations moves: DMA and DMA32 rows changed 0
-- times in 45 ticks on the 2-core test machine, Normal 43-45 times.  Now, as
-- vmstat already did, a zone's row is written when any of its values changed
-- (and every zone hourly), and it holds until that zone's next row.  A row
-- with norders = 0 says the zone was not read at that tick (the views show
-- nothing for it), so a gap is never filled with stale counts.
--
-- The vmstat counters that move nearly every tick (store/fields.h:
-- STORE_VMSTAT_HOT) become columns of the tick's samples row: ~6 bytes each
-- instead of a ~21-byte (run, name, ts, value) row.  v_vmstat shows them as
-- rows again, one per tick.
--
-- The key is (run_id, zone_id, ts_ms): "the zone's row at tick T" is one
-- index seek.  buddy_at and atomic_at give the row in force at every tick
-- (one per zone per samples row); the v_* views read them and keep their
-- columns and their values (a migration test compares them as text).

DROP VIEW v_headroom;
DROP VIEW v_frag;
DROP VIEW v_frag_x1000;
DROP VIEW v_buddyinfo;
DROP VIEW v_atomic_risk;

CREATE TABLE buddy_new (
	run_id  INTEGER NOT NULL,
	zone_id INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,           -- the tick from which these counts hold
	norders INTEGER NOT NULL,           -- 0: the zone was not read at this tick
	o0 INTEGER, o1 INTEGER, o2 INTEGER, o3 INTEGER, o4 INTEGER, o5 INTEGER, o6 INTEGER, o7 INTEGER,
	o8 INTEGER, o9 INTEGER, o10 INTEGER, o11 INTEGER, o12 INTEGER, o13 INTEGER, o14 INTEGER, o15 INTEGER,
	PRIMARY KEY (run_id, zone_id, ts_ms)
) WITHOUT ROWID;
INSERT INTO buddy_new (run_id, zone_id, ts_ms, norders, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15)
SELECT run_id, zone_id, ts_ms, norders, o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15 FROM buddy;
-- Ticks of schema 5 without a zone's row (the source failed) become explicit gaps.
INSERT INTO buddy_new (run_id, zone_id, ts_ms, norders)
SELECT s.run_id, z.zone_id, s.ts_ms, 0 FROM samples s JOIN zones z
 WHERE NOT EXISTS (SELECT 1 FROM buddy b WHERE b.run_id = s.run_id AND b.ts_ms = s.ts_ms AND b.zone_id = z.zone_id)
   AND EXISTS (SELECT 1 FROM buddy b WHERE b.run_id = s.run_id AND b.zone_id = z.zone_id AND b.ts_ms < s.ts_ms);
DROP TABLE buddy;
ALTER TABLE buddy_new RENAME TO buddy;

CREATE TABLE atomic_new (
	run_id      INTEGER NOT NULL,
	zone_id     INTEGER NOT NULL,
	ts_ms       INTEGER NOT NULL,       -- the tick from which these verdicts hold
	norders     INTEGER NOT NULL,       -- 0: the zone was not modelled at this tick
	atomic_mask INTEGER NOT NULL,
	kernel_mask INTEGER NOT NULL,
	margin0     INTEGER NOT NULL,
	kernel_margin0 INTEGER NOT NULL,
	legacy      INTEGER NOT NULL,       -- 1: kernel < 4.4, margins per order are not derivable
	PRIMARY KEY (run_id, zone_id, ts_ms)
) WITHOUT ROWID;
INSERT INTO atomic_new (run_id, zone_id, ts_ms, norders, atomic_mask, kernel_mask, margin0, kernel_margin0, legacy)
SELECT run_id, zone_id, ts_ms, norders, atomic_mask, kernel_mask, margin0, kernel_margin0, legacy FROM atomic_risk;
INSERT INTO atomic_new (run_id, zone_id, ts_ms, norders, atomic_mask, kernel_mask, margin0, kernel_margin0, legacy)
SELECT s.run_id, z.zone_id, s.ts_ms, 0, 0, 0, 0, 0, 0 FROM samples s JOIN zones z
 WHERE NOT EXISTS (SELECT 1 FROM atomic_risk a WHERE a.run_id = s.run_id AND a.ts_ms = s.ts_ms AND a.zone_id = z.zone_id)
   AND EXISTS (SELECT 1 FROM atomic_risk a WHERE a.run_id = s.run_id AND a.zone_id = z.zone_id AND a.ts_ms < s.ts_ms);
DROP TABLE atomic_risk;
ALTER TABLE atomic_new RENAME TO atomic_risk;

-- The row in force at each tick: for every samples row and zone, the zone's
-- newest row at or before the tick.
CREATE VIEW buddy_at AS
SELECT s.run_id, s.ts_ms, b.zone_id, b.norders, b.o0, b.o1, b.o2, b.o3, b.o4, b.o5, b.o6, b.o7, b.o8, b.o9, b.o10, b.o11, b.o12, b.o13, b.o14, b.o15
  FROM samples s CROSS JOIN zones z
  CROSS JOIN buddy b ON b.run_id = s.run_id AND b.zone_id = z.zone_id
   AND b.ts_ms = (SELECT max(x.ts_ms) FROM buddy x WHERE x.run_id = s.run_id AND x.zone_id = z.zone_id
                   AND x.ts_ms <= s.ts_ms);

CREATE VIEW atomic_at AS
SELECT s.run_id, s.ts_ms, a.zone_id, a.norders, a.atomic_mask, a.kernel_mask, a.margin0, a.kernel_margin0, a.legacy
  FROM samples s CROSS JOIN zones z
  CROSS JOIN atomic_risk a ON a.run_id = s.run_id AND a.zone_id = z.zone_id
   AND a.ts_ms = (SELECT max(x.ts_ms) FROM atomic_risk x WHERE x.run_id = s.run_id AND x.zone_id = z.zone_id
                   AND x.ts_ms <= s.ts_ms);

CREATE VIEW v_buddyinfo AS
SELECT b.run_id, b.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', b.ts_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, o.k AS page_order,
       CASE o.k WHEN 0 THEN o0 WHEN 1 THEN o1 WHEN 2 THEN o2 WHEN 3 THEN o3 WHEN 4 THEN o4
                WHEN 5 THEN o5 WHEN 6 THEN o6 WHEN 7 THEN o7 WHEN 8 THEN o8 WHEN 9 THEN o9
                WHEN 10 THEN o10 WHEN 11 THEN o11 WHEN 12 THEN o12 WHEN 13 THEN o13
                WHEN 14 THEN o14 ELSE o15 END AS free_blocks
  FROM buddy_at b JOIN zones z USING (zone_id) JOIN orders o ON o.k < b.norders;

CREATE VIEW v_frag_x1000 AS
SELECT run_id, ts_ms, zone_id, node, zone, page_order, free_blocks, free_pages, blocks_total, headroom_blocks,
       CASE WHEN free_pages = 0 THEN 1000 ELSE prefix * 1000 / free_pages END AS unusable_x1000,
       CASE WHEN blocks_total = 0 THEN 0 WHEN headroom_blocks > 0 THEN -1000
            ELSE 1000 - (1000 + free_pages * 1000 / (1 << page_order)) / blocks_total END AS fragmentation_x1000
  FROM (SELECT b.run_id, b.ts_ms, b.zone_id, z.node, z.name AS zone, k.k AS page_order,
               CASE k.k WHEN 0 THEN b.o0 WHEN 1 THEN b.o1 WHEN 2 THEN b.o2 WHEN 3 THEN b.o3 WHEN 4 THEN b.o4 WHEN 5 THEN b.o5 WHEN 6 THEN b.o6 WHEN 7 THEN b.o7 WHEN 8 THEN b.o8 WHEN 9 THEN b.o9 WHEN 10 THEN b.o10 WHEN 11 THEN b.o11 WHEN 12 THEN b.o12 WHEN 13 THEN b.o13 WHEN 14 THEN b.o14 ELSE b.o15 END AS free_blocks,
               (coalesce(b.o0,0) << 0) + (coalesce(b.o1,0) << 1) + (coalesce(b.o2,0) << 2) + (coalesce(b.o3,0) << 3) + (coalesce(b.o4,0) << 4) + (coalesce(b.o5,0) << 5) + (coalesce(b.o6,0) << 6) + (coalesce(b.o7,0) << 7) + (coalesce(b.o8,0) << 8) + (coalesce(b.o9,0) << 9) + (coalesce(b.o10,0) << 10) + (coalesce(b.o11,0) << 11) + (coalesce(b.o12,0) << 12) + (coalesce(b.o13,0) << 13) + (coalesce(b.o14,0) << 14) + (coalesce(b.o15,0) << 15) AS free_pages,
               coalesce(b.o0,0) + coalesce(b.o1,0) + coalesce(b.o2,0) + coalesce(b.o3,0) + coalesce(b.o4,0) + coalesce(b.o5,0) + coalesce(b.o6,0) + coalesce(b.o7,0) + coalesce(b.o8,0) + coalesce(b.o9,0) + coalesce(b.o10,0) + coalesce(b.o11,0) + coalesce(b.o12,0) + coalesce(b.o13,0) + coalesce(b.o14,0) + coalesce(b.o15,0) AS blocks_total,
               (CASE WHEN k.k > 0 THEN coalesce(b.o0,0) << 0 ELSE 0 END) + (CASE WHEN k.k > 1 THEN coalesce(b.o1,0) << 1 ELSE 0 END) + (CASE WHEN k.k > 2 THEN coalesce(b.o2,0) << 2 ELSE 0 END) + (CASE WHEN k.k > 3 THEN coalesce(b.o3,0) << 3 ELSE 0 END) + (CASE WHEN k.k > 4 THEN coalesce(b.o4,0) << 4 ELSE 0 END) + (CASE WHEN k.k > 5 THEN coalesce(b.o5,0) << 5 ELSE 0 END) + (CASE WHEN k.k > 6 THEN coalesce(b.o6,0) << 6 ELSE 0 END) + (CASE WHEN k.k > 7 THEN coalesce(b.o7,0) << 7 ELSE 0 END) + (CASE WHEN k.k > 8 THEN coalesce(b.o8,0) << 8 ELSE 0 END) + (CASE WHEN k.k > 9 THEN coalesce(b.o9,0) << 9 ELSE 0 END) + (CASE WHEN k.k > 10 THEN coalesce(b.o10,0) << 10 ELSE 0 END) + (CASE WHEN k.k > 11 THEN coalesce(b.o11,0) << 11 ELSE 0 END) + (CASE WHEN k.k > 12 THEN coalesce(b.o12,0) << 12 ELSE 0 END) + (CASE WHEN k.k > 13 THEN coalesce(b.o13,0) << 13 ELSE 0 END) + (CASE WHEN k.k > 14 THEN coalesce(b.o14,0) << 14 ELSE 0 END) + (CASE WHEN k.k > 15 THEN coalesce(b.o15,0) << 15 ELSE 0 END) AS prefix,
               (((coalesce(b.o0,0) << 0) + (coalesce(b.o1,0) << 1) + (coalesce(b.o2,0) << 2) + (coalesce(b.o3,0) << 3) + (coalesce(b.o4,0) << 4) + (coalesce(b.o5,0) << 5) + (coalesce(b.o6,0) << 6) + (coalesce(b.o7,0) << 7) + (coalesce(b.o8,0) << 8) + (coalesce(b.o9,0) << 9) + (coalesce(b.o10,0) << 10) + (coalesce(b.o11,0) << 11) + (coalesce(b.o12,0) << 12) + (coalesce(b.o13,0) << 13) + (coalesce(b.o14,0) << 14) + (coalesce(b.o15,0) << 15)) - ((CASE WHEN k.k > 0 THEN coalesce(b.o0,0) << 0 ELSE 0 END) + (CASE WHEN k.k > 1 THEN coalesce(b.o1,0) << 1 ELSE 0 END) + (CASE WHEN k.k > 2 THEN coalesce(b.o2,0) << 2 ELSE 0 END) + (CASE WHEN k.k > 3 THEN coalesce(b.o3,0) << 3 ELSE 0 END) + (CASE WHEN k.k > 4 THEN coalesce(b.o4,0) << 4 ELSE 0 END) + (CASE WHEN k.k > 5 THEN coalesce(b.o5,0) << 5 ELSE 0 END) + (CASE WHEN k.k > 6 THEN coalesce(b.o6,0) << 6 ELSE 0 END) + (CASE WHEN k.k > 7 THEN coalesce(b.o7,0) << 7 ELSE 0 END) + (CASE WHEN k.k > 8 THEN coalesce(b.o8,0) << 8 ELSE 0 END) + (CASE WHEN k.k > 9 THEN coalesce(b.o9,0) << 9 ELSE 0 END) + (CASE WHEN k.k > 10 THEN coalesce(b.o10,0) << 10 ELSE 0 END) + (CASE WHEN k.k > 11 THEN coalesce(b.o11,0) << 11 ELSE 0 END) + (CASE WHEN k.k > 12 THEN coalesce(b.o12,0) << 12 ELSE 0 END) + (CASE WHEN k.k > 13 THEN coalesce(b.o13,0) << 13 ELSE 0 END) + (CASE WHEN k.k > 14 THEN coalesce(b.o14,0) << 14 ELSE 0 END) + (CASE WHEN k.k > 15 THEN coalesce(b.o15,0) << 15 ELSE 0 END))) >> k.k AS headroom_blocks
          FROM buddy_at b JOIN zones z USING (zone_id) JOIN orders k ON k.k < b.norders);


CREATE VIEW v_frag AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       node, zone, page_order,
       round(unusable_x1000 / 1000.0, 3) AS unusable_index,
       round(fragmentation_x1000 / 1000.0, 3) AS fragmentation_index,
       unusable_x1000, fragmentation_x1000, headroom_blocks, free_pages
  FROM v_frag_x1000;

CREATE VIEW v_headroom AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts,
       node, zone, page_order, headroom_blocks
  FROM v_frag_x1000;

CREATE VIEW v_atomic_risk AS
SELECT a.run_id, a.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', a.ts_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, o.k AS page_order,
       (a.atomic_mask >> o.k) & 1 AS atomic_ok,
       (a.kernel_mask >> o.k) & 1 AS kernel_ok,
       CASE WHEN a.legacy THEN NULL ELSE a.margin0 - ((1 << o.k) - 1) END AS margin_pages,
       CASE WHEN a.legacy THEN NULL ELSE a.kernel_margin0 - ((1 << o.k) - 1) END AS kernel_margin_pages
  FROM atomic_at a JOIN zones z USING (zone_id) JOIN orders o ON o.k < a.norders;

-- ------------------------------------------------- vmstat: the hot counters as columns
DROP VIEW v_vmstat;
ALTER TABLE samples ADD COLUMN pgalloc_dma32 INTEGER;
ALTER TABLE samples ADD COLUMN pgalloc_normal INTEGER;
ALTER TABLE samples ADD COLUMN pgfree INTEGER;
ALTER TABLE samples ADD COLUMN pgfault INTEGER;
CREATE TABLE vmstat_hot_fields (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO vmstat_hot_fields (k, name) VALUES (0, 'pgalloc_dma32'), (1, 'pgalloc_normal'), (2, 'pgfree'), (3, 'pgfault');
-- Schema 5 stored them on change: each tick takes the value in force at it.
UPDATE samples
   SET pgalloc_dma32 = (SELECT v.value FROM vmstat v WHERE v.run_id = samples.run_id AND v.ts_ms <= samples.ts_ms
                AND v.name_id = (SELECT name_id FROM names WHERE source = 'vmstat' AND name = 'pgalloc_dma32')
                ORDER BY v.ts_ms DESC LIMIT 1),
       pgalloc_normal = (SELECT v.value FROM vmstat v WHERE v.run_id = samples.run_id AND v.ts_ms <= samples.ts_ms
                AND v.name_id = (SELECT name_id FROM names WHERE source = 'vmstat' AND name = 'pgalloc_normal')
                ORDER BY v.ts_ms DESC LIMIT 1),
       pgfree = (SELECT v.value FROM vmstat v WHERE v.run_id = samples.run_id AND v.ts_ms <= samples.ts_ms
                AND v.name_id = (SELECT name_id FROM names WHERE source = 'vmstat' AND name = 'pgfree')
                ORDER BY v.ts_ms DESC LIMIT 1),
       pgfault = (SELECT v.value FROM vmstat v WHERE v.run_id = samples.run_id AND v.ts_ms <= samples.ts_ms
                AND v.name_id = (SELECT name_id FROM names WHERE source = 'vmstat' AND name = 'pgfault')
                ORDER BY v.ts_ms DESC LIMIT 1);
DELETE FROM vmstat WHERE name_id IN (SELECT name_id FROM names WHERE source = 'vmstat'
                                     AND name IN (SELECT name FROM vmstat_hot_fields));

CREATE VIEW v_vmstat AS
SELECT v.run_id, v.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', v.ts_ms / 1000.0, 'unixepoch') AS ts,
       n.name, v.value
  FROM vmstat v JOIN names n USING (name_id)
UNION ALL
SELECT s.run_id, s.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', s.ts_ms / 1000.0, 'unixepoch') AS ts,
       f.name, CASE f.k WHEN 0 THEN s.pgalloc_dma32 WHEN 1 THEN s.pgalloc_normal WHEN 2 THEN s.pgfree WHEN 3 THEN s.pgfault END AS value
  FROM samples s JOIN vmstat_hot_fields f
 WHERE CASE f.k WHEN 0 THEN s.pgalloc_dma32 WHEN 1 THEN s.pgalloc_normal WHEN 2 THEN s.pgfree WHEN 3 THEN s.pgfault END IS NOT NULL;
