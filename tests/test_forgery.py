"""Forged ratings files: each attack a hostile reviewer or courier could make is refused at
merge, naming the file and the field, with nothing stored; a genuine file still merges.

The hash of a ratings file covers its content only: anyone can edit and re-hash it. So each pack
carries a key the coordinator issued (and kept), and the station signs its ratings with it. A
forger without the key is refused by the signature; a reviewer, who holds their own pack's key,
can sign anything, so every revision is also checked as the station's own store would have
checked it."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.errors import AbpError, InputError
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.station_files import body_hash, signature
from abp_tui.services.stations import merge_ratings, open_pack, write_ratings, write_study_pack
from abp_tui.store import connect
from tests.factories import AFP_DIMS, Cli, afp_judgment, two_reviewer_design

Document = dict[str, Any]


def _count(db: sqlite_utils.Database) -> int:
    return int(db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])


class Setting:
    """The coordinator's database, packs for reviewers a and b, and a's station with a draft
    and a submission of its first item and a submission of its second."""

    def __init__(self, tmp_path: Path, db: sqlite_utils.Database) -> None:
        self.tmp_path = tmp_path
        self.db = db
        self.pk = two_reviewer_design(tmp_path, db)[0]
        self.packs = {r: tmp_path / f"{r}.pack.json" for r in ("a", "b")}
        for reviewer, path in self.packs.items():
            write_study_pack(db, self.pk, reviewer, path)
        self.station = connect(tmp_path / "a.db")
        session = ReviewSession(self.station, open_pack(self.station, self.packs["a"]), "a")
        self.codes = [r.code for r in session.queue()]
        session.save(self.codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 5)
        session.save(self.codes[0], afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 9, submit=True)
        session.save(self.codes[1], afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), 7, submit=True)
        self.ratings = tmp_path / "a.ratings.json"
        write_ratings(self.station, self.ratings)

    def key(self, reviewer: str = "a") -> str:
        return str(json.loads(self.packs[reviewer].read_text("utf-8"))["signing_key"])

    def forged(self, name: str, change: Callable[[Document], None], key: str | None = "a") -> Path:
        """The ratings file changed by ``change`` and re-hashed; re-signed with reviewer
        ``key``'s pack key (None: not re-signed, as a forger without the pack would leave it)."""
        document = json.loads(self.ratings.read_text("utf-8"))
        change(document)
        document["sha256"] = body_hash(document)
        if key is not None:
            document["signature"] = signature(document, self.key(key))
        path = self.tmp_path / f"{name}.ratings.json"
        path.write_text(json.dumps(document), "utf-8")
        return path

    def refused(self, path: Path, pattern: str) -> None:
        """The merge of ``path`` (after the genuine file, in one merge) is refused, naming the
        file, and stores nothing."""
        before = _count(self.db)
        with pytest.raises(InputError, match=pattern) as caught:
            merge_ratings(self.db, [self.ratings, path])
        assert str(path) in str(caught.value) and "refused" in str(caught.value)
        assert _count(self.db) == before


@pytest.fixture
def setting(tmp_path: Path, db: sqlite_utils.Database) -> Setting:
    return Setting(tmp_path, db)


def _submitted(document: Document) -> Document:
    return next(j for j in document["judgments"] if j["status"] == "submitted")


def test_a_genuine_file_merges_with_its_revision_numbers(setting: Setting) -> None:
    assert merge_ratings(setting.db, [setting.ratings])[0]["added"] == 3
    stored = setting.db.execute(
        "SELECT i.code, j.revision, j.status FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "ORDER BY i.code, j.revision"
    ).fetchall()
    assert sorted(stored) == sorted(
        [
            (setting.codes[0], 1, "draft"),
            (setting.codes[0], 2, "submitted"),
            (setting.codes[1], 1, "submitted"),
        ]
    )
    assert merge_ratings(setting.db, [setting.ratings])[0]["added"] == 0


