"""The sandbox's init helper: the first program inside every bubblewrap sandbox skills starts.

Run as `python3 -I -S -B -c <this source> <config json> <command> [args...]`. It
  1. sets the resource limits (processes, address space, CPU seconds, file size, no core
     files), soft and hard, so nothing inside can raise them again;
  0. as root with a writable workspace only: mounts the workspace (and `--write` folders)
     idmapped for that uid, so the uid owns what root owns there and what it creates is
     stored as root's (bubblewrap left CAP_SYS_ADMIN for this alone). The clone is
     recursive, so guarded paths and masked files bound over the workspace stay as they were;
     pinned `.git` folders are idmapped too, so git works. Needs Linux 5.12+ and a filesystem
     that supports idmapped mounts; otherwise a warning, and the folder stays read-only for
     the uid;
  2. as root only: becomes the unprivileged uid/gid the config names (bubblewrap left it
     CAP_SETUID and CAP_SETGID for that; switching uid empties the permitted and effective
     capability sets, and the inheritable and ambient ones are emptied next), then enters
     the working directory (an idmapped workspace is the uid's alone);
  3. when the skill may use the network: listens on 127.0.0.1:<port> inside the sandbox
     and relays each connection to the CLI's proxy socket (the only way out of the
     sandbox's network namespace), then runs the command as a child and exits with its
     status; otherwise it simply execs the command;
  4. for a service (`skills run --background`): keeps the `--write` folders inside the
     workspace live over its overlay (bound aside before the overlay is mounted, bound back
     over the merged view), and relays every TCP port the service listens on at the sandbox's
     loopback through a Unix socket `<port>.sock` in the relay folder, which the CLI's
     supervisor serves on the host's 127.0.0.1 (nothing else of the network changes).
Standard library only; ships inside the skills binary (scripts/gen_bundled.ts).
"""

import os
import resource
import sys


def fail(message):
    sys.stderr.write("skills sandbox: %s\n" % message)
    sys.stderr.flush()
    os._exit(126)


def load_config(text):
    """The config, with the C scanner `json` itself uses: `import json` loads `re` and
    `enum` (~6 ms, a third of this helper's start). The CLI writes it with JSON.stringify."""
    try:
        import _json
    except ImportError:
        import json
        return json.loads(text)

    def constant(name):
        raise ValueError("not JSON: %s" % name)

    class Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = staticmethod(constant)
        memo = {}

    try:
        value, end = _json.make_scanner(Context())(text, 0)
    except (StopIteration, ValueError) as error:
        fail("bad config: %s" % error)
    if end != len(text) or not isinstance(value, dict):
        fail("bad config")
    return value


config = load_config(sys.argv[1])
command = sys.argv[2:]


def libc_calls():
    """`syscall`, `unshare`, `capset` and `prctl` of the C library, and the types the calls
    below take, from
    the `_ctypes` extension itself: the `ctypes` package around it builds every C type at
    import (~2 ms, a quarter of this helper's start); these few are all it needs."""
    import _ctypes

    class Long(_ctypes._SimpleCData):
        _type_ = "l"

    class UInt64(_ctypes._SimpleCData):
        _type_ = "Q"

    class Function(_ctypes.CFuncPtr):
        _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
        _restype_ = Long

    class UInt32(_ctypes._SimpleCData):
        _type_ = "I"

    class MountAttr(_ctypes.Structure):
        _fields_ = [(name, UInt64) for name in ("set", "clear", "propagation", "userns")]

    class CapHeader(_ctypes.Structure):
        _fields_ = [("version", UInt32), ("pid", UInt32)]

    class CapData(_ctypes.Structure):
        # _LINUX_CAPABILITY_VERSION_3: two of these (capabilities 0-31 and 32-63).
        _fields_ = [(name, UInt32) for name in ("effective", "permitted", "inheritable")]

    class Library:
        _handle = _ctypes.dlopen(None)

    return {
        "syscall": Function(("syscall", Library)),
        "unshare": Function(("unshare", Library)),
        "mount": Function(("mount", Library)),
        "umount2": Function(("umount2", Library)),
        "capset": Function(("capset", Library)),
        "prctl": Function(("prctl", Library)),
        "MountAttr": MountAttr,
        "CapHeader": CapHeader,
        "CapData": CapData * 2,
        "byref": _ctypes.byref,
        "sizeof": _ctypes.sizeof,
        "get_errno": _ctypes.get_errno,
    }


