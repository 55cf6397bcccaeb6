"""A team on one server, through a real OpenSSH server: the key, not a flag, names the reviewer.

The test starts its own ``sshd`` on 127.0.0.1 at a free port (a child of the test, with its own
host key and configuration in the test's folder, keys only, no PAM), grants generated keys with
``abp-tui team add`` into the test's own ``authorized_keys`` file, and connects with ``ssh``.
Skipped, saying why, only when sshd, ssh or ssh-keygen are not installed (``.ci/run`` installs
them). Every wait is bounded.
"""

from __future__ import annotations

import getpass
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.cli import main
from tests.factories import open_design

SSHD = shutil.which("sshd") or next(
    (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if Path(p).exists()), None
)
ANSI = re.compile(
    r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Za-z0-9]|[=>NOM78])"
)


@dataclass
class Server:
    port: int
    folder: Path
    db: Path
    authorized_keys: Path

    def key(self, name: str) -> Path:
        path = self.folder / name
        if not path.exists():
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)],
                check=True,
                timeout=30,
            )
        return path

    def ssh(self, key: str, *options: str) -> list[str]:
        return [
            "ssh",
            "-F",
            "/dev/null",
            "-i",
            str(self.key(key)),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "IdentityAgent=none",
            "-o",
            "BatchMode=yes",
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            f"UserKnownHostsFile={self.folder / 'known_hosts'}",
            "-o",
            "ConnectTimeout=10",
            "-o",
            "LogLevel=ERROR",
            "-p",
            str(self.port),
            *options,
            f"{getpass.getuser()}@127.0.0.1",
        ]

    def run(self, key: str, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.ssh(key), *command],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def grant(self, name: str, role: str = "reviewer") -> None:
        code = main(
            [
                "--db",
                str(self.db),
                "team",
                "add",
                name,
                "--key",
                f"{self.key(name)}.pub",
                "--role",
                role,
                "--authorized-keys",
                str(self.authorized_keys),
            ]
        )
        assert code == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path, db: sqlite_utils.Database) -> Iterator[Server]:
    missing = [tool for tool in ("ssh", "ssh-keygen") if shutil.which(tool) is None]
    if SSHD is None or missing:
        pytest.skip(
            f"OpenSSH is not installed ({', '.join(missing or ['sshd'])} not found): install "
            "openssh-server (.ci/run does) to check a team session over SSH"
        )
    if os.geteuid() == 0 and not Path("/run/sshd").is_dir():
        # sshd's privilege separation folder: what its service makes at every boot.
        Path("/run/sshd").mkdir(mode=0o755)
    open_design(tmp_path, db)  # study s, an open design
    db.close()
    folder = tmp_path / "ssh"
    folder.mkdir(mode=0o700)
    port = _free_port()
    srv = Server(port, folder, tmp_path / "test.db", folder / "authorized_keys")
    host_key = srv.key("host_key")
    config = folder / "sshd_config"
    config.write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {host_key}\n"
        f"PidFile {folder / 'sshd.pid'}\nAuthorizedKeysFile {srv.authorized_keys}\n"
        "StrictModes no\nPermitRootLogin prohibit-password\nUsePAM no\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PubkeyAuthentication yes\nLogLevel VERBOSE\n",
        encoding="utf-8",
    )
    log = folder / "sshd.log"
    with log.open("wb") as out:
        daemon = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(config)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 15
        while True:
            assert daemon.poll() is None, f"sshd stopped: {log.read_text(errors='replace')}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "sshd did not listen within 15 s"
                time.sleep(0.1)
        yield srv
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=10)


def _workstation_screen(server: Server, key: str, *command: str) -> str:
    """Open the workstation through ``ssh -tt`` in a pseudo-terminal of 120x40, read the screen
    until its header names the reviewer, press q; the text shown (escape sequences removed)."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [*server.ssh(key, "-tt"), *command],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color"},
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and b"reviewer: " not in _plain(seen).encode():
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break  # the session ended
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        time.sleep(0.5)  # the rest of the first screen
        while select.select([master], [], [], 0.5)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        try:
            os.write(master, b"q")
            proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            pass
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        os.close(master)
    return _plain(seen)


def _plain(raw: bytes) -> str:
    return ANSI.sub("", raw.decode("utf-8", errors="replace"))


def test_each_key_opens_a_session_as_its_own_person_and_nothing_else(server: Server) -> None:
    server.grant("alice")
    server.grant("carol", role="coordinator")

    screen = _workstation_screen(server, "alice")
    assert "reviewer: alice (reviewer of the team)" in screen, screen[-2000:]

    # The client cannot choose who they are: --reviewer is dropped, the key's person stays.
    screen = _workstation_screen(server, "alice", "abp-tui", "--reviewer", "bob")
    assert "reviewer: alice" in screen, screen[-2000:]
    assert "reviewer: bob" not in screen
    assert "--reviewer bob ignored" in screen

    # A shell, or any command but the few a session runs, is refused in one line.
    shell = server.run("alice", "sh", "-c", "id")
    assert shell.returncode == 1
    assert "uid=" not in shell.stdout + shell.stderr
    assert shell.stderr.count("\n") == 1 and "nothing else" in shell.stderr, shell.stderr

    # Status works; unblinding is the coordinator's, refused to alice by the core.
    status = server.run("alice", "status")
    assert status.returncode == 0 and "design open v1" in status.stdout, status
    refused = server.run("alice", "unblind", "--study", "s", "--yes")
    assert refused.returncode == 1
    assert "alice is a reviewer of this team: they cannot unblind" in refused.stderr
    done = server.run("carol", "unblind", "--study", "s", "--yes")
    assert done.returncode == 0, done.stderr
    assert "study s unblinded by carol" in done.stdout

    # A key removed from the team no longer connects; the others still do.
    code = main(
        [
            "--db",
            str(server.db),
            "team",
            "remove",
            "alice",
            "--authorized-keys",
            str(server.authorized_keys),
        ]
    )
    assert code == 0
    gone = server.run("alice", "status")
    assert gone.returncode == 255 and "Permission denied" in gone.stderr, gone
    assert server.run("carol", "status").returncode == 0
