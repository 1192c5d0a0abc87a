"""The parent watch, a sitecustomize: written by skills into $SKILLS_HOME/.cache/core/ and put
first on PYTHONPATH for every Python process it starts (src/runtime/exec/parent_watch.ts). Ends
this process group once the skills process that started it is gone, puts the user
site-packages back on sys.path without running its `.pth` files' code (skills sets
PYTHONNOUSERSITE), then runs the sitecustomize this one shadows if it lies in a folder this
process cannot write (one a script could have planted never runs; nor does a writable
usercustomize).
"""

import os
import sys


def _skills_parent_watch():
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.environ.pop("SKILLS_PARENT_PID", "")
    rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and os.path.abspath(p) != here]
    if rest:
        os.environ["PYTHONPATH"] = os.pathsep.join(rest)
    else:
        os.environ.pop("PYTHONPATH", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    if not parent.isdigit() or not hasattr(os, "killpg"):
        return
    # _thread, time and SIGKILL's number rather than threading and signal: every script
    # pays for these imports.
    import _thread
    import time
    pid = int(parent)
    # Only a group of its own, as the sandbox makes (setsid), is ever killed: never the
    # group of a shell job or of the parent itself.
    if os.getsid(0) != os.getpgrp():
        return
    try:
        if os.getpgid(pid) == os.getpgrp():
            return
    except OSError:
        pass

    def identity():
        # (state, start time) on Linux, so a zombie or a reused pid counts as gone.
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            return (fields[0], fields[19])
        except (OSError, IndexError):
            return None

    first = identity()

    def gone():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        now = identity()
        return first is not None and (now is None or now[0] in (b"Z", b"X") or now[1] != first[1])

    def watch():
        while not gone():
            time.sleep(0.2)
        os.killpg(os.getpgrp(), 9)  # SIGKILL

    _thread.start_new_thread(watch, ())


def _skills_user_site():
    # skills starts Python with PYTHONNOUSERSITE=1, so site processed no user site-packages:
    # a `.pth` file there is code run at every start, and one script could plant it for the
    # next. The folder is put back where site puts it (before the system's site-packages),
    # with the folders its `.pth` files name, but never a `.pth` file's `import` lines; and
    # no usercustomize is imported. Child processes get the variable no more.
    if os.environ.pop("PYTHONNOUSERSITE", None) != "1":
        return
    import site
    # Where site would not have used it either: a set-uid start, a virtual environment
    # without the system's site-packages (uv's script environments).
    if hasattr(os, "geteuid") and (os.geteuid() != os.getuid() or os.getegid() != os.getgid()):
        return
    if sys.prefix != sys.base_prefix:
        try:
            with open(os.path.join(sys.prefix, "pyvenv.cfg"), encoding="utf-8") as f:
                config = f.read().lower()
        except OSError:
            return
        if "include-system-site-packages = true" not in config.replace("\t", " "):
            return
    try:
        user = site.getusersitepackages()
    except Exception:
        return
    if not user or not os.path.isdir(user) or user in sys.path:
        return
    added = [user]
    try:
        names = sorted(n for n in os.listdir(user) if n.endswith(".pth"))
    except OSError:
        names = []
    for name in names:
        try:
            with open(os.path.join(user, name), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            folder = os.path.abspath(os.path.join(user, line))
            if os.path.isdir(folder) and folder not in sys.path and folder not in added:
                added.append(folder)
    system = set(p for p in getattr(site, "getsitepackages", lambda: [])())
    at = next((i for i, p in enumerate(sys.path) if p in system), len(sys.path))
    sys.path[at:at] = added


def _skills_writable(path):
    try:
        return os.access(path or os.curdir, os.W_OK)
    except (OSError, ValueError):
        return True


def _skills_chain():
    # Only from folders this process cannot write: a sitecustomize (or usercustomize) a
    # script planted where it can write (the user site, a writable PYTHONPATH entry: all
    # of them in policy mode) must not run in the next script. Inside the sandbox the
    # system's own sitecustomize lies on a read-only mount and still runs.
    # importlib.machinery's PathFinder and importlib.util's module_from_spec are these
    # objects of the import system, loaded in every interpreter; importing the two modules
    # (importlib.util brings contextlib, collections, functools and types) cost every Python
    # start ~4 ms.
    finder = getattr(sys.modules.get("_frozen_importlib_external"), "PathFinder", None)
    module_from_spec = getattr(sys.modules.get("_frozen_importlib"), "module_from_spec", None)
    if finder is None or module_from_spec is None:
        from importlib.machinery import PathFinder as finder
        from importlib.util import module_from_spec
    trusted = [p for p in sys.path if not _skills_writable(p)]
    spec = finder.find_spec("sitecustomize", trusted)
    if spec is not None and spec.loader is not None:
        module = module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)
    user = finder.find_spec("usercustomize", sys.path)
    if user is not None and _skills_writable(os.path.dirname(user.origin or "")):
        # site imports usercustomize next; an empty module in its place ends that import.
        sys.modules["usercustomize"] = type(sys)("usercustomize")


_skills_parent_watch()
_skills_user_site()
_skills_chain()
