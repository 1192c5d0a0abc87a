"""The kill helper: ends a script's whole process tree for policy mode (process_group.ts).

Run as `python -c <this source> <root pid>`, where <root pid> leads the session and
process group the sandbox made for the script. Freezes, then SIGKILLs, every process of
that group or session and every descendant (by parent pid) that left it, repeating until
nothing is left (at most 5 rounds). Without /proc (macOS) it kills the process group.
"""

import os, signal, sys
root = int(sys.argv[1])
me = os.getpid()
def tree():
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    parent, found = {}, set()
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                data = f.read()
            fields = data[data.rindex(b")") + 2:].split()
            pid, ppid, pgrp, sid = int(name), int(fields[1]), int(fields[2]), int(fields[3])
        except (OSError, ValueError, IndexError):
            continue
        parent[pid] = ppid
        if pgrp == root or sid == root:
            found.add(pid)
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grew = True
    found.discard(me)
    return found
for _ in range(5):
    pids = tree()
    for pid in pids:
        try: os.kill(pid, signal.SIGSTOP)
        except OSError: pass
    try: os.killpg(root, signal.SIGKILL)
    except OSError: pass
    for pid in pids:
        try: os.kill(pid, signal.SIGKILL)
        except OSError: pass
    if not pids:
        break
