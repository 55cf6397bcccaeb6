"""The files between a coordinator and a reviewer station: the study pack and the ratings file.

Their shapes, how they are hashed and signed, and how a file is read back: every field
validated, no NaN or Infinity anywhere, and a pack refused unless it
is one a station can open as it is (each item code once, each response key once, a pair with two
responses and a single item with one, a reviewer, a rubric with dimensions or none at all).

``sha256`` is the SHA-256 of the canonical JSON of everything else in a file: it detects a file
changed by accident or by someone who did not recompute it. A ratings file is also *signed*:
``signature`` is the HMAC-SHA256, under the reviewer key the coordinator issued with the pack
(:mod:`abp_tui.store.secrets`), of the canonical JSON of everything but ``sha256`` and
``signature``. Anyone can recompute a hash; only the holder of the pack can sign, and only the
coordinator, who kept the key, can check the signature. Nothing here touches a database.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field

from abp_tui.errors import InputError
from abp_tui.export.bundle import placed_when_done
from abp_tui.formats.base import check_input_file, loads_json, validate
from abp_tui.models import Judgment, Model, ResultState, Rubric
from abp_tui.text.canonical import canonical_json, sha256_text

PACK_FORMAT: Final = "abp-tui-reviewer-pack/v2"
RATINGS_FORMAT: Final = "abp-tui-ratings/v2"
_OLD_FORMATS: Final = {
    "abp-tui-reviewer-pack/v1": "a pack written before packs carried a signing key: ask the "
    "coordinator for a new pack",
    "abp-tui-ratings/v1": "a ratings file written before ratings were signed: open a new pack "
    "from the coordinator on the station and write the ratings again",
}
UNSIGNED: Final = ("sha256", "signature")
"""The fields a file's hash and signature do not cover (themselves)."""


class PackDesign(Model):
    study: str
    name: str
    version: int
    sha256: str


class PackTraceEvent(Model):
    seq: int
    kind: str
    tool: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    duration_ms: float | None = None


class PackResponse(Model):
    key: str
    text: str
    masked: int
    record_state: ResultState | None = None
    """The run's record state, as the runs of the study know it (refused otherwise)."""
    trace: list[PackTraceEvent] = Field(default_factory=list)


class PackTask(Model):
    id: str = Field(min_length=1)
    title: str = ""
    prompt: str = ""
    base_instruction: str = ""
    evidence: str = ""
    expected_behaviour: str = ""
    fatal_criteria: list[str] = Field(default_factory=list)
    risk_type: str = ""


class PackItem(Model):
    code: str
    kind: Literal["pair", "single"]
    order_index: int
    task: PackTask
    responses: list[PackResponse]


class StudyPack(Model):
    """The file a reviewer takes to an offline station."""

    format: Literal["abp-tui-reviewer-pack/v2"]
    design: PackDesign
    reviewer: str
    rubric: Rubric | None
    """The design's rubric; None for a preference-only design, which scores nothing."""
    items: list[PackItem]
    signing_key: str
    """The reviewer's key: the station signs its ratings file with it."""
    timing_rule: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The design's correction timing rule (seed 002): the station asks for minutes under it.
    Left out while None, so that a pack made before it keeps its hash."""
    sha256: str = ""
    """SHA-256 of the canonical JSON of everything else in the file."""


class RatedJudgment(Model):
    code: str
    revision: int = Field(ge=1)
    status: Literal["draft", "submitted"]
    judgment: Judgment
    """Keyed by position, as the reviewer saw it."""
    reason: str = ""
    seconds_spent: float = 0.0
    created_at: str


class RatingsFile(Model):
    """What a reviewer station sends back."""

    format: Literal["abp-tui-ratings/v2"]
    pack_sha256: str
    design: PackDesign
    reviewer: str
    judgments: list[RatedJudgment]
    sha256: str = ""
    signature: str = ""
    """HMAC-SHA256 (hex) of everything but ``sha256`` and ``signature``, under the pack's key."""


def _body(document: dict[str, Any]) -> str:
    return canonical_json({k: v for k, v in document.items() if k not in UNSIGNED})


def body_hash(document: dict[str, Any]) -> str:
    """The ``sha256`` a file's JSON document should carry."""
    return sha256_text(_body(document))


def signature(document: dict[str, Any], key: str) -> str:
    """The ``signature`` a ratings document should carry under ``key``."""
    return hmac.new(
        key.encode("utf-8"), _body(document).encode("utf-8"), hashlib.sha256
    ).hexdigest()


