"""Crash safety: SIGKILL during saves, a full disk, and nothing the user had is lost.

The kill test forks the test process (kingsheet already imported, so each run starts at once),
runs `kingsheet deal` in the child with its writes slowed down so that a save spans a few
milliseconds, and kills it with SIGKILL at a random moment of that save. After every kill the
file must load and hold the old deals, or the old deals and the new one: never half a file.
KINGSHEET_KILLS sets how many kills (default 200).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, free_order_template
from kingsheet.cli.app import app
from kingsheet.files import storage
from kingsheet.files.gamefile import load_game

KILLS = int(os.environ.get("KINGSHEET_KILLS", "200"))
GAME56 = 'format = 1\nrules = "ordered-56"\nplayers = ["Аня", "Боря", "Вася", "Галя"]\n'
GAME = 'format = 1\nrules = "free.toml"\nplayers = ["Аня", "Боря", "Вася", "Галя"]\n'
ROWS = [("tricks", "-4 -4 -4 -4"), ("hearts", "-4 -4 -4 -4"), ("boys", "-4 -4 -4 -4"),
        ("girls", "-4 -4 -4 -4"), ("king", "-16 0 0 0"), ("last", "-8 -8 0 0"), ("eralash", "-24 -24 -24 -24")]
PLAYERS = ["Аня", "Боря", "Вася", "Галя"]


class SlowFile:
    """A file object whose writes trickle out, so that a kill can land inside one."""

    def __init__(self, fh, ready_fd: int) -> None:
        self.fh, self.ready_fd = fh, ready_fd

    def write(self, data: bytes) -> int:
        os.write(self.ready_fd, b"w")  # the save has begun
        for i in range(0, len(data), 64):
            self.fh.write(data[i:i + 64])
            self.fh.flush()
            time.sleep(0.0004)
        return len(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.fh.__exit__(*exc)


def _child(path: Path, args: list[str], ready_fd: int) -> None:
    real_fdopen, real_replace = os.fdopen, os.replace

    def slow_fdopen(fd, *a, **k):
        return SlowFile(real_fdopen(fd, *a, **k), ready_fd)

    def slow_replace(src, dst):
        time.sleep(0.002)
        real_replace(src, dst)
        time.sleep(0.002)

    storage.os.fdopen = slow_fdopen  # type: ignore[attr-defined]
    storage.os.replace = slow_replace  # type: ignore[attr-defined]
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        app(args=args, standalone_mode=False)
    finally:
        os._exit(0)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_sigkill_at_random_moments_of_saves(tmp_path):
    free_order_template(tmp_path)
    path = tmp_path / "game.toml"
    path.write_text(GAME, encoding="utf-8")
    rng = random.Random(7)
    killed_mid_save = kept_old = kept_new = 0
    for i in range(KILLS):
        before = len(load_game(path).deals)
        done = {(d.orderer, d.game) for d in load_game(path).deals}
        todo = [(p, g, r) for p in PLAYERS for g, r in ROWS if (p, g) not in done]
        if not todo:  # start over when every order is used
            path.write_text(GAME, encoding="utf-8")
            continue
        who, game, row = todo[0]
        args = ["deal", str(path), game, *row.split(), "--orderer", who]
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os.close(read_fd)
            _child(path, args, write_fd)
        os.close(write_fd)
        os.read(read_fd, 1)  # wait until the save begins
        time.sleep(rng.uniform(0, 0.012))  # a moment anywhere in the write, fsync, rename
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(read_fd)
        killed_mid_save += os.WIFSIGNALED(status)
        after = load_game(path)  # must load: never half a file
        assert len(after.deals) in (before, before + 1), i
        assert {(d.orderer, d.game) for d in after.deals} >= done  # the old deals, all of them
        if len(after.deals) == before:
            kept_old += 1
        else:
            kept_new += 1
        # a killed save may leave its temporary file; the next save sweeps it away
        assert len(list(tmp_path.glob(".game.toml.*.tmp"))) <= 1
    assert killed_mid_save >= KILLS * 0.8
    assert kept_old > 0 and kept_new > 0  # kills landed both before and after the rename
    print(f"\n{KILLS} kills: {killed_mid_save} inside a save; old file kept {kept_old}, new file {kept_new}")


def test_full_disk_keeps_the_old_file_and_says_so(tmp_path, runner, monkeypatch):
    path = tmp_path / "game.toml"
    path.write_text(GAME56, encoding="utf-8")
    before = path.read_bytes()
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    monkeypatch.setattr(storage.os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    res = runner.invoke(app, ["deal", str(path), "tricks", "-4", "-4", "-4", "-4", "--orderer", "Боря"])
    assert res.exit_code == 2
    assert res.stderr.strip() == f"kingsheet: {path}: not saved, the disk is full; the file is as it was"
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.toml"]  # no temporary file, and no lock left


def test_real_tiny_tmpfs_when_we_may_mount_one(tmp_path):
    """A real full disk: a 64 KiB tmpfs, where root may mount one (skipped elsewhere)."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        path = mnt / "game.toml"
        path.write_text(GAME56 + "".join('\n[[deals]]\ngame = "tricks"\norderer = "Боря"\npoints = [-4, -4, -4, -4]\n'
                                       for _ in range(1)), encoding="utf-8")
        # the game file takes one 4 KiB page; the filler takes every other page, so a save has none
        filler = mnt / "filler"
        with contextlib.suppress(OSError):
            filler.write_bytes(b"x" * (64 * 1024 - 4096))
        before = path.read_bytes()
        res = subprocess.run([sys.executable, "-m", "kingsheet.cli", "deal", str(path), "hearts", "-4", "-4", "-4",
                              "-4", "--orderer", "Вася", "--note", "x" * 400], capture_output=True, text=True,
                             cwd=ROOT)
        assert res.returncode == 2, res.stderr
        assert "not saved" in res.stderr and "Traceback" not in res.stderr
        assert path.read_bytes() == before
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


