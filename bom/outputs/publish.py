"""Publishing an output set as one unit: every file written into a stage, then swapped in at once.

An output (:class:`Output`) is a set of named files, each rendered in memory (``bytes``) or
streamed (a :data:`Writer` given a binary file per name, for a cable plan of millions of rows);
``bom build``, ``bom compare``, ``bom cables`` and ``bom netbox export`` each make one
(:mod:`bom.outputs.sets`) and hand it to :func:`write_all`. Streamed files go straight into the
stage, so they are never held in memory.

What a reader of the output folder sees (the README states it too):

- The set a command writes is staged in a hidden folder beside the target,
  ``.<folder>.clusterbom-<token>``, and published by one atomic rename: the folder is created by
  renaming the stage onto it, or the stage (holding hard links of every other file already in
  the folder) is exchanged with it (Linux ``renameat2(RENAME_EXCHANGE)``). At every instant the
  folder holds the previous complete set or the new complete set, never a mix, and the other
  files in it stay where they are.
- When the folder cannot be exchanged (it holds sub-folders, is a mount point, a symlink or the
  current directory, or the file system refuses), each file is replaced atomically one by one:
  no file is ever half-written, but a reader may see new and old files side by side for an
  instant.
- A folder that is a mount point gets its stage inside it (a rename cannot cross file systems).
- A failed or interrupted build (bad input, disk full, SIGINT, SIGTERM) leaves the previous set;
  the stage is removed, and one left by SIGKILL or a power cut is removed by the next build.
- Builds into one folder (and its siblings) take turns: the parent folder is locked (``flock``).
We never delete a file we did not write.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import secrets
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO

from bom.errors import BomError

#: A streamed part of an output: writes its files through ``open_(name)`` (a new binary file in the
#: stage); a declared name it does not open is not written, and an earlier file of that name retires.
Writer = Callable[[Callable[[str], IO[bytes]]], None]


@dataclass
class Output:
    """A set of named files: ``files`` rendered in memory, ``streams`` (declared names, writer)
    written straight into the stage; ``retire`` names our own files of an earlier run that this
    one does not write (they leave with the swap); ``what`` names the set in error messages."""

    files: dict[str, bytes] = field(default_factory=dict)
    streams: list[tuple[tuple[str, ...], Writer]] = field(default_factory=list)
    retire: tuple[str, ...] = ()
    what: str = "the outputs"

    def names(self) -> list[str]:
        return [*self.files, *(n for names, _ in self.streams for n in names)]

TAG = ".clusterbom-"
#: How long a build waits for another build into the same place before giving up [s].
LOCK_WAIT_S = 120.0
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def check_writable(out: Path) -> None:
    """The nearest existing folder at or above ``out`` must be writable (else exit 2 with -o advice)."""
    probe = out
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise BomError(f"cannot write to {probe}", key="--output",
                       hint="Choose a folder you can write to with -o DIR.")


def write_all(output: Output | Mapping[str, bytes], out: Path, retire: tuple[str, ...] = ()) -> list[Path]:
    """Publish ``output`` into the folder ``out`` as one unit; returns the paths of the files written.

    A plain mapping is an output of files rendered in memory; ``retire`` adds to its retired names."""
    if not isinstance(output, Output):
        output = Output(dict(output))
    names = output.names()
    target = Path(os.path.abspath(out))
    if os.path.lexists(target) and not target.is_dir():
        raise BomError(f"{target} is a file, not a folder", key="--output",
                       hint="Give -o a folder (it is created if missing); the files go inside it.")
    check_writable(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BomError(f"cannot create {target.parent}: {exc.strerror}", key="--output") from None
    try:
        with _locked(target.parent), _signals_raise():
            clean_stale(target)
            _check_targets(target, names, output.what)
            stage = _stage_dir(target) / f"{_prefix(target)}{os.getpid()}-{secrets.token_hex(4)}"
            written: list[str] = []
            try:
                written = _stage(stage, output)
                gone = tuple(n for n in (*output.retire, *retire, *names) if n not in written)
                _publish(stage, target, written, tuple(dict.fromkeys(gone)))
            finally:
                _settle(stage, target, set(names) | set(output.retire) | set(retire))
            _sync(target.parent)
    except OSError as exc:
        raise BomError(f"cannot write {output.what} in {out}: {exc.strerror or exc}", key="--output",
                       hint="Free some space or choose another folder with -o DIR; nothing was written.") from None
    return [out / name for name in written]


def replace_file(path: Path, data: bytes) -> None:
    """Write one file whole (a temporary beside it, renamed over it): never half-written, never through a
    link (the rename replaces a link itself)."""
    tmp = path.with_name(f".{path.name[:NAME_KEEP]}{TAG}{os.getpid()}-{secrets.token_hex(4)}")
    try:
        _write_file(tmp, data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _stage_dir(target: Path) -> Path:
    """Beside the target, or inside it when it is a mount point (a rename cannot leave a file system)."""
    try:
        if os.lstat(target).st_dev != os.stat(target.parent).st_dev and target.is_dir():
            return target
    except OSError:
        pass
    return target.parent


def _check_targets(target: Path, names: list[str], what: str) -> None:
    """A folder (or anything but a file) where one of our files goes is refused before any write."""
    if os.path.lexists(target) and not target.is_dir():
        raise BomError(f"{target} is a file, not a folder", key="--output",
                       hint="Give -o a folder (it is created if missing); the files go inside it.")
    for name in names:
        path = target / name
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            kind = "a folder" if path.is_dir() else "a link or special file"
            raise BomError(f"{path} is {kind} where {what} writes a file", key="--output",
                           hint="Move or rename it, or choose another folder with -o DIR; nothing was written.")


def _stage(stage: Path, output: Output) -> list[str]:
    """The new hidden folder ``stage`` holding every file, flushed to disk; the names written."""
    manifest = stage.with_name(stage.name + ".json")
    _write_file(manifest, json.dumps(sorted({*output.names(), *output.retire})).encode())   # first: a kill leaves it
    os.mkdir(stage, 0o700)
    for name, data in output.files.items():
        _write_file(stage / name, data)
    opened: dict[str, IO[bytes]] = {}
    for declared, write in output.streams:
        def open_(name: str, declared: tuple[str, ...] = declared) -> IO[bytes]:
            if name not in declared or name in opened:
                raise ValueError(f"{name} is not a file this output declares (or it is open already)")
            opened[name] = _open_new(stage / name)
            return opened[name]

        try:
            write(open_)
            for fh in opened.values():
                fh.flush()
                os.fsync(fh.fileno())
        finally:
            for fh in opened.values():
                with contextlib.suppress(OSError):
                    fh.close()
    return [n for n in output.names() if n in output.files or n in opened]


def _open_new(path: Path) -> IO[bytes]:
    """A new file of the stage, for a streamed output."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644), "wb")


