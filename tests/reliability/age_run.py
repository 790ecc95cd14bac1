#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""age_run.py DB RUN_ID DAYS STRETCH

Make a finished run look old, so a retention pass has something to delete:
every ts_ms of the run (in every table with run_id and ts_ms columns) becomes
start - DAYS days + (ts_ms - start) * STRETCH, the run's start and end move
the same way, and the minute/hour rollup cursors are set past its new end
(retention only deletes raw rows the minute rollup has consumed).  STRETCH
spreads a few seconds of samples over many retention slices.  The mapping is
monotonic and lands entirely before the run's real start, so no key collides.
Prints "samples first_ms last_ms" of the aged run.
"""
import sqlite3
import sys


def main():
    db, run, days, stretch = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    c = sqlite3.connect(db)
    start, end = c.execute("SELECT started_ms, ended_ms FROM runs WHERE run_id=?", (run,)).fetchone()
    if end is None:
        sys.exit("run %d has no end" % run)
    base = start - int(days * 86400000)
    tables = [r[0] for r in c.execute(
        "SELECT m.name FROM sqlite_master m WHERE m.type='table' AND"
        " EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name='ts_ms') AND"
        " EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name='run_id')")]
    with c:
        for t in tables:
            c.execute('UPDATE "%s" SET ts_ms = ? + (ts_ms - ?) * ? WHERE run_id = ?' % t, (base, start, stretch, run))
        c.execute("UPDATE runs SET started_ms = ?, ended_ms = ? + (? - ?) * ? WHERE run_id = ?",
                  (base, base, end, start, stretch, run))
        last = c.execute("SELECT max(ts_ms) FROM samples WHERE run_id=?", (run,)).fetchone()[0]
        # Rollup rows themselves are left as they were (retention never touches them).
        c.execute("UPDATE rollup_state SET next_ms = ? WHERE run_id = ?", (last + 3600000, run))
    n, first, last = c.execute("SELECT count(*), min(ts_ms), max(ts_ms) FROM samples WHERE run_id=?", (run,)).fetchone()
    print(n, first, last)


if __name__ == "__main__":
    main()
