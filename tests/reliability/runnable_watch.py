#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# runnable_watch.py PID OUT: every 100 ms, count PID and its descendants in state R (from
# /proc/*/stat); on SIGTERM write "MAX SAMPLES WHO" to OUT and exit, WHO naming the runnable
# processes of the sample with the most (comm:nice, comma-separated).  Used by 69_probe_scale.sh.
import os
import signal
import sys
import time

root, out = int(sys.argv[1]), sys.argv[2]
mx = n = 0
who = "-"


def done(*_):
    with open(out, "w") as f:
        f.write(f"{mx} {n} {who}\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
while True:
    parent, state, name = {}, {}, {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rfind(")") + 2:].split()
        parent[int(p)], state[int(p)] = int(fields[1]), fields[0]
        name[int(p)] = st[st.find("(") + 1:st.rfind(")")].replace(" ", "_") + ":" + fields[16]
    kids = {}
    for pid, pp in parent.items():
        kids.setdefault(pp, []).append(pid)
    todo, running = [root], []
    while todo:
        pid = todo.pop()
        if state.get(pid) == "R":
            running.append(name[pid])
        todo.extend(kids.get(pid, []))
    if len(running) > mx:
        mx, who = len(running), ",".join(sorted(running))
    n += 1
    time.sleep(0.1)
