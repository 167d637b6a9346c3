"""The results file of a sweep: a header line, then one JSON line per design as it finishes.

A stopped sweep (Ctrl-C, SIGTERM, a lost machine) leaves the designs it finished there; run again, it reads
them back and builds only the rest. The header's fingerprint (the sweep file, the base scenario and the
version) says whether the file belongs to this sweep; the header's date is the day every design is priced
on, so a sweep resumed on another day gives the figures it would have given in one go.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import IO, Any

from bom.errors import BomError
from bom.model.sweep import PointJson

MAGIC = "clusterbom sweep results"


class Journal:
    """The results file, open for appending."""

    def __init__(self, path: Path, fh: IO[str], date: dt.date, done: dict[int, PointJson]) -> None:
        self.path = path
        self.fh = fh
        self.date = date
        self.done = done

    @classmethod
    def open(cls, path: Path, fingerprint: str, points: int, today: dt.date) -> Journal:
        """The file at ``path``, its finished designs read back, or a new one dated ``today``."""
        done: dict[int, PointJson] = {}
        date = today
        if path.exists():
            date, done, good = _read(path, fingerprint, points)
            with open(path, "r+b") as raw:   # a line cut short by a kill is dropped, not appended to
                raw.truncate(good)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            header = {"journal": MAGIC, "fingerprint": fingerprint, "points": points, "date": date.isoformat()}
            path.write_text(json.dumps(header) + "\n", encoding="utf-8")
        return cls(path, open(path, "a", encoding="utf-8"), date, done)

    def append(self, row: PointJson) -> None:
        """One design's record, written whole and flushed (a stop loses at most the designs in flight)."""
        self.fh.write(json.dumps(row, separators=(",", ":")) + "\n")
        self.fh.flush()
        self.done[row["index"]] = row

    def close(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()


def dated(path: Path) -> dt.date | None:
    """The day of the results file at ``path`` (its designs' pricing day), None when there is none."""
    try:
        with open(path, encoding="utf-8") as fh:
            header = json.loads(fh.readline())
        return dt.date.fromisoformat(header["date"]) if header.get("journal") == MAGIC else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _read(path: Path, fingerprint: str, points: int) -> tuple[dt.date, dict[int, PointJson], int]:
    """The header's date, the finished designs and the length of the file's whole lines."""
    data = path.read_bytes()
    lines = data.split(b"\n")
    try:
        header: dict[str, Any] = json.loads(lines[0])
        ok = header.get("journal") == MAGIC
    except ValueError:
        ok = False
    if not ok:
        raise BomError("the file is not a sweep's results file", where=str(path),
                       hint="Write the sweep to another folder (-o DIR), or move the file away.")
    if header.get("fingerprint") != fingerprint or header.get("points") != points:
        raise BomError("the results file is another sweep's (the sweep file, its base scenario or the version "
                       "changed since it was written)", where=str(path),
                       hint="Delete the file to start the sweep over, or write it to another folder (-o DIR).")
    done: dict[int, PointJson] = {}
    good = len(lines[0]) + 1
    for line in lines[1:-1]:   # the last item is what follows the last newline: a cut line, or nothing
        try:
            row = json.loads(line)
        except ValueError:
            break
        done[row["index"]] = row
        good += len(line) + 1
    return dt.date.fromisoformat(header["date"]), done, good
