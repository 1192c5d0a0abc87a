"""The services' helper: what the CLI cannot do itself under the binary's own permissions
(its --allow-run names programs, never the binary; Deno.kill needs an unscoped one).

Run as `python3 -I -c <this source> detach <log> <argv...>`: starts argv as a session leader
of its own (setsid, then a second fork so it is nobody's child), its stdin /dev/null and its
stdout and stderr appended to <log>, and SKILLS_SERVICE_IDENTITY set to "<pid> <start ticks>
<boot id>" (who it is, which the supervisor records); prints its pid and exits at once, so the
command that asked holds none of its pipes.

Or `... probe <pid>...`: prints {"boot_id": …, "starts": {pid: ticks or null}} (Deno reads
/proc only with every permission, which the binary does not have).

Or `... signal <pid> <start ticks> <TERM|KILL>`: signals <pid> only while it is still the
process started at those ticks (field 22 of /proc/<pid>/stat): a pid reused since is left
alone. Exits 0 when signalled, 3 when the process is gone.
"""

import os
import signal
import sys


def start_ticks(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            data = handle.read()
        fields = data[data.rindex(b")") + 2:].split()
        return None if fields[0] == b"Z" else fields[19].decode()
    except (OSError, ValueError, IndexError):
        return None


def boot_id():
    try:
        with open("/proc/sys/kernel/random/boot_id") as handle:
            return handle.read().strip()
    except OSError:
        return "unknown-boot"


def probe(pids):
    import json
    starts = {str(pid): start_ticks(int(pid)) for pid in pids}
    sys.stdout.write(json.dumps({"boot_id": boot_id(), "starts": starts}) + "\n")


def detach(log, argv):
    read_end, write_end = os.pipe()
    if os.fork() != 0:
        os.close(write_end)
        pid = os.read(read_end, 32).decode()
        sys.stdout.write(pid + "\n")
        sys.stdout.flush()
        os._exit(0 if pid else 1)
    os.close(read_end)
    os.setsid()
    if os.fork() != 0:
        os._exit(0)
    null = os.open(os.devnull, os.O_RDONLY)
    out = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    me = os.getpid()
    os.environ["SKILLS_SERVICE_IDENTITY"] = "%d %s %s" % (me, start_ticks(me), boot_id())
    os.write(write_end, str(me).encode())
    os.close(write_end)
    try:
        os.execve(argv[0], argv, os.environ)
    finally:
        os._exit(127)


def send(pid, ticks, name):
    if start_ticks(pid) != ticks:
        sys.exit(3)
    try:
        os.kill(pid, signal.SIGKILL if name == "KILL" else signal.SIGTERM)
    except ProcessLookupError:
        sys.exit(3)


if sys.argv[1] == "detach":
    detach(sys.argv[2], sys.argv[3:])
elif sys.argv[1] == "probe":
    probe(sys.argv[2:])
elif sys.argv[1] == "signal":
    send(int(sys.argv[2]), sys.argv[3], sys.argv[4])
else:
    sys.exit(2)