def _write_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(stage: Path, target: Path, files: list[str], retire: tuple[str, ...] = ()) -> None:
    mode = 0o777 & ~_umask()
    if not os.path.lexists(target):
        os.chmod(stage, mode)
        _rename(stage, target)
        return
    if _exchangeable(target):
        others = [e for e in os.listdir(target) if e not in files and e not in retire]
        try:
            for name in others:
                os.link(target / name, stage / name, follow_symlinks=False)
            os.chmod(stage, stat.S_IMODE(os.stat(target).st_mode))
            _exchange(stage, target)
            return
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.EPERM, errno.EMLINK,
                                 errno.ENOTSUP):
                raise
            for name in others:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(stage / name)
    for name in files:     # one by one: each file atomic, the set not
        os.replace(stage / name, target / name)
    for name in retire:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target / name)


def _exchangeable(target: Path) -> bool:
    """A plain folder of plain files (and links) that is not a mount point nor the current directory."""
    try:
        info, parent = os.lstat(target), os.stat(target.parent)
        if not stat.S_ISDIR(info.st_mode) or info.st_dev != parent.st_dev:
            return False
        if os.path.samefile(os.getcwd(), target):
            return False
        return all(stat.S_ISREG(m) or stat.S_ISLNK(m)
                   for m in (os.lstat(target / e).st_mode for e in os.listdir(target)))
    except OSError:
        return False


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders in one step (Linux renameat2 with RENAME_EXCHANGE)."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(b))


def _rename(a: Path, b: Path) -> None:
    os.rename(a, b)


def _settle(stage: Path, target: Path, ours: set[str]) -> None:
    """Remove a stage (or the previous folder swapped out to it): our files and links go, anything
    else goes back into the target; the stage's manifest last."""
    manifest = stage.with_name(stage.name + ".json")
    if os.path.isdir(stage) and not os.path.islink(stage):
        kept = False
        for name in os.listdir(stage):
            path = stage / name
            if name in ours or _same(path, target / name):
                os.unlink(path)
            elif not os.path.lexists(target / name):
                os.rename(path, target / name)   # arrived while we swapped: the user's, keep it
            else:
                kept = True
        if not kept:
            os.rmdir(stage)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(manifest)


def _same(a: Path, b: Path) -> bool:
    try:
        x, y = os.lstat(a), os.lstat(b)
    except OSError:
        return False
    return (x.st_dev, x.st_ino) == (y.st_dev, y.st_ino)


#: Bytes of the folder's name a stage's name keeps: with the tag, the pid, the token and ".json" it stays
#: within the 255 bytes a file name may have.
NAME_KEEP = 200


def _prefix(target: Path) -> str:
    """The start of the names of ``target``'s stages: ``.<folder>.clusterbom-``, the folder's name cut
    (and told apart by a digest of the whole) when a longer one would pass 255 bytes.

    >>> _prefix(Path("/x/out")), len(_prefix(Path("/x/" + "a" * 254)).encode()) < 230
    ('.out.clusterbom-', True)
    """
    name = target.name
    raw = os.fsencode(name)
    if len(raw) > NAME_KEEP:
        cut = raw[:NAME_KEEP - 9].decode("utf-8", "ignore")   # whole characters only
        name = f"{cut}~{hashlib.sha256(raw).hexdigest()[:8]}"
    return f".{name}{TAG}"


def clean_stale(target: Path) -> None:
    """Remove what an interrupted build into ``target`` left beside it (the caller holds the lock)."""
    prefix = _prefix(target)
    for where in dict.fromkeys((target.parent, _stage_dir(target))):
        try:
            entries = [e for e in os.listdir(where) if e.startswith(prefix)]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in entries:
            if name.endswith(".json"):
                continue
            try:
                ours = json.loads((where / (name + ".json")).read_text())
            except (OSError, ValueError):
                ours = []
            _settle(where / name, target, {n for n in ours if isinstance(n, str)})
        for name in entries:
            if name.endswith(".json") and not os.path.lexists(where / name.removesuffix(".json")):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(where / name)


def _sync(folder: Path) -> None:
    """Flush a folder's entries (the rename itself) to disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive flock on ``folder`` itself (no lock file is left behind)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BomError(f"another build has been writing into {folder} for {LOCK_WAIT_S:g} s",
                                   key="--output", hint="Wait for it to finish, or choose another folder.") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


class Terminated(SystemExit):
    """SIGTERM during a write: unwinds like an exception so the stage is removed."""


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise (SIGINT already does), so ``finally`` blocks clean up."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise Terminated(128 + signum)

    saved = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
