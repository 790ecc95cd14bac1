#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# runnable_watch.py PID OUT: every 100 ms, count PID and its descendants in state R (from
# /proc/*/stat), all of them and those above nice 19 (the ones that compete for a CPU: a nice-19
# churn worker queued behind a busy loop takes nothing from anyone).  On SIGTERM write
# "MAX MAX_ABOVE19 SAMPLES WHO" to OUT and exit, WHO naming the runnable processes (comm:nice) of the
# sample with the most.  Used by 69_probe_scale.sh.
import os
import signal
import sys
import time

root, out = int(sys.argv[1]), sys.argv[2]
mx = mx_above = n = 0
who = "-"


def done(*_):
    with open(out, "w") as f:
        f.write(f"{mx} {mx_above} {n} {who}\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
while True:
    parent, state, name, nice = {}, {}, {}, {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(")") + 2:].split()
        pid = int(p)
        parent[pid], state[pid], nice[pid] = int(fields[1]), fields[0], int(fields[16])
        name[pid] = st[st.find("(") + 1:st.rfind(")")].replace(" ", "_") + ":" + fields[16]
    kids = {}
    for pid, pp in parent.items():
        kids.setdefault(pp, []).append(pid)
    todo, running = [root], []
    while todo:
        pid = todo.pop()
        if state.get(pid) == "R":
            running.append(pid)
        todo.extend(kids.get(pid, []))
    above = sum(1 for pid in running if nice[pid] < 19)
    if len(running) > mx:
        mx, who = len(running), ",".join(sorted(name[pid] for pid in running))
    mx_above = max(mx_above, above)
    n += 1
    time.sleep(0.1)
