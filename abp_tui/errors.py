"""Named errors that reach the user as one clear message (never a traceback).

An :class:`InputError` names the file, the line or JSON path, the field and what was expected.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass


class AbpError(Exception):
    """Base of every error the CLI reports as a message with a non-zero exit status."""


ALREADY_SUBMITTED = "was already submitted"
"""How a refusal says the item was submitted before this change (by the same reviewer, from
another session perhaps): the change is then a revised submission, with a reason."""


@dataclass(eq=False)
class InputError(AbpError):
    """A problem with one input file: where it is and what was expected there."""

    file: str
    message: str
    line: int | None = None
    path: str | None = None
    """JSON path within the document or line, e.g. ``$.fixtures[3].task``."""
    whole_file: bool = False
    """The file as a whole cannot be read (a JSON document that does not parse): skipping
    invalid records cannot help, only fixing or re-exporting the file can."""

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.path:
            where += f": {self.path}"
        return f"{where}: {self.message}"


class ImportFailed(AbpError):
    """An import was refused; nothing was written. Carries the errors found (the first ones,
    when there were many: ``omitted`` counts the rest). ``skipping``: the import already skipped
    invalid records (``--skip-invalid``), so these are files that cannot be read at all."""

    def __init__(self, errors: list[InputError], omitted: int = 0, skipping: bool = False) -> None:
        self.errors = errors
        self.omitted = omitted
        self.skipping = skipping
        total = len(errors) + omitted
        first = str(errors[0]) if errors else "import failed"
        more = f" (and {total - 1} more)" if total > 1 else ""
        super().__init__(first + more)


class NotReady(AbpError):
    """A submission that is not complete; ``problems`` says what is missing."""

    def __init__(self, missing: list[str]) -> None:
        self.problems = missing
        super().__init__("cannot submit yet: " + "; ".join(missing))


class StoreError(AbpError):
    """The database could not be opened or is not an abp-tui database."""


class WriteError(AbpError):
    """A file could not be written (a full disk, read-only media, no permission); nothing was
    left half-written and nothing was recorded."""

    def __init__(self, path: object, exc: OSError) -> None:
        self.path = str(path)
        reason = exc.strerror or type(exc).__name__
        super().__init__(f"{path}: cannot write it ({reason}); nothing was written")


@contextlib.contextmanager
def writing(path: object) -> Iterator[None]:
    """What the disk does to writing ``path`` (OSError) becomes its one-line WriteError."""
    try:
        yield
    except OSError as exc:
        raise WriteError(path, exc) from None