def signed_by(document: dict[str, Any], key: str) -> bool:
    """Whether the document's signature is the one ``key`` gives (compared in constant time)."""
    found = document.get("signature")
    return isinstance(found, str) and hmac.compare_digest(signature(document, key), found)


def write_atomic(path: Path, text: str) -> None:
    """Write a pack or ratings file whole or not at all; a place it cannot go (a folder, a
    pipe, a full disk) is refused in one line naming it, nothing left behind."""
    with placed_when_done(path, text.encode("utf-8"), "a pack or ratings file"):
        pass


def document_of(model: StudyPack | RatingsFile) -> dict[str, Any]:
    return model.model_dump(mode="json")


def _other_format(found: object, expected: str) -> str:
    """Why a file of another format is refused, and which file was meant (a pack and a
    ratings file are easily taken for each other)."""
    said = f"expected format {expected!r}"
    if found == PACK_FORMAT:
        return (
            f"{said}: this is a reviewer's pack, not their ratings; on the reviewer's station, "
            "once every item is submitted, `abp-tui pack ratings --out FILE` writes the ratings "
            "file to merge"
        )
    if found == RATINGS_FORMAT:
        return f"{said}: this is a station's ratings file, merged with `abp-tui merge FILE`"
    return said


def read_document(path: Path, expected: str) -> tuple[dict[str, Any], str]:
    """The JSON object of a pack or ratings file of format ``expected``, checked against its
    own ``sha256``, and the name errors give it. The reader refuses NaN, Infinity and whatever
    else no record can hold (:func:`abp_tui.formats.base.loads_json`)."""
    display = str(path)
    check_input_file(path, display)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    data = loads_json(raw, display)
    if not isinstance(data, dict):
        raise InputError(display, "expected a JSON object")
    found = data.get("format")
    if isinstance(found, str) and found in _OLD_FORMATS:
        raise InputError(display, f"{found}: {_OLD_FORMATS[found]} (refused)", None, "$.format")
    if found != expected:
        raise InputError(display, _other_format(found, expected), None, "$.format")
    if body_hash(data) != data.get("sha256"):
        raise InputError(
            display,
            "the content does not match its sha256: the file was changed "
            "after it was written (refused)",
            None,
            "$.sha256",
        )
    return data, display


def read_study_pack(path: Path) -> StudyPack:
    """A study pack, refused (InputError naming the field) unless a station can open it."""
    data, display = read_document(path, PACK_FORMAT)
    pack = validate(StudyPack, data, display)
    _check_pack(pack, display)
    return pack


def read_ratings(path: Path) -> RatingsFile:
    """A ratings file whose content matches its hash (its signature is the merge's to check:
    only the coordinator holds the key)."""
    return read_signed_ratings(path)[0]


def read_signed_ratings(path: Path) -> tuple[RatingsFile, dict[str, Any]]:
    """A ratings file as :func:`read_ratings` reads it, and the JSON document its signature
    covers (checked as read, not as re-encoded)."""
    data, display = read_document(path, RATINGS_FORMAT)
    return validate(RatingsFile, data, display), data


def _check_pack(pack: StudyPack, display: str) -> None:
    def refuse(message: str, where: str) -> None:
        raise InputError(display, f"{message} (refused; nothing was changed)", None, where)

    if not pack.reviewer.strip():
        refuse("the pack names no reviewer", "$.reviewer")
    if not pack.signing_key:
        refuse("the pack carries no signing key for its ratings", "$.signing_key")
    if pack.rubric is not None and not pack.rubric.dimensions:
        refuse(
            "a rubric with no dimensions (a preference-only pack carries no rubric at all)",
            "$.rubric.dimensions",
        )
    seen: set[str] = set()
    for i, item in enumerate(pack.items):
        where = f"$.items[{i}]"
        if item.code in seen:
            refuse(f"item code {item.code!r} appears twice; expected each item once", where)
        seen.add(item.code)
        keys = [r.key for r in item.responses]
        if len(set(keys)) != len(keys):
            refuse(f"item {item.code}: a response key appears twice", f"{where}.responses")
        expected = ["1", "2"] if item.kind == "pair" else ["1"]
        if sorted(keys) != expected:
            shown = " and ".join(expected)
            refuse(
                f"item {item.code}: a {item.kind} item has response{'s' * (len(expected) > 1)} "
                f"{shown}, not {', '.join(keys) or 'none'}",
                f"{where}.responses",
            )


def dumps(model: StudyPack | RatingsFile) -> str:
    return json.dumps(document_of(model), ensure_ascii=False, indent=1)