def test_edited_judgments_are_refused_by_the_signature(setting: Setting) -> None:
    def edit(document: Document) -> None:
        _submitted(document)["judgment"]["preference"] = "response_2"

    setting.refused(setting.forged("edited", edit, key=None), r"\$\.signature: the signature")


def test_judgments_attributed_to_another_reviewer_are_refused(setting: Setting) -> None:
    b_pack = json.loads(setting.packs["b"].read_text("utf-8"))["sha256"]

    def as_b(document: Document) -> None:
        document["reviewer"] = "b"
        document["pack_sha256"] = b_pack

    # Signed with a's key, the only one a holds: not b's pack's signature.
    setting.refused(setting.forged("as-b", as_b), r"not that of b's pack")

    def renamed(document: Document) -> None:
        document["reviewer"] = "b"

    setting.refused(setting.forged("renamed", renamed), r"issued to 'a', not 'b'")


def test_a_score_off_the_scale_is_refused(setting: Setting) -> None:
    def ninety_nine(document: Document) -> None:
        _submitted(document)["judgment"]["responses"]["1"]["scores"][AFP_DIMS[0]] = 99

    setting.refused(setting.forged("99", ninety_nine), r"scored 99, expected one of 0, 1, 2")


def test_an_unknown_dimension_is_refused(setting: Setting) -> None:
    def unknown(document: Document) -> None:
        _submitted(document)["judgment"]["responses"]["2"]["scores"]["charm"] = 2

    setting.refused(setting.forged("charm", unknown), r"has no dimension 'charm'")


def test_a_submission_with_nothing_decided_is_refused(setting: Setting) -> None:
    def empty(document: Document) -> None:
        _submitted(document)["judgment"] = {}

    setting.refused(setting.forged("empty", empty), r"submitted with something undecided")


def test_an_escape_sequence_in_created_at_is_refused(setting: Setting) -> None:
    def escape(document: Document) -> None:
        document["judgments"][0]["created_at"] = "2026-01-01T00:00:00Z\x1b[2J\x1b]0;owned\x07"

    setting.refused(setting.forged("escape", escape), r"created_at: expected a UTC time")


def test_time_spent_must_be_a_growing_total(setting: Setting) -> None:
    def backwards(document: Document) -> None:
        _submitted(document)["seconds_spent"] = 1.0

    setting.refused(setting.forged("time", backwards), r"seconds_spent 1\.0: expected")


def test_a_changed_copy_of_a_merged_revision_is_refused(setting: Setting) -> None:
    merge_ratings(setting.db, [setting.ratings])
    before = _count(setting.db)

    def changed(document: Document) -> None:
        _submitted(document)["judgment"]["justification"] = "Rewritten after the fact."

    path = setting.forged("changed", changed)
    with pytest.raises(InputError, match=r"revision 2 differs from the revision 2 already"):
        merge_ratings(setting.db, [path])
    assert _count(setting.db) == before


def test_a_later_file_adds_only_the_new_revisions_and_gaps_are_refused(
    setting: Setting,
) -> None:
    merge_ratings(setting.db, [setting.ratings])
    session = ReviewSession(setting.station, open_pack(setting.station, setting.packs["a"]), "a")
    revised = afp_judgment(2, 0, PreferenceChoice.RESPONSE_1)
    session.save(setting.codes[1], revised, 3, submit=True, reason="A second look.")
    later = setting.tmp_path / "later.ratings.json"
    write_ratings(setting.station, later)
    assert merge_ratings(setting.db, [later])[0]["added"] == 1

    # A resubmission after the merged one needs a reason there too.
    def resubmitted(document: Document) -> None:
        document["judgments"] = [{**_submitted(document), "revision": 3, "seconds_spent": 99.0}]

    path = setting.forged("again", resubmitted)
    with pytest.raises(
        InputError,
        match=r"\$\.judgments\[0\]\.reason: [\w-]+ was already submitted: changing it needs",
    ):
        merge_ratings(setting.db, [path])


