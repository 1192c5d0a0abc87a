"""The sandbox's init helper: the first program inside every bubblewrap sandbox skills starts.

Run as `python3 -I -S -B -c <this source> <config json> <command> [args...]`. It
  1. sets the resource limits (processes, address space, CPU seconds, file size, no core
     files), soft and hard, so nothing inside can raise them again;
  2. as root only: becomes the unprivileged uid/gid the config names (bubblewrap left it
     CAP_SETUID and CAP_SETGID for that alone; switching uid drops every capability);
  3. when the skill may use the network: listens on 127.0.0.1:<port> inside the sandbox
     and relays each connection to the CLI's proxy socket (the only way out of the
     sandbox's network namespace), then runs the command as a child and exits with its
     status; otherwise it simply execs the command.
Standard library only; ships inside the skills binary (scripts/gen_bundled.ts).
"""

import json
import os
import resource
import sys

config = json.loads(sys.argv[1])
command = sys.argv[2:]


def fail(message):
    sys.stderr.write("skills sandbox: %s\n" % message)
    sys.stderr.flush()
    os._exit(126)


def limit(name, value):
    if value is None:
        return
    kind = getattr(resource, name, None)
    if kind is None:
        return
    value = resource.RLIM_INFINITY if value < 0 else value
    try:
        resource.setrlimit(kind, (value, value))
    except (OSError, ValueError) as error:
        # A hard limit already below ours: keep the lower one, lower the soft one to it.
        try:
            soft, hard = resource.getrlimit(kind)
            if hard != resource.RLIM_INFINITY and (value == resource.RLIM_INFINITY or hard < value):
                resource.setrlimit(kind, (hard, hard))
                return
        except (OSError, ValueError):
            pass
        fail("cannot set %s: %s" % (name, error))


limits = config.get("limits", {})
limit("RLIMIT_NPROC", limits.get("processes"))
limit("RLIMIT_AS", limits.get("memory"))
limit("RLIMIT_CPU", limits.get("cpu"))
limit("RLIMIT_FSIZE", limits.get("file_size"))
limit("RLIMIT_NOFILE", limits.get("open_files"))
limit("RLIMIT_CORE", 0)

uid = config.get("uid")
if uid is not None:
    try:
        os.setgroups([])
        os.setgid(config["gid"])
        os.setuid(uid)
    except OSError as error:
        fail("cannot drop privileges: %s" % error)
    if os.getuid() == 0 or os.geteuid() == 0:
        fail("still root after dropping privileges")

# A root CLI's workspace is idmapped for the uid: only the uid may enter it.
cwd = config.get("cwd")
if cwd is not None:
    try:
        os.chdir(cwd)
    except OSError as error:
        fail("cannot enter the workspace %s: %s" % (cwd, error))

bridge = config.get("bridge")
if bridge is None:
    try:
        os.execvp(command[0], command)
    except OSError as error:
        fail("cannot start %s: %s" % (command[0], error))

import socket
import threading

listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    listener.bind(("127.0.0.1", bridge["port"]))
    listener.listen(64)
except OSError as error:
    fail("cannot listen on 127.0.0.1:%d: %s" % (bridge["port"], error))
listener.set_inheritable(False)

child = os.fork()
if child == 0:
    listener.close()
    try:
        os.execvp(command[0], command)
    except OSError as error:
        fail("cannot start %s: %s" % (command[0], error))


def pipe(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    for sock, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
        try:
            sock.shutdown(how)
        except OSError:
            pass


def relay(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(bridge["socket"])
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pipe, args=(upstream, client), daemon=True)
    back.start()
    pipe(client, upstream)
    back.join()
    client.close()
    upstream.close()


def serve():
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            continue
        threading.Thread(target=relay, args=(client,), daemon=True).start()


threading.Thread(target=serve, daemon=True).start()
while True:
    try:
        _, status = os.waitpid(child, 0)
        break
    except InterruptedError:
        continue
sys.stdout.flush()
if os.WIFSIGNALED(status):
    os._exit(128 + os.WTERMSIG(status))
os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
