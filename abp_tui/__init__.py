"""abp-tui: an offline adjudication workstation for AI-agent and LLM benchmark results.

Everything in this package except :mod:`abp_tui.tui` works without a terminal and never
imports Textual; the CLI and the TUI are two thin faces over the same core functions.
"""

import contextlib
import sys
import threading

__version__ = "0.2.0"


class _SqliteUtilsWithoutDataFrames:
    """Imports ``sqlite_utils.db`` without the NumPy and pandas it would load for nothing.

    When they are installed, ``sqlite_utils.db`` imports both at once, only to map their scalar
    types to column types for tables it creates from Python values. Our tables are created by
    SQL migrations, so that mapping is never used, while the two imports cost most of a second
    before the workstation's first screen (NumPy comes with SciPy, so it is always installed).
    They are refused to that one import, in the thread making it, and stay importable for
    everything else: another thread importing NumPy meanwhile (the workstation's figures, in a
    worker) gets it. A finder, not an import here, so that commands that never touch the
    database (``status`` reads it with the standard library) do not load sqlite-utils at all.
    """

    hiding_in: int | None = None
    """The thread importing ``sqlite_utils.db``, while it does."""

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> object:
        if name in _HIDDEN:
            if cls.hiding_in is not None and cls.hiding_in == threading.get_ident():
                raise ModuleNotFoundError(f"{name} is not imported by sqlite_utils", name=name)
            return None
        if name != "sqlite_utils.db":
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)  # type: ignore[arg-type]
        if spec is None or spec.loader is None:
            sys.meta_path.remove(cls)  # type: ignore[arg-type]
            return spec
        real = spec.loader

        class _Loader:
            def create_module(self, spec: object) -> object:
                return real.create_module(spec)  # type: ignore[arg-type]

            def exec_module(self, module: object) -> None:
                cls.hiding_in = threading.get_ident()
                try:
                    real.exec_module(module)  # type: ignore[arg-type]
                finally:
                    cls.hiding_in = None
                    with contextlib.suppress(ValueError):
                        sys.meta_path.remove(cls)  # type: ignore[arg-type]

        spec.loader = _Loader()  # type: ignore[assignment]
        return spec


_HIDDEN = frozenset({"numpy", "pandas"})


def _install() -> None:
    if "sqlite_utils.db" not in sys.modules:
        sys.meta_path.insert(0, _SqliteUtilsWithoutDataFrames)  # type: ignore[arg-type]


_install()
