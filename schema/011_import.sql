-- SPDX-License-Identifier: GPL-2.0-only
-- 011_import: where a run came from when `fpusoakd import` copied it from another database.
--
-- One row per imported run (run_id is the run in this database); native runs have none.
-- source_file is the source database's file name, source_path the path as given to import,
-- source_run_id the run's id there; source_host and source_boot_id are the run's hostname and
-- boot id (copied, so a run stays identifiable however often it is imported on).  A run is
-- the same run in any database when (hostname, boot_id, pid, started_ms) match: import skips
-- it then, which makes importing twice add nothing.
--
-- applied-if-table: run_import
CREATE TABLE run_import (
	run_id         INTEGER PRIMARY KEY,
	source_file    TEXT NOT NULL,
	source_path    TEXT NOT NULL,
	source_run_id  INTEGER NOT NULL,
	source_host    TEXT,
	source_boot_id TEXT,
	source_schema  INTEGER NOT NULL,
	imported_ms    INTEGER NOT NULL
);

CREATE VIEW v_imports AS
SELECT run_id, source_file, source_run_id, source_host, source_boot_id,
       strftime('%Y-%m-%dT%H:%M:%fZ', imported_ms / 1000.0, 'unixepoch') AS imported_at,
       imported_ms, source_path, source_schema
  FROM run_import;
