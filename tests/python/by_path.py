"""Importing a Python file by its path, for the tests of files that no package holds: a
skill's folder name has a dash in it, and the toolset host is a lone file under src/."""

import importlib.util


def load_by_path(module_name, path):
    """The module that `path` holds, run once under `module_name` (not put in sys.modules)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
