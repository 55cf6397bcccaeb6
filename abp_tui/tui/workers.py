"""How the workstation runs blocking work: in a worker thread, with one error path.

Screens decorate their blocking methods with :func:`background` (or call
:func:`run_in_background`). The work posts what it found as a message (:mod:`abp_tui.tui.messages`).
If it raises instead, nothing is lost and nothing crashes: the exception becomes a
:class:`~abp_tui.tui.messages.WorkerFailed` posted to the screen that started the work (which
bubbles on to the app, whose handler shows it). An expected failure (the store refused a read
or a write, a file could not be read) is reported as such, saying whether trying again may
help; anything else is a bug, reported as an internal error with its traceback in the log, and
re-raised when ``ABP_TUI_DEBUG=1`` so a developer sees it crash. A cancelled worker (a newer
request replaced it) reports nothing.
"""

from __future__ import annotations

import os
import sqlite3
import traceback
from collections.abc import Callable
from functools import partial, wraps
from typing import Concatenate, ParamSpec, TypeVar

from textual.dom import DOMNode
from textual.worker import Worker, get_current_worker

from abp_tui.errors import AbpError, StoreError
from abp_tui.tui.messages import WorkerFailed

EXPECTED_ERRORS: tuple[type[Exception], ...] = (AbpError, sqlite3.Error, OSError)
"""Failures that are not bugs: the store or the file system said no."""
RETRYABLE_ERRORS: tuple[type[Exception], ...] = (StoreError, sqlite3.Error, OSError)
"""Of those, the ones a moment may cure: the database busy, read-only or full, a disk error (a
refusal of the work itself, say an incomplete judgment, is not tried again)."""

P = ParamSpec("P")
NodeT = TypeVar("NodeT", bound=DOMNode)


def _debugging() -> bool:
    return os.environ.get("ABP_TUI_DEBUG", "") not in ("", "0")


def run_in_background(
    node: DOMNode,
    job: Callable[[], None],
    *,
    group: str,
    description: str,
    exclusive: bool = False,
) -> Worker[None]:
    """Run ``job`` in a worker thread owned by ``node``; a failure becomes ``WorkerFailed``.

    The failure is posted to ``node`` while it is mounted, else to the app (a screen that has
    closed still has its failure shown).
    """
    app = node.app

    def guarded() -> None:
        try:
            job()
        except Exception as exc:
            if get_current_worker().is_cancelled:
                return
            internal = not isinstance(exc, EXPECTED_ERRORS)
            reason = f"{type(exc).__name__}: {exc}" if internal else str(exc)
            target = node if node.is_attached else app
            retryable = isinstance(exc, RETRYABLE_ERRORS)
            target.post_message(
                WorkerFailed(group, description, reason, internal=internal, retryable=retryable)
            )
            if internal:
                app.log.error(traceback.format_exc())
                if _debugging():
                    raise

    return node.run_worker(
        guarded,
        name=group,
        group=group,
        description=description,
        exclusive=exclusive,
        thread=True,
    )


def background(
    *, group: str, description: str, exclusive: bool = False
) -> Callable[
    [Callable[Concatenate[NodeT, P], None]], Callable[Concatenate[NodeT, P], Worker[None]]
]:
    """Decorate a method of a widget or screen: calling it runs it in a worker thread.

    ``exclusive`` cancels the group's earlier workers (a thread cannot be stopped, but a
    cancelled worker's result and failure are never reported).
    """

    def decorator(
        method: Callable[Concatenate[NodeT, P], None],
    ) -> Callable[Concatenate[NodeT, P], Worker[None]]:
        @wraps(method)
        def start(node: NodeT, /, *args: P.args, **kwargs: P.kwargs) -> Worker[None]:
            return run_in_background(
                node,
                partial(method, node, *args, **kwargs),
                group=group,
                description=description,
                exclusive=exclusive,
            )

        return start

    return decorator
