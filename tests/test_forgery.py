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
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.errors import InputError
from abp_tui.models import PreferenceChoice
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
    with pytest.raises(InputError, match=r"revision 3 changes a submitted judgment without"):
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

    setting.refused(setting.forged("why", unexplained), r"without a reason")


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
    assert done.code == 0 and "3 judgments added from a" in done.out
