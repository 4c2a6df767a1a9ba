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
from collections.abc import Iterator
from pathlib import Path

from kingsheet.core.problems import InputError, StorageError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, saving stays atomic
    fcntl = None  # type: ignore[assignment]


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` for a read-modify-write (blocks while another holds it)."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(f"{path}: cannot lock the game file ({exc.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a mix."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{path}: the folder {folder} does not exist")
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o644 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise StorageError(f"{path}: cannot write in {folder} ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        why = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror
        raise StorageError(f"{path}: not saved, {why}; the file is as it was") from None
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


def write_new(path: Path, data: bytes, force: bool = False) -> None:
    """Write an output file: refuse to overwrite an existing one unless ``force``."""
    if path.exists() and not force:
        raise InputError(f"{path} already exists; use --force to replace it")
    if path.is_dir():
        raise InputError(f"{path} is a folder")
    atomic_write(path, data)
