# Started by a root CLI before bubblewrap when the workspace is writable (launch.ts):
# `python3 -I -S -B -c <this> <uid> <folder>… -- <bwrap> <args…>`.
#
# As root the sandbox runs scripts as an unprivileged uid of their own (root ignores the
# process limit, and root-only files stay unreadable). That uid may not write the user's
# root-owned folder. So this helper, in a mount namespace of its own (the host's mounts
# are untouched), replaces the workspace with an idmapped mount of it: through it the
# sandbox's uid owns what root owns, and what it creates is stored as root's. Nothing
# else changes ownership: the rest of the filesystem is what bubblewrap binds as before.
# Needs Linux 5.12+ and a filesystem that supports idmapped mounts; otherwise it says so
# on stderr and starts bubblewrap anyway (the workspace then stays read-only for scripts).
import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
OPEN_TREE_CLONE = 1
MOUNT_ATTR_IDMAP = 0x00100000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def checked(result, what):
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def userns_mapping(uid):
    """A user namespace whose root is `uid` outside: the idmap of the mount."""
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(done_w)
        made = libc.unshare(CLONE_NEWUSER) == 0
        os.write(ready_w, b"1" if made else b"0")
        os.read(done_r, 1)
        os._exit(0)
    os.close(ready_w)
    os.close(done_r)
    try:
        if os.read(ready_r, 1) != b"1":
            raise OSError("cannot create a user namespace")
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w") as handle:
                handle.write(f"0 {uid} 1\n")
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    finally:
        os.write(done_w, b"x")
        os.waitpid(pid, 0)


def idmap(folders, uid):
    userns = userns_mapping(uid)
    checked(libc.unshare(CLONE_NEWNS), "unshare")
    checked(libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None), "mount")
    for folder in folders:
        idmap_one(folder, userns)


def idmap_one(folder, userns):
    path = folder.encode()
    tree = checked(
        libc.syscall(SYS_OPEN_TREE, AT_FDCWD, path, OPEN_TREE_CLONE | os.O_CLOEXEC), "open_tree"
    )
    attr = MountAttr(MOUNT_ATTR_IDMAP, 0, 0, userns)
    checked(
        libc.syscall(
            SYS_MOUNT_SETATTR, tree, b"", AT_EMPTY_PATH, ctypes.byref(attr), ctypes.sizeof(attr)
        ),
        "mount_setattr",
    )
    checked(
        libc.syscall(SYS_MOVE_MOUNT, tree, b"", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH),
        "move_mount",
    )


def main():
    if "--" not in sys.argv[2:]:
        sys.exit("usage: idmap <uid> <folder>… -- <command…>")
    split = sys.argv.index("--", 2)
    uid, folders, command = int(sys.argv[1]), sys.argv[2:split], sys.argv[split + 1 :]
    try:
        idmap(folders, uid)
    except OSError as error:
        sys.stderr.write(
            f"warning: the workspace stays read-only for scripts: no idmapped mount ({error})\n"
        )
    os.execv(command[0], command)


main()