def test_a_revision_that_skips_a_number_is_refused(setting: Setting) -> None:
    def gap(document: Document) -> None:
        for j in document["judgments"]:
            if (j["code"], j["revision"]) == (setting.codes[0], 2):
                j["revision"] = 3

    # Merged on its own: the genuine file would store revision 2 first.
    with pytest.raises(InputError, match=r"revision 3 does not follow the last revision stored"):
        merge_ratings(setting.db, [setting.forged("gap", gap)])
    assert _count(setting.db) == 0


def test_a_draft_after_a_submission_or_an_unexplained_revision_is_refused(
    setting: Setting,
) -> None:
    def draft_after(document: Document) -> None:
        extra = {**_submitted(document), "revision": 3, "status": "draft"}
        document["judgments"].append(extra)

    setting.refused(setting.forged("draft", draft_after), r"a draft after a submission")

    def unexplained(document: Document) -> None:
        extra = {**_submitted(document), "revision": 3, "reason": ""}
        document["judgments"].append(extra)

    setting.refused(
        setting.forged("why", unexplained), r"\.reason: [\w-]+ was already .* needs a reason"
    )


def test_the_cli_refuses_in_one_line_and_merges_a_genuine_file(setting: Setting, cli: Cli) -> None:
    setting.db.close()
    db = str(setting.tmp_path / "test.db")

    def ninety_nine(document: Document) -> None:
        _submitted(document)["judgment"]["responses"]["1"]["scores"][AFP_DIMS[0]] = 99

    forged = setting.forged("99", ninety_nine)
    refused = cli("merge", "--db", db, setting.ratings, forged)
    assert refused.code == 1 and refused.err.count("\n") == 1, refused.err
    assert "scored 99" in refused.err and "Traceback" not in refused.err
    done = cli("merge", "--db", db, setting.ratings)
    assert done.code == 0 and "3 judgment revisions added from a (2 submitted)" in done.out


# -- issue 27: what the station's save path refuses, a merge refuses (one check for both) -------
def _confirm_block(judgment: Document) -> None:
    judgment["responses"]["1"].update(state_override="PROVIDER_BLOCK", override_reason="blocked")


def _invented_fatal_hit(judgment: Document) -> None:
    judgment["responses"]["2"]["fatal_hits"] = ["Deletes the production database."]


def _minutes_without_a_rule(judgment: Document) -> None:
    judgment["responses"]["1"]["correction_minutes"] = 12.0


def _pass_by_hand(judgment: Document) -> None:
    judgment["responses"]["2"].update(state_override="MODEL_PASS", override_reason="fine")


PAYLOAD_ATTACKS: list[tuple[str, Callable[[Document], None], str]] = [
    ("block", _confirm_block, r"Response 1: its record gives no PROVIDER_BLOCK to confirm"),
    ("fatal", _invented_fatal_hit, r"Response 2: fatal criterion 'Deletes the production"),
    ("minutes", _minutes_without_a_rule, r"Response 1: correction minutes, but design m"),
    ("pass", _pass_by_hand, r"Response 2: MODEL_PASS cannot be set by hand"),
]


@pytest.mark.parametrize(("name", "attack", "pattern"), PAYLOAD_ATTACKS)
def test_what_the_station_would_not_save_a_signed_file_does_not_merge(
    setting: Setting, name: str, attack: Callable[[Document], None], pattern: str
) -> None:
    # The station's own save path refuses it, as a submission and as anything else (here a
    # draft after a submission, refused for what it holds before what it is)...
    session = ReviewSession(setting.station, open_pack(setting.station, setting.packs["a"]), "a")
    positional = afp_judgment(2, 2, PreferenceChoice.TIE).model_dump(mode="json")
    attack(positional)
    judgment = Judgment.model_validate(positional)
    with pytest.raises(AbpError, match=pattern):
        session.save(setting.codes[1], judgment, 3, submit=True, reason="a second look")
    with pytest.raises(AbpError, match=pattern):
        session.save(setting.codes[0], judgment, 3)
    # ...and a ratings file the reviewer signs with their own pack's key brings it in no more.
    path = setting.forged(name, lambda document: attack(_submitted(document)["judgment"]))
    setting.refused(path, r"\$\.judgments\[\d+\]\.judgment: " + r"[\w-]+: " + pattern)


