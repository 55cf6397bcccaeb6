"""Who is signed in, and what their role allows: the identity of a team session.

On a shared server each person's SSH key runs ``abp-tui --db DB session NAME`` (a forced command
written by :mod:`abp_tui.services.team`); the session signs NAME in with the role the team gives
them (:func:`sign_in`), for the whole process, before anything else runs. From then on the core
asks here wherever a role matters, whatever face reached it:

- unblinding (:func:`abp_tui.services.results_report.unblind`), every export
  (:mod:`abp_tui.services.publishing`) and creating study designs
  (:func:`abp_tui.services.designing.create_design`): the coordinator's;
- adjudication (:func:`abp_tui.services.adjudicating.adjudication_refused`): the coordinator's
  and the adjudicators';
- the coordinator's figures (:func:`abp_tui.services.coordinator_identity.note_view`): a
  reviewer sees them as anyone does today (their pending items held back, the results and
  exports refused while they have items to judge), but never a look that would make them the
  study's coordinator (while they could still enrol in one of its open designs): that is for
  the coordinator to do.

Nobody signed in (a laptop, an offline station, every command run by the account that owns the
database): nothing here refuses anything, and who looks is ``--reviewer`` or the login name, as
before. Signed in, the session's name is who acts and who looks, whatever ``--reviewer`` says
(:func:`signed_in`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

from abp_tui.errors import AbpError

Role = Literal["reviewer", "adjudicator", "coordinator"]
ROLES: Final[tuple[Role, ...]] = ("reviewer", "adjudicator", "coordinator")

Capability = Literal["adjudicate", "unblind", "export", "design", "import", "coordinate"]
ALLOWED: Final[dict[str, frozenset[Capability]]] = {
    "reviewer": frozenset(),
    "adjudicator": frozenset({"adjudicate", "coordinate"}),
    "coordinator": frozenset({"adjudicate", "unblind", "export", "design", "import", "coordinate"}),
}
"""What each role may do beyond judging its own queue. ``coordinate``: look at a study's figures
even when the look makes them its coordinator (they could still enrol in an open design)."""

DOING: Final[dict[Capability, str]] = {
    "adjudicate": "adjudicate",
    "unblind": "unblind a study",
    "export": "export judgments or results",
    "design": "create study designs",
    "import": "import run records (files on the server)",
    "coordinate": "see the coordinator's figures",
}


class RoleRefused(AbpError):
    """The person signed in may not do this in their role."""


@dataclass(frozen=True)
class Member:
    """The person a session is signed in as."""

    name: str
    role: Role


_signed_in: Member | None = None


def sign_in(name: str, role: str) -> Member:
    """Sign ``name`` in with ``role`` for the rest of the process (a session)."""
    global _signed_in
    if role not in ROLES:
        raise AbpError(f"unknown role {role!r}: expected one of {', '.join(ROLES)}")
    _signed_in = Member(name, role)
    return _signed_in


def sign_out() -> None:
    global _signed_in
    _signed_in = None


@contextlib.contextmanager
def session(name: str, role: str) -> Iterator[Member]:
    """Signed in as ``name`` with ``role`` inside the block, signed out after it."""
    member = sign_in(name, role)
    try:
        yield member
    finally:
        sign_out()


def signed_in() -> Member | None:
    """Who the session is signed in as; None outside a session."""
    return _signed_in


def may(capability: Capability) -> bool:
    """Whether whoever is signed in may do ``capability`` (anyone may, outside a session)."""
    return _signed_in is None or capability in ALLOWED[_signed_in.role]


def refusal(capability: Capability, what: str = "") -> RoleRefused | None:
    """Why the person signed in may not do ``capability`` (the error, one line), or None."""
    if may(capability):
        return None
    assert _signed_in is not None
    allowed = [role for role in ROLES if capability in ALLOWED[role]]
    article = "an" if _signed_in.role[0] in "aeiou" else "a"
    return RoleRefused(
        f"{_signed_in.name} is {article} {_signed_in.role} of this team: they cannot "
        f"{what or DOING[capability]} (that is for {' or '.join(r + 's' for r in allowed)})"
    )


def require(capability: Capability, what: str = "") -> None:
    """RoleRefused when the person signed in may not do ``capability``."""
    refused = refusal(capability, what)
    if refused is not None:
        raise refused


__all__ = [
    "ALLOWED",
    "ROLES",
    "Capability",
    "Member",
    "Role",
    "RoleRefused",
    "may",
    "refusal",
    "require",
    "session",
    "sign_in",
    "sign_out",
    "signed_in",
]
