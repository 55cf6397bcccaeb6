"""The command line keeps pandas and NumPy out of sqlite_utils' import (it tries both at import
time, for DataFrames and NumPy scalars abp-tui never inserts: most of a second of every start
once they are installed), and out of nothing else: both stay importable afterwards.

Each check runs in a fresh interpreter, since the test process has imported both long ago.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from abp_tui.store import connect

_AFTER_A_COMMAND = """
import importlib.util, json, sys
{before}
from abp_tui.cli import main
code = main(["--db", sys.argv[1], "study", "list"])
import sqlite_utils.db
state = {{
    "code": code,
    "store_imported": "sqlite_utils.db" in sys.modules,
    "pandas_loaded": "pandas" in sys.modules,
    "numpy_loaded": "numpy" in sys.modules,
    "sqlite_utils_pandas": sqlite_utils.db.pd is not None,
    "finders": [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path],
    "pandas_installed": importlib.util.find_spec("pandas") is not None,
}}
if state["pandas_installed"]:
    import pandas
    state["pandas_works"] = pandas.DataFrame({{"a": [1, 2]}})["a"].sum() == 3
    import numpy
    state["numpy_works"] = int(numpy.arange(3).sum()) == 3
print(json.dumps(state, default=bool))
"""


def _run(tmp_path: Path, before: str = "") -> dict[str, Any]:
    connect(tmp_path / "s.db").close()  # a database for the command to read (it makes none)
    done = subprocess.run(
        [sys.executable, "-c", _AFTER_A_COMMAND.format(before=before), str(tmp_path / "s.db")],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    state: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert state["code"] == 0
    assert state["store_imported"], "the command did not import the store: nothing was checked"
    return state


def test_a_command_imports_sqlite_utils_without_pandas_and_pandas_still_imports(
    tmp_path: Path,
) -> None:
    state = _run(tmp_path)
    assert not state["pandas_loaded"]
    assert not state["numpy_loaded"]
    assert not state["sqlite_utils_pandas"]
    assert not any("SqliteUtils" in f for f in state["finders"]), "the import hook stayed behind"
    if state["pandas_installed"]:
        assert state["pandas_works"]
        assert state["numpy_works"]


def test_pandas_imported_before_the_command_is_left_alone(tmp_path: Path) -> None:
    state = _run(
        tmp_path,
        before="import importlib; importlib.util.find_spec('pandas') and __import__('pandas')",
    )
    if state["pandas_installed"]:
        assert state["pandas_loaded"]
        assert state["sqlite_utils_pandas"]  # nothing hidden from a process that chose pandas
        assert state["pandas_works"]


_NUMPY_IN_ANOTHER_THREAD = """
import json, sys, threading
import abp_tui  # noqa: F401  (installs the import hook)

go, done = threading.Event(), threading.Event()
found = {}


def figures():
    go.wait(60)
    try:
        import numpy
        found["numpy"] = int(numpy.arange(3).sum())
    except ImportError as e:
        found["numpy"] = repr(e)
    done.set()


class PauseInsideTheStoreImport:
    # Holds the main thread inside sqlite_utils.db's import, in the body of a module it
    # imports: a finder is called under the interpreter's global import lock, so a pause there
    # would hold the other thread's import back until the wait ran out.

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "sqlite_utils.create_table_parser":  # imported by sqlite_utils.db alone
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        real = spec.loader

        class Paused:
            def create_module(self, spec):
                return real.create_module(spec)

            def exec_module(self, module):
                go.set()
                done.wait(60)
                real.exec_module(module)

        spec.loader = Paused()
        return spec


worker = threading.Thread(target=figures)
worker.start()
sys.meta_path.insert(1, PauseInsideTheStoreImport)
import sqlite_utils.db
worker.join()
print(json.dumps({"numpy": found.get("numpy"), "paused": go.is_set()}))
"""


def test_numpy_imported_by_another_thread_during_the_store_import_is_not_refused() -> None:
    """The workstation imports the store in one worker while another loads the statistics:
    hiding NumPy from sqlite-utils' import must not refuse it to the other thread (it once
    showed "import of numpy halted" after a submission)."""
    done = subprocess.run(
        [sys.executable, "-c", _NUMPY_IN_ANOTHER_THREAD],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout.splitlines()[-1])
    assert state["paused"], "the other thread never ran inside the store's import"
    assert state["numpy"] == 3
