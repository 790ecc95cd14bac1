#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# runnable_watch.py PID OUT: every 100 ms, count PID and its descendants in state R (from
# /proc/*/stat; the states from a quick second pass over the tree: see below), all of them and those above nice 19 (the ones that compete for a CPU: a nice-19
# churn worker queued behind a busy loop takes nothing from anyone).  On SIGTERM write
# "MAX MAX_ABOVE19 SAMPLES WHO WHO_ABOVE" to OUT and exit, WHO naming the runnable processes
# (comm:nice, "+x" when exiting, "@Ns" its age, "/TERM" or "/KILL" a pending signal:
# a worker released or retired, an OOM victim) of the sample with the most, WHO_ABOVE those of the sample with the
# most above nice 19.  Used by 69_probe_scale.sh.
import os
import signal
import sys
import time

root, out = int(sys.argv[1]), sys.argv[2]
mx = mx_above = n = 0
who = who_above = "-"
PF_EXITING = 0x4
HZ = os.sysconf("SC_CLK_TCK")


def uptime():
    with open("/proc/uptime") as f:
        return int(float(f.read().split()[0]))


def done(*_):
    with open(out, "w") as f:
        f.write(f"{mx} {mx_above} {n} {who} {who_above}\n")
    sys.exit(0)


def stat(pid):
    """(state, ppid, nice, "comm:nice[+x]", start time in ticks) of /proc/PID/stat, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read()
    except OSError:
        return None
    fields = st[st.rfind(")") + 2:].split()
    label = (st[st.find("(") + 1:st.rfind(")")].replace(" ", "_") + ":" + fields[16]
             + ("+x" if int(fields[6]) & PF_EXITING else ""))
    return fields[0], int(fields[1]), int(fields[16]), label, int(fields[19])


def pending(pid):
    """"/TERM" or "/KILL" when that signal is pending (a retired or released worker, an OOM victim)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            bits = 0
            for line in f:
                if line.startswith(("SigPnd:", "ShdPnd:")):
                    bits |= int(line.split()[1], 16)
    except (OSError, ValueError):
        return ""
    return ("/KILL" if bits & (1 << 8) else "") + ("/TERM" if bits & (1 << 14) else "")


signal.signal(signal.SIGTERM, done)
while True:
    parent = {}
    for p in os.listdir("/proc"):
        if p.isdigit() and (s := stat(p)):
            parent[int(p)] = s[1]
    kids = {}
    for pid, pp in parent.items():
        kids.setdefault(pp, []).append(pid)
    todo, tree = [root], []
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(kids.get(pid, []))
    # The sweep over every /proc entry takes tens of ms under load (hundreds of workers, the rest
    # of the machine), long enough for the spawner to reap a retired worker and SIGTERM the next:
    # both then read as R in one sweep though they never were at once.  So the states counted are
    # those of a second pass over the daemon's tree only: a queue of runnable processes behind a busy
    # CPU lasts far longer than a re-read and still shows.  That pass too is preempted for tens of ms
    # under load, and over a release's ~570 workers it spanned several of the release's batches: a
    # batch read as runnable early in the pass had exited before the next one, SIGTERMed later, was
    # read (6 workers with a pending SIGTERM, the spawner never having more than 4 released at once).
    # So the runnable ones are read once more, back to back (a handful of files), and only those still
    # runnable count; their labels come from that read.
    candidates = [pid for pid in tree if (s := stat(pid)) and s[0] == "R"]
    running, nice, name = [], {}, {}
    up = uptime()
    for pid in candidates:
        s = stat(pid)
        if s and s[0] == "R":
            running.append(pid)
            nice[pid], name[pid] = s[2], s[3] + "@%ds" % max(0, up - s[4] // HZ) + pending(pid)
    above = sum(1 for pid in running if nice[pid] < 19)
    if len(running) > mx:
        mx, who = len(running), ",".join(sorted(name[pid] for pid in running))
    if above > mx_above:
        mx_above = above
        who_above = ",".join(sorted(name[pid] for pid in running if nice[pid] < 19))
    n += 1
    time.sleep(0.1)
