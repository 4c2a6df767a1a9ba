"""Saving that loses nothing.

Every change is read-modify-write under a lock (a sidecar ``.NAME.lock`` file, because the
game file itself is replaced by rename): write a temporary file in the same folder, fsync it,
keep the old file's mode, rename it over the old one, fsync the folder. A crash or a full disk
at any moment leaves either the old file or the new one, never half of one. The TOML is edited
with tomlkit, so comments and layout a person added survive.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import kingsheet.files
from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError, StorageError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, saving stays atomic
    fcntl = None  # type: ignore[assignment]


LOCK_TIMEOUT = 30.0  # seconds a change waits for another one on the same game (KINGSHEET_LOCK_TIMEOUT)


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` for a read-modify-write. The game file must be there; the
    lock file is never followed through a link someone planted, and is removed when the change is
    done (so none pile up beside the games). When another process holds the lock, ``on_wait`` is
    told once, and after ``timeout`` seconds it gives up with a sentence."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    if timeout is None:
        timeout = float(os.environ.get("KINGSHEET_LOCK_TIMEOUT") or LOCK_TIMEOUT)
    deadline = time.monotonic() + timeout
    told = False
    where = lock_path(path)
    while True:
        fd = _open_lock(path, where)
        try:
            if _take(fd, path, deadline, timeout, told):
                told = True
                continue  # (not taken yet: waited, told, and the deadline not passed)
            # the lock we hold must still be the file at the lock's path: a holder before us removed
            # it when done, and a third process may have made a new one; then take that one
            try:
                same = os.stat(where, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                continue
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(where)  # while still holding it: whoever waits on it will see it gone
                fcntl.flock(fd, fcntl.LOCK_UN)
            return
        finally:
            os.close(fd)


def _open_lock(path: Path, where: Path) -> int:
    try:
        fd = os.open(where, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        why = _("its lock file is a link") if exc.errno == errno.ELOOP else exc.strerror
        raise StorageError(_("{path}: cannot lock the game file ({why})").format(path=path, why=why)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StorageError(_("{path}: cannot lock the game file (its lock file is not a regular file)").format(path=path))
    return fd


def _take(fd: int, path: Path, deadline: float, timeout: float, told: bool) -> bool:
    """Take the lock on ``fd`` now (False), or wait a moment and say so once (True: try again)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        if not told and kingsheet.files.on_wait is not None:
            kingsheet.files.on_wait(path)
        if time.monotonic() > deadline:
            raise StorageError(_("{path}: another kingsheet has been changing this game for {timeout:.0f} s; " "nothing was written, try again").format(path=path, timeout=timeout)) from None
        time.sleep(0.05)
        return True


def real_game_path(path: Path) -> Path:
    """The file a game path names, through any links: writers through a link and through its target
    take the same lock and change the same file, and the link stays a link."""
    return Path(os.path.realpath(path))


def check_writable(path: Path) -> None:
    """A game file someone made read-only (0444) is not rewritten behind their back, even by root."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise StorageError(_("{path}: the file is read-only; nothing was written (chmod u+w to allow changes)").format(path=path))


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a mix."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(_("{path}: the folder {folder} does not exist").format(path=path, folder=folder))
    owner: tuple[int, int] | None = None
    try:
        info = path.stat()
        owner = (info.st_uid, info.st_gid)
        if mode is None:
            mode = stat.S_IMODE(info.st_mode)
    except FileNotFoundError:
        if mode is None:
            mode = 0o644 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise StorageError(_("{path}: cannot write in {folder} ({strerror})").format(path=path, folder=folder, strerror=exc.strerror)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        root = hasattr(os, "geteuid") and os.geteuid() == 0  # (a browser's Python has no users)
        if owner is not None and root and owner != (os.getuid(), os.getgid()):
            os.chown(tmp, *owner)  # root saving another user's game keeps it theirs
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        why = _("the disk is full") if exc.errno == errno.ENOSPC else exc.strerror
        raise StorageError(_("{path}: not saved, {why}; the file is as it was").format(path=path, why=why)) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Exists(InputError):
    """An output file is there already (the command line says how to replace it)."""


def write_new(path: Path, data: bytes, force: bool = False) -> None:
    """Write an output file: refuse to overwrite an existing one unless ``force``."""
    if path.exists() and not force:
        raise Exists(_("{path} already exists").format(path=path))
    if path.is_dir():
        raise InputError(_("{path} is a folder").format(path=path))
    atomic_write(path, data)
