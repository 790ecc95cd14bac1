-- SPDX-License-Identifier: GPL-2.0-only
-- 016_run_memory: what the machine really had when a run started (issue 30).  MemTotal alone
-- hides how much of a small guest its kernel keeps: a 64 MB Xen PV domU on Debian's kernel
-- has MemTotal ~29 MB, on a small one ~51 MB.  One row per run, written with it:
--   domain_kb        a Xen guest's size as its balloon driver has it (current_kb), NULL when
--                    not under Xen or without a balloon driver
--   present_kb       the pages the kernel knows (zoneinfo's present, every zone): the
--                    "Memory: …K/<present>K available" of the boot log
--   mem_total_kb     MemTotal (the same as runs.mem_total_kb)
--   mem_free_kb      MemFree when the run started (a daemon started at boot: free at boot)
--   mem_available_kb MemAvailable then
-- v_run_memory adds reserved_kb = present_kb - mem_total_kb: what the kernel keeps for itself
-- (image, memory map, early allocations; the boot line's "reserved" less what init frees), and
-- outside_kb = domain_kb - present_kb: what a guest was given but its kernel never saw as pages
-- (holes, the start-of-day pages Xen keeps).  NULL where a part is unknown.
--
-- applied-if-table: run_memory
CREATE TABLE run_memory (
	run_id           INTEGER PRIMARY KEY,
	domain_kb        INTEGER,
	present_kb       INTEGER,
	mem_total_kb     INTEGER,
	mem_free_kb      INTEGER,
	mem_available_kb INTEGER
);

CREATE VIEW v_run_memory AS
SELECT run_id, domain_kb, present_kb, mem_total_kb, mem_free_kb, mem_available_kb,
       present_kb - mem_total_kb AS reserved_kb,
       domain_kb - present_kb AS outside_kb
  FROM run_memory;
