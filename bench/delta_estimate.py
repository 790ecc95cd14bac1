#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/delta_estimate.py DB: what one row of deltas per series and minute would store (issue 35).

An estimate for a store redesign that does not exist, on a real run's DB (read-only): every value
series of samples, buddy, atomic_risk, vmstat and slab (tables stored on change are carried
forward), cut into minutes; a minute in which a series did not move stores nothing; any other is
60 zig-zag deltas, either varints or all of the minute's widest fixed width (the form a view could
decode in plain SQL).  ROW_OVERHEAD bytes a row stand for key and record overhead: a guess, not a
measurement.  Printed beside today's bytes of the same tables (dbstat pages), so the two are from
the same run.  bench/RESULTS.md has what it printed and why it was written.
"""
import sqlite3
import sys

ROW_OVERHEAD = 14
RAW = {  # table: (key columns, value columns or None for all but run_id/ts_ms)
    "samples": ([], None),
    "buddy": (["zone_id"], ["o%d" % i for i in range(16)]),
    "atomic_risk": (["zone_id"], ["atomic_mask", "kernel_mask", "margin0", "kernel_margin0"]),
    "vmstat": (["name_id"], ["value"]),
    "slab": (["name_id"], ["active_objs", "num_objs"]),
}


def zigzag(d):
    return d << 1 if d >= 0 else ((-d) << 1) - 1


def varint_len(u):
    n = 1
    while u >= 128:
        u >>= 7
        n += 1
    return n


def fixed_len(u):
    for w in (1, 2, 4, 8):
        if u < 1 << (8 * w):
            return w
    return 8


def series_of(c):
    """{(table, key, column): {ts_ms: value}} for every value the raw tables hold."""
    out = {}
    for table, (keys, cols) in RAW.items():
        if cols is None:
            cols = [r[1] for r in c.execute("pragma table_info(%s)" % table) if r[1] not in ("run_id", "ts_ms")]
        q = "select ts_ms, %s from %s order by ts_ms" % (",".join(keys + cols), table)
        for row in c.execute(q):
            key = row[1:1 + len(keys)]
            for col, v in zip(cols, row[1 + len(keys):]):
                if v is not None:
                    out.setdefault((table, key, col), {})[row[0]] = v
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/delta_estimate.py DB")
    try:
        c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
        ticks = [r[0] for r in c.execute("select ts_ms from samples order by ts_ms")][60:]  # skip the first minute
    except sqlite3.Error as e:
        sys.exit("delta_estimate: %s: %s" % (sys.argv[1], e))
    if len(ticks) < 120:
        sys.exit("delta_estimate: %s has %d ticks after its first minute; want >= 120" % (sys.argv[1], len(ticks)))
    nt = len(ticks)
    var = fix = rows = 0
    allseries = series_of(c)
    for m in allseries.values():
        ts = sorted(m)
        j, cur, vals = 0, None, []
        for t in ticks:
            while j < len(ts) and ts[j] <= t:
                cur = m[ts[j]]
                j += 1
            vals.append(cur)
        prev = None
        for i in range(0, nt, 60):
            minute = vals[i:i + 60]
            if any(v is None for v in minute):
                continue
            p = prev if prev is not None else 0
            deltas = []
            for v in minute:
                deltas.append(zigzag(v - p))
                p = v
            prev = minute[-1]
            if not any(deltas):
                continue
            rows += 1
            var += sum(varint_len(d) for d in deltas)
            fix += 1 + max(fixed_len(d) for d in deltas) * len(deltas)
    now = dict(c.execute("select name, sum(pgsize) from dbstat group by name"))
    total_ticks = c.execute("select count(*) from samples").fetchone()[0]
    today = sum(now.get(t, 0) for t in RAW) / total_ticks
    ovh = rows * ROW_OVERHEAD / nt
    print("ticks %d (after the first minute), series %d, rows a minute %.1f" % (nt, len(allseries), rows / (nt / 60)))
    print("today, the raw tables' pages: %.1f bytes a tick" % today)
    print("delta varints:      %.1f data + %.1f rows = %.1f bytes a tick (x%.2f smaller)" %
          (var / nt, ovh, var / nt + ovh, today / (var / nt + ovh)))
    print("delta fixed width:  %.1f data + %.1f rows = %.1f bytes a tick (x%.2f smaller)" %
          (fix / nt, ovh, fix / nt + ovh, today / (fix / nt + ovh)))


if __name__ == "__main__":
    main()