def user_namespace(c, uid):
    """A user namespace whose root is `uid` outside (the mapping of idmapped mounts): its
    holder is a child that has only unshared; the namespace's file outlives it once opened."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(done_w)
        os.write(ready_w, b"1" if c["unshare"](0x10000000) == 0 else b"0")  # CLONE_NEWUSER
        os.read(done_r, 1)
        os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError("cannot create a user namespace")
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (pid, name), "w") as handle:
                handle.write("0 %d 1\n" % uid)
        return os.open("/proc/%d/ns/user" % pid, os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.write(done_w, b"x")
        os.waitpid(pid, 0)


def checked(c, result, what):
    if result < 0:
        err = c["get_errno"]()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))
    return result


def clone_tree(c, source, target, userns):
    """open_tree(CLONE | RECURSIVE | CLOEXEC) of `source`, idmapped for `userns` when given,
    moved onto `target`."""
    syscall = c["syscall"]
    tree = checked(c, syscall(428, -100, source.encode(), 1 | 0x8000 | os.O_CLOEXEC), "open_tree")
    try:
        if userns is not None:
            attr = c["MountAttr"](0x00100000, 0, 0, userns)  # MOUNT_ATTR_IDMAP
            checked(c, syscall(442, tree, b"", 0x1000, c["byref"](attr), c["sizeof"](attr)),
                    "mount_setattr")
        checked(c, syscall(429, tree, b"", -100, target.encode(), 0x4), "move_mount")
    finally:
        os.close(tree)


def idmap_folders(folders, uid):
    """Mounts each folder idmapped (on-disk root <-> `uid`) over itself, pins included."""
    c = libc_calls()
    userns = user_namespace(c, uid)
    for folder in folders:
        for path in [folder["path"]] + folder.get("pins", []):
            clone_tree(c, path, path, userns)


MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 32, 4096, 16384
MNT_DETACH = 2
LOWER = "/tmp/.skills-lower"


def overlay_workspace(spec, uid):
    """The workspace made copy-on-write: the user's folder (bound read-only by bubblewrap) the
    lower layer, the run folder's upper and work folders (bound at spec["layer"]) the others.
    The kernel's overlay as root (the lower layer idmapped for the uid, so that it may write
    what root owns, as it could before); fuse-overlayfs otherwise, in a mount namespace of its
    own. Raises OSError when it cannot be had: the workspace then stays read-only."""
    c = libc_calls()
    target = spec["dir"]
    upper, work = spec["layer"] + "/upper", spec["layer"] + "/work"
    if spec["engine"] == "overlay":
        os.mkdir(LOWER, 0o700)
        clone_tree(c, target, LOWER, None if uid is None else user_namespace(c, uid))
        options = "lowerdir=%s,upperdir=%s,workdir=%s,redirect_dir=off,index=off,metacopy=off" % (
            LOWER, upper, work)
        checked(c, c["mount"](b"overlay", target.encode(), b"overlay", MS_NOSUID | MS_NODEV,
                              options.encode()), "mount overlay")
        # The layers out of the script's sight: the overlay holds its own references.
        c["umount2"](LOWER.encode(), MNT_DETACH)
        os.rmdir(LOWER)
        c["umount2"](spec["layer"].encode(), MNT_DETACH)
        return
    checked(c, c["unshare"](0x00020000), "unshare the mount namespace")  # CLONE_NEWNS
    options = "lowerdir=%s,upperdir=%s,workdir=%s" % (target, upper, work)
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(spec["fuse"], [spec["fuse"], "-o", options, target])
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        raise OSError("fuse-overlayfs failed (status %d)" % status)


def mask_secrets(masks):
    """Secret files read as empty, over the workspace as the script sees it (after the
    overlay, so that they hide in the merged view): /dev/null bound read-only onto each. A
    mask that cannot be made ends the run: never a secret shown."""
    if not masks:
        return
    c = libc_calls()
    for path in masks:
        try:
            checked(c, c["mount"](b"/dev/null", path.encode(), None, MS_BIND, None), "bind")
            checked(c, c["mount"](b"none", path.encode(), None,
                                  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
                    "remount read-only")
        except OSError as error:
            fail("cannot mask %s: %s" % (path, error))


def hide_folders(folders):
    """Folders bubblewrap hid inside the workspace (other skills' folders) hidden again in the
    merged view: an empty read-only tmpfs over each. A folder that cannot be hidden ends the
    run."""
    if not folders:
        return
    c = libc_calls()
    for path in folders:
        try:
            checked(c, c["mount"](b"tmpfs", path.encode(), b"tmpfs",
                                  MS_RDONLY | MS_NOSUID | MS_NODEV, b"size=4k,mode=755"), "tmpfs")
        except OSError as error:
            fail("cannot hide %s: %s" % (path, error))


def keep_shown(paths):
    """Files bubblewrap shows sanitized in the workspace (a git config without credentials):
    before the kernel's overlay hides every mount below it, each view is bound aside, onto a
    file of this sandbox's private /tmp, to be shown again over the merged view."""
    c = libc_calls()
    kept = []
    for index, path in enumerate(paths):
        aside = "/tmp/.skills-shown-%d" % index
        try:
            os.close(os.open(aside, os.O_CREAT | os.O_WRONLY, 0o400))
            checked(c, c["mount"](path.encode(), aside.encode(), None, MS_BIND, None), "bind")
        except OSError as error:
            fail("cannot keep the sanitized %s: %s" % (path, error))
        kept.append((aside, path))
    return kept


def show_again(kept):
    """The sanitized views kept aside, bound read-only over the merged view. One that cannot
    be shown ends the run: never the original shown."""
    c = libc_calls()
    for aside, path in kept:
        try:
            checked(c, c["mount"](aside.encode(), path.encode(), None, MS_BIND, None), "bind")
            checked(c, c["mount"](b"none", path.encode(), None,
                                  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
                    "remount read-only")
        except OSError as error:
            fail("cannot show the sanitized %s: %s" % (path, error))


def keep_live(paths, uid):
    """A service's `--write` folders inside the workspace, bound aside before the overlay
    hides them (idmapped for a root CLI's uid), to be bound back over the merged view: the
    service and the agent see each other's files there while it runs."""
    c = libc_calls()
    userns = None if uid is None else user_namespace(c, uid)
    kept = []
    for index, path in enumerate(paths):
        aside = "/tmp/.skills-live-%d" % index
        try:
            os.mkdir(aside, 0o700)
            if userns is None:
                checked(c, c["mount"](path.encode(), aside.encode(), None, MS_BIND | MS_REC, None),
                        "bind")
            else:
                clone_tree(c, path, aside, userns)
        except OSError as error:
            fail("cannot keep %s live: %s" % (path, error))
        kept.append((aside, path))
    return kept


def bind_live(kept):
    c = libc_calls()
    for aside, path in kept:
        try:
            checked(c, c["mount"](aside.encode(), path.encode(), None, MS_BIND | MS_REC, None),
                    "bind")
        except OSError as error:
            fail("cannot keep %s live: %s" % (path, error))


overlay = config.get("overlay")
if overlay:
    kept = keep_shown(overlay.get("shown", []))
    if config.get("live") and overlay["engine"] != "overlay":
        # In bubblewrap's user namespace, binds are made in a mount namespace of init's own
        # (as fuse-overlayfs's mount is: overlay_workspace unshares again, harmlessly).
        checked(libc_calls(), libc_calls()["unshare"](0x00020000), "unshare the mount namespace")
    live = keep_live(config.get("live") or [], config.get("uid"))
    try:
        overlay_workspace(overlay, config.get("uid"))
    except OSError as error:
        sys.stderr.write(
            "warning: the workspace is read-only for this run: cannot mount its overlay (%s)\n"
            % error
        )
        # An engine that got as far as its work folder leaves `work/work`: gone, the CLI
        # reads an empty work folder as "never mounted" and says so in the receipt.
        try:
            os.rmdir(overlay["layer"] + "/work/work")
        except OSError:
            pass
    bind_live(live)
    hide_folders(overlay.get("hide", []))
    mask_secrets(overlay.get("masks", []))
    show_again(kept)


idmap = config.get("idmap")
if idmap:
    try:
        idmap_folders(idmap, config["uid"])
    except OSError as error:
        sys.stderr.write(
            "warning: the workspace stays read-only for scripts: no idmapped mount (%s)\n" % error
        )


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
if uid is not None or overlay:
    # The uid switch emptied the permitted and effective sets; the inheritable set bubblewrap
    # gave (CAP_SETUID, CAP_SETGID, CAP_SYS_ADMIN) and the ambient one are emptied here, as
    # setpriv --inh-caps=-all and idmap.pl do: the script starts with no capability at all.
    c = libc_calls()
    if c["capset"](c["byref"](c["CapHeader"](0x20080522, 0)), c["byref"](c["CapData"]())) != 0:
        fail("cannot clear the inheritable capabilities: %s" % os.strerror(c["get_errno"]()))
    if c["prctl"](47, 4, 0, 0, 0) != 0:  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
        fail("cannot clear the ambient capabilities: %s" % os.strerror(c["get_errno"]()))

# A root CLI's workspace is idmapped for the uid: only the uid may enter it.
cwd = config.get("cwd")
if cwd is not None:
    try:
        os.chdir(cwd)
        os.environ["PWD"] = cwd  # bubblewrap set it to where it started
    except OSError as error:
        fail("cannot enter the workspace %s: %s" % (cwd, error))

bridge = config.get("bridge")
relay = config.get("relay")
if bridge is None and relay is None:
    try:
        os.execvp(command[0], command)
    except OSError as error:
        fail("cannot start %s: %s" % (command[0], error))

import socket
import threading

listener = None
if bridge is not None:
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
    if listener is not None:
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


def relay_to(client, family, address):
    upstream = socket.socket(family, socket.SOCK_STREAM)
    try:
        upstream.connect(address)
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


def serve(server, family, address):
    while True:
        try:
            client, _ = server.accept()
        except OSError:
            if server.fileno() == -1:
                return  # closed: the port is no longer listened on
            continue
        threading.Thread(target=relay_to, args=(client, family, address), daemon=True).start()


def loopback_listeners():
    """{port: (family, address)} of the TCP sockets listening on the sandbox's loopback (or on
    every address, which inside the sandbox's network is the loopback alone), read from the
    kernel's tables: the service's own choice of port, found without asking it."""
    found = {}
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            with open(table) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 4 or fields[3] != "0A":  # TCP_LISTEN
                continue
            address, _, port_hex = fields[1].partition(":")
            port = int(port_hex, 16)
            if bridge is not None and port == bridge["port"]:
                continue
            if not v6:
                ip = ".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0))
                if ip == "0.0.0.0":
                    ip = "127.0.0.1"
                if ip.startswith("127."):
                    found.setdefault(port, (socket.AF_INET, (ip, port)))
            elif address in ("0" * 32, "0" * 24 + "01000000"):
                found.setdefault(port, (socket.AF_INET6, ("::1", port)))
    return found


def watch_ports():
    """Each loopback port the service listens on relayed through `<relay dir>/<port>.sock`
    (at most `relay["limit"]`), and its socket removed once the port closes."""
    served = {}
    while True:
        try:
            listening = loopback_listeners()
        except Exception:
            listening = {}
        for port in list(served):
            if port not in listening:
                server = served.pop(port)
                server.close()
                try:
                    os.unlink(os.path.join(relay["dir"], "%d.sock" % port))
                except OSError:
                    pass
        for port, (family, address) in sorted(listening.items()):
            if port in served or len(served) >= relay["limit"]:
                continue
            path = os.path.join(relay["dir"], "%d.sock" % port)
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                try:
                    os.unlink(path)
                except OSError:
                    pass
                server.bind(path)
                server.listen(64)
            except OSError:
                server.close()
                continue
            server.set_inheritable(False)
            served[port] = server
            threading.Thread(target=serve, args=(server, family, address), daemon=True).start()
        threading.Event().wait(0.2)


if listener is not None:
    threading.Thread(
        target=serve, args=(listener, socket.AF_UNIX, bridge["socket"]), daemon=True
    ).start()
if relay is not None:
    threading.Thread(target=watch_ports, daemon=True).start()
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
