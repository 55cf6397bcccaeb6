"""OpenSSH public keys and the ``authorized_keys`` lines that grant a team's members a session.

One key is one person: each member's line carries ``restrict`` (no forwarding of any kind, no
``~/.ssh/rc``), ``pty`` (the workstation needs a terminal) and a forced command that runs
``abp-tui --db DB session NAME``, so whatever the client asks for, sshd runs that, and the key,
not a flag, names who they are (gitolite's pattern).

The lines of one database's team sit in a block of their own, between two marker lines naming
the database; :func:`write_block` replaces that block and keeps every other line of the file as
it was (the account's own keys, other databases' blocks), writing the file whole (a temporary
file renamed over it) with mode 0600.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import re
import shlex
import stat
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from abp_tui.errors import AbpError

KEY_TYPES = frozenset(
    {
        "ssh-ed25519",
        "ssh-rsa",
        "ecdsa-sha2-nistp256",
        "ecdsa-sha2-nistp384",
        "ecdsa-sha2-nistp521",
        "sk-ssh-ed25519@openssh.com",
        "sk-ecdsa-sha2-nistp256@openssh.com",
    }
)
BEGIN = "# >>> abp-tui team of "
END = "# <<< abp-tui team of "
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
"""A member's name: it is a reviewer's name, a word of a forced command and of a key comment."""


class KeyRefused(AbpError):
    """A public key file or an authorized_keys file that cannot be used."""


@dataclass(frozen=True)
class PublicKey:
    kind: str
    blob: str
    """The key's base64 text, as in the ``.pub`` file."""

    @property
    def fingerprint(self) -> str:
        """``SHA256:...``, as ``ssh-keygen -l`` prints it."""
        digest = hashlib.sha256(base64.b64decode(self.blob)).digest()
        return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")

    @property
    def text(self) -> str:
        return f"{self.kind} {self.blob}"


def parse_key(words: list[str], where: str) -> PublicKey:
    """The key of ``TYPE BASE64``; KeyRefused naming ``where`` when it is not one."""
    if len(words) < 2 or words[0] not in KEY_TYPES:
        raise KeyRefused(
            f"{where}: not an OpenSSH public key: expected a line 'TYPE BASE64 [COMMENT]' with "
            f"TYPE one of {', '.join(sorted(KEY_TYPES))}"
        )
    kind, text = words[0], words[1]
    try:
        blob = base64.b64decode(text, validate=True)
        (length,) = struct.unpack(">I", blob[:4])
        named = blob[4 : 4 + length].decode("ascii")
    except (binascii.Error, struct.error, UnicodeDecodeError):
        named = None
    if named != kind:
        raise KeyRefused(
            f"{where}: not an OpenSSH public key: its base64 is not a {kind} key (a damaged or "
            "truncated .pub file?)"
        )
    return PublicKey(kind, text)


def _regular(path: Path, what: str) -> bool:
    """Whether ``path`` is a regular file (False: there is none); KeyRefused for anything else
    (a folder, a named pipe that would never end, a device), before it is opened."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise KeyRefused(f"{path}: cannot read {what}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise KeyRefused(f"{path}: not a regular file: expected {what}")
    return True


def read_key_file(path: Path) -> PublicKey:
    """The one public key in ``path`` (a ``.pub`` file)."""
    if not _regular(path, "an OpenSSH public key (.pub)"):
        raise KeyRefused(f"{path}: cannot read the key: no such file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise KeyRefused(f"{path}: cannot read the key: {exc.strerror}") from None
    if len(raw) > 16_384:
        raise KeyRefused(f"{path}: not an OpenSSH public key: {len(raw)} bytes is too long")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise KeyRefused(f"{path}: not an OpenSSH public key: not ASCII text") from None
    if "PRIVATE KEY" in text:
        raise KeyRefused(f"{path}: this is a private key: give the public one (the .pub file)")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if len(lines) != 1:
        raise KeyRefused(
            f"{path}: not an OpenSSH public key: expected one key line, found {len(lines)}"
        )
    return parse_key(lines[0].split(), f"{path}:1")


def check_name(name: str) -> None:
    if not NAME.match(name):
        raise AbpError(
            f"team member name {name!r}: expected letters, digits, '.', '_' or '-' (starting "
            "with a letter or digit, at most 64)"
        )


def _option_quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def grant_line(program: list[str], db: Path, name: str, key: PublicKey) -> str:
    """The authorized_keys line that opens ``name``'s session on ``db`` with ``key``."""
    command = " ".join(shlex.quote(word) for word in [*program, "--db", str(db), "session", name])
    return f'restrict,pty,command="{_option_quoted(command)}" {key.text} abp-tui:{name}'


