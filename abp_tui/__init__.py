"""abp-tui: an offline adjudication workstation for AI-agent and LLM benchmark results.

Everything in this package except :mod:`abp_tui.tui` works without a terminal and never
imports Textual; the CLI and the TUI are two thin faces over the same core functions.
"""

__version__ = "0.1.0"


class _SqliteUtilsWithoutDataFrames:
    """Imports ``sqlite_utils.db`` without the NumPy and pandas it would load for nothing.

    When they are installed, ``sqlite_utils.db`` imports both at once, only to map their scalar
    types to column types for tables it creates from Python values. Our tables are created by
    SQL migrations, so that mapping is never used, while the two imports cost most of a second
    before the workstation's first screen (NumPy comes with SciPy, so it is always installed).
    They are hidden for the length of that one import and stay importable for everything else.
    A finder, not an import here, so that commands that never touch the database (``status``
    reads it with the standard library) do not load sqlite-utils at all.
    """

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> object:
        import sys

        if name != "sqlite_utils.db":
            return None
        sys.meta_path.remove(cls)  # type: ignore[arg-type]
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)  # type: ignore[arg-type]
        if spec is None or spec.loader is None:
            return spec
        real = spec.loader

        class _Loader:
            def create_module(self, spec: object) -> object:
                return real.create_module(spec)  # type: ignore[arg-type]

            def exec_module(self, module: object) -> None:
                hidden = [n for n in ("numpy", "pandas") if n not in sys.modules]
                for n in hidden:
                    sys.modules[n] = None  # type: ignore[assignment]  # `import n` fails
                try:
                    real.exec_module(module)  # type: ignore[arg-type]
                finally:
                    for n in hidden:
                        if n in sys.modules and sys.modules[n] is None:
                            del sys.modules[n]

        spec.loader = _Loader()  # type: ignore[assignment]
        return spec


def _install() -> None:
    import sys

    if "sqlite_utils.db" not in sys.modules:
        sys.meta_path.insert(0, _SqliteUtilsWithoutDataFrames)  # type: ignore[arg-type]


_install()
