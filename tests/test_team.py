"""The team of a shared server: ``team add|list|show|remove``, the ``authorized_keys`` block
they write, the ``session`` forced command, and the roles the core enforces in a session.

The real SSH round trip is in ``tests/test_team_ssh.py``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shlex
import struct
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.cli.options import actor, viewer
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services import roles
from abp_tui.services.adjudicating import NotAnAdjudicator, adjudication_refused
from abp_tui.services.authorized_keys import line_key
from abp_tui.services.coordinator_identity import first_look, note_view
from abp_tui.services.designing import create_design
from abp_tui.services.publishing import export_verdicts
from abp_tui.services.results_report import unblind
from abp_tui.services.roles import RoleRefused
from abp_tui.store import connect
from abp_tui.store import judging as jsql
from abp_tui.store.coordinator_views import views_by
from tests.factories import Cli, afp_judgment, open_design, two_reviewer_design

# A key made with `ssh-keygen -t ed25519`, and the fingerprint `ssh-keygen -lf` printed for it.
FIXED_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOy6VVz7bLXd8C6XeZgVxkPpF6ASlyU08ifMdeUlH6xg"
FIXED_FINGERPRINT = "SHA256:N5PQT9Vt+Mu+otTAw+hMqg6z6T2M2h2sa7qEP+Ctqqc"
ADMIN_LINE = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g admin"
)


def _key(folder: Path, name: str) -> Path:
    """A well-formed ed25519 public key file of its own for ``name``."""
    body = name.encode().ljust(32, b".")[:32]
    blob = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + body
    path = folder / f"{name}.pub"
    path.write_text(f"ssh-ed25519 {base64.b64encode(blob).decode()} {name}@laptop\n")
    return path


@pytest.fixture
def team(tmp_path: Path, db: sqlite_utils.Database) -> Path:
    """An ``afp_study`` database with an open design: its path (closed)."""
    open_design(tmp_path, db)
    db.close()
    return tmp_path / "test.db"


def _team(cli: Cli, db: Path, *args: str | Path) -> tuple[int, str, str]:
    result = cli("--db", db, "team", *args)
    return result.code, result.out, result.err


def test_team_add_writes_its_block_and_keeps_every_other_line(
    tmp_path: Path, team: Path, cli: Cli
) -> None:
    keys = tmp_path / "authorized_keys"
    keys.write_text(f"# the service account's own keys\n{ADMIN_LINE}\n")
    ak = ("--authorized-keys", str(keys))
    assert _team(cli, team, "add", "alice", "--key", _key(tmp_path, "alice"), *ak)[0] == 0
    code, out, _ = _team(
        cli, team, "add", "carol", "--key", _key(tmp_path, "carol"), "--role", "coordinator", *ak
    )
    assert code == 0 and "carol (coordinator" in out and "added" in out
    lines = keys.read_text().splitlines()
    assert lines[:2] == ["# the service account's own keys", ADMIN_LINE]
    assert lines[2] == f"# >>> abp-tui team of {team.resolve()}"
    assert lines[-1] == f"# <<< abp-tui team of {team.resolve()}"
    assert oct(keys.stat().st_mode & 0o777) == "0o600"
    for line, name in zip(lines[3:5], ("alice", "carol"), strict=True):
        match = re.fullmatch(r'restrict,pty,command="(.*)" (ssh-ed25519 \S+) abp-tui:(\S+)', line)
        assert match is not None, line
        assert match[3] == name and match[2] in (tmp_path / f"{name}.pub").read_text()
        command = shlex.split(match[1])
        assert command[-4:] == ["--db", str(team.resolve()), "session", name]
        program = command[:-4]
        interpreter = program[2] if program[0] == "env" else program[0]
        assert Path(interpreter).is_absolute() and program[-2:] == ["-m", "abp_tui"]
        assert line_key(line) is not None

    code, out, _ = _team(cli, team, "list", "--json")
    listed = json.loads(out)["team"]
    assert [(m["name"], m["role"]) for m in listed] == [
        ("alice", "reviewer"),
        ("carol", "coordinator"),
    ]

    # The same key with another role changes the role, audited.
    code, out, _ = _team(
        cli, team, "add", "alice", "--key", tmp_path / "alice.pub", "--role", "adjudicator", *ak
    )
    assert code == 0 and "role changed" in out
    shown = json.loads(_team(cli, team, "show", "alice", "--json")[1])
    assert shown["role"] == "adjudicator"
    assert [(c["action"], c["role"]) for c in shown["changes"]] == [
        ("add", "reviewer"),
        ("role", "adjudicator"),
    ]
    assert shown["line"] == keys.read_text().splitlines()[3]

    # Removing takes the line out and keeps the rest; the audit keeps the removal.
    code, out, _ = _team(cli, team, "remove", "alice", *ak)
    assert code == 0 and "alice removed" in out
    after = keys.read_text()
    assert "abp-tui:alice" not in after and "abp-tui:carol" in after and ADMIN_LINE in after
    db = connect(team)
    actions = [r[0] for r in db.execute("SELECT action FROM team_audit ORDER BY pk").fetchall()]
    db.close()
    assert actions == ["add", "add", "role", "remove"]


def test_team_add_says_when_other_accounts_may_read_the_database(
    tmp_path: Path, team: Path, cli: Cli
) -> None:
    ak = ("--authorized-keys", str(tmp_path / "ak"))
    assert _team(cli, team, "add", "alice", "--key", _key(tmp_path, "alice"), *ak)[2] == ""
    os.chmod(team.parent, 0o755)
    try:
        code, _, err = _team(cli, team, "add", "bob", "--key", _key(tmp_path, "bob"), *ak)
    finally:
        os.chmod(team.parent, 0o700)
    assert code == 0 and "may be read by other accounts of this server" in err


def test_each_database_keeps_its_own_block(tmp_path: Path, team: Path, cli: Cli) -> None:
    keys = tmp_path / "authorized_keys"
    other = tmp_path / "other" / "other.db"
    other.parent.mkdir(mode=0o700)
    connect(other).close()  # a database of its own (team add never makes one)
    ak = ("--authorized-keys", str(keys))
    assert _team(cli, other, "add", "dee", "--key", _key(tmp_path, "dee"), *ak)[0] == 0
    assert _team(cli, team, "add", "alice", "--key", _key(tmp_path, "alice"), *ak)[0] == 0
    assert _team(cli, team, "remove", "alice", *ak)[0] == 0
    text = keys.read_text()
    assert f"--db {other.resolve()} session dee" in text
    assert str(team.resolve()) not in text  # an empty team leaves no block


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("taken", "is already granted to alice; one key names one person"),
        ("outside", "already granted to the account itself, outside abp-tui's block"),
        ("other database", "already granted to dee of"),
        ("malformed", "not an OpenSSH public key: its base64 is not a ssh-ed25519 key"),
        ("not a key", "not an OpenSSH public key: expected a line 'TYPE BASE64 [COMMENT]'"),
        ("private", "this is a private key: give the public one"),
        ("judge", "gpt-judge is an AI judge's id: a judge is never a team member"),
        ("name", "team member name 'bob smith': expected letters, digits"),
        ("pipe", "bob.pipe: not a regular file: expected an OpenSSH public key"),
        ("keys pipe", "authorized_keys: not a regular file: expected an authorized_keys file"),
    ],
)
def test_team_add_refuses_in_one_line_and_changes_nothing(
    tmp_path: Path, team: Path, cli: Cli, case: str, expected: str
) -> None:
    keys = tmp_path / "authorized_keys"
    keys.write_text(f"{ADMIN_LINE}\n")
    ak = ("--authorized-keys", str(keys))
    assert _team(cli, team, "add", "alice", "--key", _key(tmp_path, "alice"), *ak)[0] == 0
    name, key = "bob", _key(tmp_path, "bob")
    if case == "taken":
        key = tmp_path / "alice.pub"
    elif case == "outside":
        key.write_text(ADMIN_LINE + "\n")
    elif case == "other database":
        other = tmp_path / "other" / "other.db"
        other.parent.mkdir(mode=0o700)
        connect(other).close()
        assert _team(cli, other, "add", "dee", "--key", _key(tmp_path, "dee"), *ak)[0] == 0
        key = tmp_path / "dee.pub"
    elif case == "malformed":
        key.write_text("ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQ bob\n")
    elif case == "not a key":
        key.write_text("hello world\n")
    elif case == "private":
        key.write_text(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n"
        )
    elif case == "judge":
        name = "gpt-judge"
        db = connect(team)
        with db.atomic():
            db.execute(
                "INSERT INTO judges (id, kind, model, prompt, version, source, sha256, document, "
                "created_at) VALUES ('gpt-judge', 'ai', 'm', 'p', '1', 's', 'x', '{}', 'now')"
            )
        db.close()
    elif case == "name":
        name = "bob smith"
    elif case == "pipe":  # would never end if it were read
        key = tmp_path / "bob.pipe"
        os.mkfifo(key)
    before = keys.read_bytes()
    if case == "keys pipe":
        keys = tmp_path / "pipe" / "authorized_keys"
        keys.parent.mkdir()
        os.mkfifo(keys)
        ak = ("--authorized-keys", str(keys))
    code, out, err = _team(cli, team, "add", name, "--key", key, *ak)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and expected in err, err
    if case != "keys pipe":
        assert keys.read_bytes() == before
    listed = json.loads(_team(cli, team, "list", "--json")[1])["team"]
    assert [m["name"] for m in listed] == ["alice"]


def test_the_fingerprint_is_the_one_ssh_keygen_prints(tmp_path: Path, team: Path, cli: Cli) -> None:
    key = tmp_path / "fixed.pub"
    key.write_text(FIXED_KEY + " fixed\n")
    code, out, _ = _team(
        cli, team, "add", "fixed", "--key", key, "--authorized-keys", tmp_path / "ak"
    )
    assert code == 0 and FIXED_FINGERPRINT in out


# -- the session -----------------------------------------------------------------------------------
def _session(
    cli: Cli, db: Path, name: str, request: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setenv("SSH_ORIGINAL_COMMAND", request)
    result = cli("--db", db, "session", name)
    assert roles.signed_in() is None  # signed out as the session ends, refused or not
    return result.code, result.out, result.err


@pytest.fixture
def granted(tmp_path: Path, team: Path, cli: Cli) -> Path:
    ak = ("--authorized-keys", str(tmp_path / "ak"))
    assert _team(cli, team, "add", "alice", "--key", _key(tmp_path, "alice"), *ak)[0] == 0
    carol = ("--role", "coordinator")
    assert _team(cli, team, "add", "carol", "--key", _key(tmp_path, "carol"), *carol, *ak)[0] == 0
    return team


@pytest.mark.parametrize(
    "request_",
    ["bash", "sh -c id", "import /etc/passwd", "export verdicts --out /tmp/x", "study create"],
)
def test_a_session_refuses_anything_but_its_few_commands(
    granted: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch, request_: str
) -> None:
    code, out, err = _session(cli, granted, "carol", request_, monkeypatch)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "nothing else" in err


def test_the_client_cannot_choose_who_they_are_or_which_database(
    tmp_path: Path, granted: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere.db"
    code, out, err = _session(
        cli, granted, "alice", f"abp-tui --reviewer carol --db={other} status --json", monkeypatch
    )
    assert code == 0
    assert json.loads(out)["database"] == str(granted)
    assert "--reviewer carol ignored" in err and f"--db {other} ignored" in err
    assert not other.exists()
    code, _, err = _session(
        cli, granted, "alice", "unblind --study s --yes --reviewer carol", monkeypatch
    )
    assert code == 1 and "alice is a reviewer of this team: they cannot unblind" in err


def test_a_session_is_refused_to_a_name_off_the_team(
    granted: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _session(cli, granted, "mallory", "status", monkeypatch)
    assert code == 1 and "mallory is not on the team of this database" in err


def test_a_session_is_refused_on_a_database_other_accounts_may_write(
    granted: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.chmod(granted.parent, 0o777)
    try:
        code, _, err = _session(cli, granted, "alice", "status", monkeypatch)
    finally:
        os.chmod(granted.parent, 0o700)
    assert code == 1 and "writable by it alone" in err and err.count("\n") == 1


def test_the_workstation_needs_a_terminal_and_pack_ratings_names_no_file(
    granted: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _session(cli, granted, "alice", "", monkeypatch)
    assert code == 1 and "the workstation needs a terminal" in err
    code, _, err = _session(cli, granted, "alice", "pack ratings --out /tmp/r.json", monkeypatch)
    assert code == 1 and "written to your terminal" in err
    code, _, err = _session(cli, granted, "alice", "pack ratings", monkeypatch)
    assert code == 1 and "not alice's reviewer station" in err


def test_in_a_session_who_looks_and_who_acts_is_the_person_signed_in() -> None:
    args = argparse.Namespace(reviewer="bob", by="bob")
    assert (viewer(args), actor(args)) == ("bob", "bob")
    with roles.session("alice", "reviewer"):
        assert (viewer(args), actor(args)) == ("alice", "alice")
    assert roles.signed_in() is None


# -- roles in the core -----------------------------------------------------------------------------
def test_only_a_coordinator_unblinds_exports_and_creates_designs(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    open_design(tmp_path, db)
    for role in ("reviewer", "adjudicator"):
        with roles.session("alice", role), pytest.raises(RoleRefused, match="cannot unblind"):
            unblind(db, "s", "alice")
    assert jsql.design(db, 1).study_id == "s"
    with roles.session("carol", "coordinator"):
        assert unblind(db, "s", "carol")[0] == "carol"
    out = tmp_path / "verdicts.jsonl"
    with roles.session("alice", "reviewer"), pytest.raises(RoleRefused, match="cannot export"):
        export_verdicts(db, 1, out, actor="alice", viewer="alice")
    assert not out.exists()
    with roles.session("carol", "coordinator"):
        export_verdicts(db, 1, out, actor="carol", viewer="carol")
    assert out.exists()
    design = StudyDesign(study="s", name="more", seed=4, contrasts=[("C", "A")])
    with roles.session("alice", "adjudicator"), pytest.raises(RoleRefused, match="create study"):
        create_design(db, design)
    # Outside a session (a laptop, a station, the account that owns the database): as before.
    assert create_design(db, design).pk > 1


def test_only_a_coordinator_or_an_adjudicator_adjudicates(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 1, submit=True)
    b.save(codes[0], afp_judgment(0, 0, PreferenceChoice.RESPONSE_2), 1, submit=True)
    design, item = jsql.design(db, pk), jsql.item_by_code(db, pk, codes[0])
    assert adjudication_refused(db, design, item, "lead") is None
    with roles.session("lead", "reviewer"):
        refused = adjudication_refused(db, design, item, "lead")
        assert isinstance(refused, NotAnAdjudicator)
        assert f"lead is a reviewer of this team: they cannot adjudicate {codes[0]}" in str(refused)
    for role in ("adjudicator", "coordinator"):
        with roles.session("lead", role):
            assert adjudication_refused(db, design, item, "lead") is None
    # A role never lets a reviewer of the item adjudicate it.
    with roles.session("a", "coordinator"):
        assert adjudication_refused(db, design, item, "a") is not None


def test_a_reviewer_never_becomes_the_coordinator_by_looking(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = open_design(tmp_path, db)
    with roles.session("alice", "reviewer"):
        assert not first_look(db, "s", "alice")  # refused, not asked
        with pytest.raises(RoleRefused, match="could still enrol"):
            note_view(db, "s", pk, "alice", "agreement")
    assert views_by(db, "s", "alice") == []
    with roles.session("carol", "coordinator"):
        assert first_look(db, "s", "carol")
        note_view(db, "s", pk, "carol", "agreement")
    assert [v.figure for v in views_by(db, "s", "carol")] == ["agreement"]
