"""Reading input files safely, and YAML loading that remembers where every key stands.

Every file the user names (scenarios, catalog overlays, price files) is read by
:func:`read_input`: a regular file only (a FIFO, a device or a symlink to one is refused
without blocking), at most ``MAX_BYTES``, UTF-8 with or without a byte-order mark, no NUL.
YAML is checked event by event before it is composed (size, depth) and while it is built
(alias expansion, tags, keys), so an alias bomb or a recursive alias is refused before it grows.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bom.errors import BomError

Path_ = tuple[str | int, ...]
# libyaml's composer is ~10x faster than the pure-Python one and keeps the line marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: The largest input file we read (the biggest built-in catalog file is about 20 kB).
MAX_BYTES = 2 * 1024 * 1024
#: YAML events (scalars, starts and ends of lists and mappings) one file may hold.
MAX_EVENTS = 100_000
#: Values one document may expand to once aliases are followed (a "billion laughs" stops here).
MAX_NODES = 100_000
#: How deeply lists and mappings may nest.
MAX_DEPTH = 64
#: Digits a YAML integer may have (a 5,000-digit integer is refused, not converted).
MAX_DIGITS = 30
#: YAML 1.1 forms of numbers that do not read as written: a leading zero (010 is octal 8) and base 60
#: (1:30 is 90). PyYAML follows YAML 1.1; they are refused, not read silently.
_LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")
_BASE_60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp", "map", "seq")}


def read_input(path: Path, what: str = "file", limit: int = MAX_BYTES) -> str:
    """The text of the regular file at ``path``; ``what`` ("scenario", "price file") names it in errors;
    ``limit``: its largest size in bytes."""
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise BomError(f"no such {what}", where=where, hint=f"Give the path of a {what}.") from None
    except OSError as exc:
        raise BomError(f"cannot read the {what}: {exc.strerror}", where=where) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BomError(f"the {what} is not a regular file (a folder, pipe or device)", where=where,
                           hint=f"Give the path of a {what} saved on disk.")
        if info.st_size > limit:
            raise BomError(f"the {what} is {info.st_size:,} bytes; the limit is {limit:,}", where=where)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise BomError(f"cannot read the {what}: {exc.strerror}", where=where) from None
    finally:
        os.close(fd)
    if size > limit:
        raise BomError(f"the {what} is larger than the limit of {limit:,} bytes", where=where)
    return decode(b"".join(chunks), where, what)


def decode(data: bytes, where: str, what: str = "file") -> str:
    """UTF-8 text (a leading byte-order mark, as Excel writes, is dropped); NUL bytes refused."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise BomError(f"the {what} holds a NUL byte, so it is not a text file", where=f"{where}:{line}",
                       hint="Save it as UTF-8 text.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BomError(f"the {what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                       where=f"{where}:{line}", hint="Save it as UTF-8 (Excel: CSV UTF-8).") from None


@dataclass
class Located:
    """Parsed YAML data plus the line (1-based) of every key and list item by its path."""

    data: Any
    file: str
    lines: dict[Path_, int] = field(default_factory=dict)

    def where(self, path: Path_) -> str:
        """"file:line" of the deepest known prefix of ``path``."""
        for n in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return f"{self.file}:{line}"
        return self.file


@dataclass
class _Builder:
    out: Located
    ctor: yaml.constructor.SafeConstructor
    nodes: int = 0
    active: set[int] = field(default_factory=set)

    def at(self, node: yaml.Node) -> str:
        return f"{self.out.file}:{node.start_mark.line + 1}"

    def key(self, path: Path_) -> str | None:
        return ".".join(str(p) for p in path) or None

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise BomError(f"the document expands to more than {MAX_NODES:,} values (aliases repeat what "
                           "they point at)", where=self.at(node), key=self.key(path),
                           hint="Write the values out, or use fewer aliases.")
        if id(node) in self.active:
            raise BomError("a recursive alias (a value that contains itself)", where=self.at(node),
                           key=self.key(path))
        if node.tag not in _TAGS:
            raise BomError(f"the YAML tag {node.tag!r} is not supported", where=self.at(node),
                           key=self.key(path), hint="Remove the tag; write plain values.")
        self.out.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node, path)
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        finally:
            self.active.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        plain = not node.style   # None from PyYAML, "" from libyaml
        if plain and _LEADING_ZERO.fullmatch(node.value):
            digits = node.value.replace("_", "")
            read = f"octal {int(digits, 8)}" if set(digits.lstrip("+-")) <= set("01234567") else "a text"
            raise BomError(f"the number {node.value} starts with 0: YAML 1.1 reads it as {read}, not "
                           f"{int(digits)}", where=self.at(node), key=self.key(path),
                           hint="Write it without the leading zero, or quote it if it is a name.")
        if plain and _BASE_60.fullmatch(node.value):
            raise BomError(f"{node.value} is a base-60 number in YAML 1.1 (1:30 reads as 90)", where=self.at(node),
                           key=self.key(path), hint="Write the number itself, or quote it if it is a text.")
        if node.tag.endswith(":int") and sum(c.isdigit() for c in node.value) > MAX_DIGITS:
            raise BomError(f"an integer of {sum(c.isdigit() for c in node.value):,} digits is out of range",
                           where=self.at(node), key=self.key(path))
        try:
            return self.ctor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError, TypeError) as exc:
            raise BomError(f"cannot read the value {node.value[:60]!r} ({exc})", where=self.at(node),
                           key=self.key(path)) from None

    def mapping(self, node: yaml.MappingNode, path: Path_) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                    isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.style is None):
                raise BomError("YAML merge keys (<<) are not supported", where=self.at(key_node),
                               key=self.key(path), hint="Write the keys out.")
            if not isinstance(key_node, yaml.ScalarNode):
                raise BomError("a key must be a plain name, not a list or a mapping", where=self.at(key_node),
                               key=self.key(path))
            key = self.build(key_node, path + ("<key>",))
            if key in result:
                raise BomError(f"duplicate key {key!r}", where=self.at(key_node), key=self.key(path),
                               hint="Each key may appear once; remove or rename one.")
            self.out.lines[path + (key,)] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, path + (key,))
        self.out.lines.pop(path + ("<key>",), None)
        return result


def _line(event: yaml.Event) -> int:
    """The 1-based line an event starts on (a parsed event always has its mark)."""
    return event.start_mark.line + 1 if event.start_mark is not None else 0


def _precheck(text: str, file: str) -> None:
    """Count events and nesting before composing, so a huge or deep document costs nothing."""
    depth = 0
    for n, event in enumerate(yaml.parse(text, Loader=_LOADER)):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise BomError(f"lists and mappings nest more than {MAX_DEPTH} deep",
                               where=f"{file}:{_line(event)}")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.DocumentStartEvent) and n > 2:
            raise BomError("a file holds one YAML document", where=f"{file}:{_line(event)}")
        if n > MAX_EVENTS:
            raise BomError(f"the document has more than {MAX_EVENTS:,} values",
                           where=f"{file}:{_line(event)}")


def load_text(text: str, file: str) -> Located:
    """Parse YAML ``text``; ``file`` names it in errors."""
    out = Located(None, file)
    try:
        _precheck(text, file)
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{file}:{mark.line + 1}" if mark else file
        problem = getattr(exc, "problem", None) or str(exc)
        raise BomError(f"not valid YAML: {problem}", where=where) from None
    if node is not None:
        out.data = _Builder(out, yaml.constructor.SafeConstructor()).build(node, ())
    return out


def load_file(path: Path, what: str = "file") -> Located:
    """Read and parse the YAML file at ``path``."""
    return load_text(read_input(path, what), str(path))