@pytest.mark.slow
def test_a_server_killed_while_phones_write_leaves_the_game_whole(tmp_path):
    """`kingsheet serve` killed with SIGKILL while deals stream in from a phone: the file always
    loads, and holds exactly the deals whose answers came back (and perhaps the one in flight)."""
    pytest.importorskip("uvicorn")
    import subprocess
    import sys
    import urllib.error
    import urllib.request

    from conftest import game_text

    path = tmp_path / "game.toml"
    path.write_text(game_text(), encoding="utf-8")
    rows = [("tricks", [4, 6, 6, 0]), ("hearts", [4, 4, 0, 8]), ("boys", [0, 4, 0, 12]), ("girls", [4, 4, 4, 4]),
            ("king", [0, 16, 0, 0]), ("last", [8, 0, 8, 0])]
    rng = random.Random(11)
    env = {**os.environ, "KINGSHEET_LANG": "en"}
    confirmed_in_all = 0
    for kill in range(4):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "kingsheet.cli", "serve", str(path), "--port", str(port)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        try:
            line = server.stdout.readline() if server.stdout else ""
            token = line.split("?t=")[1].split()[0]
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 10
            while True:  # up and answering
                try:
                    urllib.request.urlopen(f"{base}/api/state?t={token}", timeout=2).read()
                    break
                except (urllib.error.URLError, ConnectionError):
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            confirmed = len(load_game(path).deals)
            stop_at = time.monotonic() + rng.uniform(0.05, 0.4)
            posted = 0
            # at least one post gets through before every kill, however slow the machine
            while (time.monotonic() < stop_at or not posted) and confirmed < len(rows):
                game, pts = rows[confirmed]
                body = json.dumps({"seen": confirmed, "game": game, "points": pts}).encode()
                req = urllib.request.Request(f"{base}/api/deal", data=body, headers={
                    "content-type": "application/json", "x-kingsheet-token": token})
                urllib.request.urlopen(req, timeout=10).read()
                confirmed += 1
                posted += 1
                confirmed_in_all += 1
        finally:
            server.kill()
            server.wait(10)
        after = load_game(path)  # never half a file
        assert len(after.deals) in (confirmed, confirmed + 1), kill
        if len(after.deals) == len(rows):
            path.write_text(game_text(), encoding="utf-8")
    assert confirmed_in_all >= 4  # the kills fell among writes that got through
