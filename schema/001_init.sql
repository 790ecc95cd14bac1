-- SPDX-License-Identifier: GPL-2.0-only
-- 001_init: runs, the 1-second samples, and the public v_* views.
--
-- Tables are narrow and keyed by (run_id, ts_ms) so a tick is a handful of
-- B-tree appends.  Only the v_* views are a documented, stable interface;
-- the tables behind them may change with a migration.
-- Timestamps: ts_ms is Unix epoch milliseconds (UTC, CLOCK_REALTIME).

CREATE TABLE runs (
	run_id         INTEGER PRIMARY KEY,
	label          TEXT,
	started_ms     INTEGER NOT NULL,
	ended_ms       INTEGER,
	end_reason     TEXT,               -- NULL while running; stopped|duration|crash|error
	pid            INTEGER,
	version        TEXT,
	boot_id        TEXT,
	hostname       TEXT,
	kernel_release TEXT,
	kernel_version TEXT,
	cmdline        TEXT,
	hypervisor     TEXT,               -- xen|kvm|hyperv|vmware|none|...
	guest_type     TEXT,               -- PV|HVM|PVH|... or NULL
	cpu_model      TEXT,
	fpu_features   TEXT,               -- space-separated: x87 sse2 avx avx2 avx512f amx-tile ...
	xstate_bytes   INTEGER,            -- CPUID 0xD.0 EBX: XSAVE area for the enabled XCR0
	xstate_detail  TEXT,               -- per-feature sizes, "avx=256 avx512_zmm_hi256=512 ..."
	mem_total_kb   INTEGER,
	page_size      INTEGER,
	config         TEXT                -- effective configuration, "key=value" lines
);

-- Dimension tables: a zone and a counter name are stored once, samples
-- refer to them by a small integer.
CREATE TABLE zones (
	zone_id INTEGER PRIMARY KEY,
	node    INTEGER NOT NULL,
	name    TEXT NOT NULL,
	UNIQUE (node, name)
);
CREATE TABLE names (
	name_id INTEGER PRIMARY KEY,
	source  TEXT NOT NULL,              -- vmstat|meminfo
	name    TEXT NOT NULL,
	UNIQUE (source, name)
);

-- One row per tick: the tick happened, and what it cost.
CREATE TABLE samples (
	run_id    INTEGER NOT NULL,
	ts_ms     INTEGER NOT NULL,
	sample_us INTEGER NOT NULL,         -- read+parse time of the tick's sources
	PRIMARY KEY (run_id, ts_ms)
) WITHOUT ROWID;

-- buddyinfo: a wide row per zone per tick (orders 0..15, NULL past norders).
CREATE TABLE buddy (
	run_id  INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,
	zone_id INTEGER NOT NULL,
	norders INTEGER NOT NULL,
	o0 INTEGER, o1 INTEGER, o2 INTEGER, o3 INTEGER, o4 INTEGER, o5 INTEGER, o6 INTEGER, o7 INTEGER,
	o8 INTEGER, o9 INTEGER, o10 INTEGER, o11 INTEGER, o12 INTEGER, o13 INTEGER, o14 INTEGER, o15 INTEGER,
	PRIMARY KEY (run_id, ts_ms, zone_id)
) WITHOUT ROWID;

-- vmstat counters are stored when they change (and in full at a run's first
-- tick and every keyframe interval): most of ~80 counters sit still for
-- minutes, and a counter's value holds until its next row.
CREATE TABLE vmstat (
	run_id  INTEGER NOT NULL,
	ts_ms   INTEGER NOT NULL,
	name_id INTEGER NOT NULL,
	value   INTEGER NOT NULL,
	PRIMARY KEY (run_id, name_id, ts_ms)
) WITHOUT ROWID;

-- meminfo: the fields that move with fragmentation, every tick (kB).
CREATE TABLE meminfo (
	run_id   INTEGER NOT NULL,
	ts_ms    INTEGER NOT NULL,
	name_id  INTEGER NOT NULL,
	value_kb INTEGER NOT NULL,
	PRIMARY KEY (run_id, name_id, ts_ms)
) WITHOUT ROWID;

-- Small key/value facts about a run that appear later (e.g. source errors).
CREATE TABLE run_notes (
	run_id INTEGER NOT NULL,
	ts_ms  INTEGER NOT NULL,
	kind   TEXT NOT NULL,
	text   TEXT NOT NULL
);
CREATE INDEX run_notes_run ON run_notes (run_id, ts_ms);

-- ---------------------------------------------------------------- views
CREATE VIEW v_runs AS
SELECT run_id, label,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_ms / 1000.0, 'unixepoch') AS started_at,
       CASE WHEN ended_ms IS NULL THEN NULL
            ELSE strftime('%Y-%m-%dT%H:%M:%fZ', ended_ms / 1000.0, 'unixepoch') END AS ended_at,
       end_reason, kernel_release, hypervisor, guest_type, cpu_model, fpu_features,
       xstate_bytes, mem_total_kb,
       started_ms, ended_ms, kernel_version, cmdline, page_size, boot_id, hostname, version,
       xstate_detail, config
  FROM runs;

CREATE VIEW v_samples AS
SELECT run_id, ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', ts_ms / 1000.0, 'unixepoch') AS ts, sample_us
  FROM samples;

CREATE TABLE orders (k INTEGER PRIMARY KEY);
WITH RECURSIVE o(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM o WHERE k < 15)
INSERT INTO orders SELECT k FROM o;

CREATE VIEW v_buddyinfo AS
SELECT b.run_id, b.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', b.ts_ms / 1000.0, 'unixepoch') AS ts,
       z.node, z.name AS zone, o.k AS page_order,
       CASE o.k WHEN 0 THEN o0 WHEN 1 THEN o1 WHEN 2 THEN o2 WHEN 3 THEN o3 WHEN 4 THEN o4
                WHEN 5 THEN o5 WHEN 6 THEN o6 WHEN 7 THEN o7 WHEN 8 THEN o8 WHEN 9 THEN o9
                WHEN 10 THEN o10 WHEN 11 THEN o11 WHEN 12 THEN o12 WHEN 13 THEN o13
                WHEN 14 THEN o14 ELSE o15 END AS free_blocks
  FROM buddy b JOIN zones z USING (zone_id) JOIN orders o ON o.k < b.norders;

CREATE VIEW v_vmstat AS
SELECT v.run_id, v.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', v.ts_ms / 1000.0, 'unixepoch') AS ts,
       n.name, v.value
  FROM vmstat v JOIN names n USING (name_id);

CREATE VIEW v_meminfo AS
SELECT m.run_id, m.ts_ms, strftime('%Y-%m-%dT%H:%M:%fZ', m.ts_ms / 1000.0, 'unixepoch') AS ts,
       n.name, m.value_kb
  FROM meminfo m JOIN names n USING (name_id);