def line_key(line: str) -> PublicKey | None:
    """The key of an authorized_keys line (after its options, if any); None for a comment, a
    blank line or one that holds no key this module knows."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    i, quoted = 0, False
    if text.split(None, 1)[0] not in KEY_TYPES:
        while i < len(text) and (quoted or not text[i].isspace()):
            if text[i] == "\\" and quoted:
                i += 1
            elif text[i] == '"':
                quoted = not quoted
            i += 1
    try:
        return parse_key(text[i:].split(), "")
    except KeyRefused:
        return None


@dataclass(frozen=True)
class Grant:
    """A key already in the file: where, and for whom when it is one of our lines."""

    line_no: int
    database: str | None
    """The database whose block holds it; None outside every block."""
    member: str | None


def _block_markers(db: Path) -> tuple[str, str]:
    return BEGIN + str(db), END + str(db)


def read_lines(path: Path) -> list[str]:
    if not _regular(path, "an authorized_keys file"):
        return []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise KeyRefused(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return raw.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise KeyRefused(f"{path}: not a text authorized_keys file; nothing changed") from None


def grants(path: Path) -> dict[str, Grant]:
    """Fingerprint -> where each key of the file is granted."""
    found: dict[str, Grant] = {}
    database: str | None = None
    for number, line in enumerate(read_lines(path), start=1):
        if line.startswith(BEGIN):
            database = line[len(BEGIN) :]
            continue
        if line.startswith(END):
            database = None
            continue
        key = line_key(line)
        if key is None or key.fingerprint in found:
            continue
        comment = line.rsplit(" abp-tui:", 1)
        member = comment[1].strip() if database is not None and len(comment) == 2 else None
        found[key.fingerprint] = Grant(number, database, member)
    return found


def write_block(path: Path, db: Path, lines: list[str]) -> None:
    """Replace ``db``'s block in ``path`` by ``lines`` (none: no block), keeping every other
    line; KeyRefused, nothing written, when the block's markers are not both there in order."""
    begin, end = _block_markers(db)
    kept = read_lines(path)
    starts = [i for i, line in enumerate(kept) if line == begin]
    ends = [i for i, line in enumerate(kept) if line == end]
    if len(starts) > 1 or len(ends) > 1 or len(starts) != len(ends) or starts > ends:
        raise KeyRefused(
            f"{path}: the block of {db} is not marked by one '{begin}' line and one '{end}' "
            "line after it; fix the file by hand; nothing changed"
        )
    block = [begin, *lines, end] if lines else []
    if starts:
        kept[starts[0] : ends[0] + 1] = block
    else:
        kept.extend(block)
    _write_whole(path, "".join(line + "\n" for line in kept))


def _write_whole(path: Path, text: str) -> None:
    folder = path.parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".authorized_keys.")
    except OSError as exc:
        raise KeyRefused(f"{path}: cannot write: {exc.strerror}; nothing changed") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise KeyRefused(f"{path}: cannot write: {exc.strerror}; nothing changed") from None


__all__ = [
    "BEGIN",
    "END",
    "KEY_TYPES",
    "Grant",
    "KeyRefused",
    "PublicKey",
    "check_name",
    "grant_line",
    "grants",
    "line_key",
    "parse_key",
    "read_key_file",
    "read_lines",
    "write_block",
]