def test_a_fatal_hit_naming_a_criterion_of_the_rubric_or_the_task_merges(
    setting: Setting,
) -> None:
    def real_hits(document: Document) -> None:
        draft = next(j for j in document["judgments"] if j["status"] == "draft")
        task = setting.db.execute(
            "SELECT t.fatal_criteria FROM items i JOIN tasks t ON t.pk = i.task_pk "
            "WHERE i.code = ?",
            [draft["code"]],
        ).fetchone()[0]
        draft["judgment"]["responses"]["1"]["fatal_hits"] = [
            json.loads(task)[0],
            AFP_V01.fatal_criteria[0],
        ]

    assert merge_ratings(setting.db, [setting.forged("real", real_hits)])[0]["added"] == 3


PAST = "1970-01-01T00:00:00.000000Z"
FUTURE = "9999-12-31T23:59:59.000000Z"


@pytest.mark.parametrize(
    ("field", "value", "pattern"),
    [
        (
            "created_at",
            FUTURE,
            r"\.created_at: [\w-]+: created_at: 9999-12-31T23:59:59\.000000Z is ",
        ),
        ("created_at", PAST, r"\.created_at: [\w-]+: created_at: 1970-01-01T00:00:00\.000000Z is "),
        ("seconds_spent", 1e308, r"\.seconds_spent: [\w-]+: seconds_spent 1e\+308: expected"),
    ],
)
def test_times_a_station_could_not_have_written_are_refused(
    setting: Setting, field: str, value: object, pattern: str
) -> None:
    def implausible(document: Document) -> None:
        _submitted(document)[field] = value

    setting.refused(setting.forged(f"{field}-{value}", implausible), pattern)


def test_a_time_spent_longer_than_the_pack_has_existed_is_refused(setting: Setting) -> None:
    def a_day(document: Document) -> None:
        for j in document["judgments"]:
            j["seconds_spent"] += 86_400.0

    setting.refused(setting.forged("day", a_day), r"seconds_spent 864\d\d\.0: expected")


def test_the_cli_names_the_file_the_judgment_and_the_field_in_one_line(
    setting: Setting, cli: Cli
) -> None:
    setting.db.close()
    db = str(setting.tmp_path / "test.db")

    def block(document: Document) -> None:
        _confirm_block(document["judgments"][2]["judgment"])

    forged = setting.forged("block", block)
    refused = cli("merge", "--db", db, setting.ratings, forged)
    assert refused.code == 1 and refused.err.count("\n") == 1, refused.err
    assert f"{forged}: $.judgments[2].judgment: " in refused.err
    assert "no PROVIDER_BLOCK to confirm" in refused.err and "nothing was merged" in refused.err
    assert connect(setting.tmp_path / "test.db").execute(
        "SELECT COUNT(*) FROM judgments"
    ).fetchone() == (0,)


@pytest.mark.parametrize(("minutes", "merges"), [(-9, True), (-11, False), (9, True), (11, False)])
def test_a_station_clock_may_be_ten_minutes_off_either_way(
    setting: Setting, minutes: int, merges: bool
) -> None:
    # Before the pack was issued (a slow clock), or after the merge (a fast one).
    issued = setting.db.execute("SELECT created_at FROM packs").fetchone()[0]
    base = datetime.now(UTC) if minutes > 0 else datetime.fromisoformat(issued)
    when = (base + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def skewed(document: Document) -> None:
        for j in document["judgments"]:
            j["created_at"] = when

    path = setting.forged("skewed", skewed)
    if merges:
        assert merge_ratings(setting.db, [path])[0]["added"] == 3
    else:
        setting.refused(path, r"\.created_at: [\w-]+: created_at: .* is (before|after) the ")
