"""Records for the offline tools: Scrapy feed exports and HTML folders in, same format out.

Readers stream, so a file of a million records is never held in memory:

- JSON lines (``.jsonl``, ``.jl``, ``.ndjson``): one object a line, blank lines ignored;
- a JSON array (``.json``, Scrapy's ``json`` feed): elements are parsed one by one;
- CSV (``.csv``) with a header row;
- a folder of ``.html`` / ``.htm`` files (searched recursively, in path order).

Every :class:`Record` keeps its ``raw`` text exactly as read (line endings included), so a
writer reproduces the kept records byte for byte in the input's format, with the input's byte
order mark and line endings. A malformed record raises :class:`RecordError` naming the file and
line, or is skipped and remembered (``on_error="skip"``). ``-`` reads standard input; a pipe or
any other file that is not a regular one is read once, from its start. Outputs are written
atomically (:class:`AtomicWriter`: a temporary file beside the target, then ``os.replace``), except
to standard output (``-``) and to a device or FIFO, which are written in place.
"""

from __future__ import annotations

import codecs
import csv
import errno
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import IO, Any

FORMATS = ("jsonl", "json", "csv", "html")
ON_ERROR = ("stop", "skip")
HTML_SUFFIXES = (".html", ".htm")
_JSONL_SUFFIXES = (".jsonl", ".jl", ".ndjson")
_MAX_PENDING_CHARS = 256 * 1024 * 1024  # a JSON array element larger than this is an error
_NOT_SPACE = re.compile(r"\S")  # what str.strip() keeps
_NOT_UTF8 = re.compile(r"[\udc80-\udcff]")  # bytes that were not UTF-8 (surrogateescape)
_TOKENS = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|([\[\]{}])|(")')  # strings, brackets
_BOM = b"\xef\xbb\xbf"
_HEAD_BYTES = 4096  # what detect_format looks at
STDIO = "-"  # standard input as an input path, standard output as an output path

_MAX_LINE_BYTES = 256 * 1024 * 1024  # a JSON-lines or CSV line longer than this is an error
_MAX_TEXT_DEPTH = 8  # nested lists and objects deeper than this give no text (as in the crawl)
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: A JSON value nested deeper than Python's JSON reader goes (about the recursion limit).
TOO_DEEP = f"JSON nested too deeply (more than about {sys.getrecursionlimit()} levels)"

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # feed exports carry whole pages in a field


class RecordError(ValueError):
    """A record that cannot be read: ``path:line: message``. ``skippable`` is False for faults
    of the whole file (no array, a bad CSV header ...), which ``on_error="skip"`` cannot skip."""

    def __init__(self, path: str | os.PathLike, line: int | None, message: str, *,
                 skippable: bool = True) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        self.skippable = skippable
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Record:
    """One input record: its 1-based ``number``, the ``line`` it starts on, parsed ``data``
    (a dict; for an HTML folder ``{"path": relative path, "html": bytes}``) and ``raw`` text
    (a JSON or CSV line keeps its line ending; a JSON array element is the element alone)."""

    number: int
    line: int
    data: dict[str, Any]
    raw: str


@dataclass
class RecordReader:
    """Iterate over the records of ``path`` (``-``: standard input); ``fmt`` is guessed from the
    name when None, else from the first bytes.

    ``bytes_read`` / ``total_bytes`` (files read for a folder; 0 when unknown, for a stream)
    drive a progress bar; ``skipped`` holds the :class:`RecordError` of each record left out
    under ``on_error="skip"``. ``name`` is the path for messages (``<stdin>`` for ``-``);
    ``bom`` and ``newline`` (of the first line) tell a writer how the input was written. A
    regular file may be read again; a stream (standard input, a pipe) is read once.
    """

    path: Path
    fmt: str | None = None
    on_error: str = "stop"
    skipped: list[RecordError] = field(default_factory=list)
    bytes_read: int = 0
    total_bytes: int = 0
    fieldnames: list[str] | None = None
    header_raw: str = ""
    bom: bool = False
    newline: str = "\n"
    name: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        stdin = str(self.path) == STDIO
        self.name = "<stdin>" if stdin else str(self.path)
        self._head: bytes | None = None  # bytes read from a stream to tell its format
        self._content = False  # whether a line with more than blanks was read
        self._stream: IO[bytes] | None = None  # that stream, opened once
        if self.on_error not in ON_ERROR:
            allowed = ", ".join(ON_ERROR)
            raise ValueError(f"on_error must be one of {allowed}; got {self.on_error!r}")
        if not stdin and not self.path.exists():
            raise FileNotFoundError(f"{self.name}: no such file or directory")
        self._regular = not stdin and (self.path.is_file() or self.path.is_dir())
        if self.fmt is None:
            if self._regular:
                self.fmt = detect_format(self.path)
            else:  # a pipe is read once: the bytes that tell the format are kept for the reader
                self.fmt = _format_from_name(self.path)
                if self.fmt is None:
                    self._stream = self._open_stream()
                    self._head = _read_head(self._stream)
                    self.fmt = detect_format(self.path, self._head, self.name)
        if self.fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {self.fmt!r}")
        if (self.fmt == "html") != self.path.is_dir():
            kind = "a folder" if self.fmt == "html" else "a file"
            raise ValueError(f"{self.name}: format {self.fmt} needs {kind}")
        if self.fmt == "html":
            self._files = html_files(self.path)
            self.total_bytes = len(self._files)
        elif self._regular:
            self.total_bytes = self.path.stat().st_size

    def _open_stream(self) -> IO[bytes]:
        if str(self.path) == STDIO:
            return open(sys.stdin.fileno(), "rb", closefd=False)
        return self.path.open("rb")

    def _open(self) -> IO[bytes]:
        """The input's bytes from the start: a regular file opened anew, a stream once."""
        if self._regular:
            return self.path.open("rb")
        stream, self._stream = self._stream or self._open_stream(), None
        if self._head is None:
            return stream
        head, self._head = self._head, None
        return io.BufferedReader(_Prefixed(head, stream))

    def __iter__(self) -> Iterator[Record]:
        readers = {"jsonl": self._jsonl, "json": self._json_array, "csv": self._csv,
                   "html": self._html}
        return readers[self.fmt](self._numbered())  # type: ignore[index]

    # -- helpers ------------------------------------------------------------------------------

    def _numbered(self) -> Iterator[int]:
        number = 0
        while True:
            number += 1
            yield number

    def _fail(self, line: int | None, message: str) -> None:
        error = RecordError(self.name, line, message)
        if self.on_error == "stop":
            raise error
        self.skipped.append(error)

    def _lines(
        self, stream: IO[bytes], max_bytes: int | None = None
    ) -> Iterator[tuple[int, str | None, bytes]]:
        """(line number, text or None when not UTF-8, raw bytes); a leading BOM is dropped (and
        remembered in ``bom``), the first line's ending kept in ``newline``. A file in UTF-16
        or UTF-32 (by its byte-order mark), and a line over ``max_bytes``, stop the run."""
        limit = -1 if max_bytes is None else max_bytes + 1
        number = 0
        while data := stream.readline(limit):
            number += 1
            self.bytes_read += len(data)
            if number == 1:
                if data.startswith(_WIDE_BOMS):
                    raise RecordError(self.name, None, "the file is UTF-16 or UTF-32 (by its "
                                      "byte-order mark); only UTF-8 is read: convert it first",
                                      skippable=False)
                if data.startswith(_BOM):
                    data = data[len(_BOM) :]
                    self.bom = True
                self.newline = "\r\n" if data.endswith(b"\r\n") else "\n"
            if max_bytes is not None and len(data) > max_bytes and not data.endswith(b"\n"):
                raise RecordError(self.name, number, f"line longer than {max_bytes >> 20} MiB",
                                  skippable=False)
            if not self._content and not data.isspace():
                self._content = True
            try:
                yield number, data.decode("utf-8"), data
            except UnicodeDecodeError:
                yield number, None, data

    # -- formats ------------------------------------------------------------------------------

    def _jsonl(self, numbers: Iterator[int]) -> Iterator[Record]:
        with self._open() as stream:
            for line, raw, _ in self._lines(stream, _MAX_LINE_BYTES):
                if raw is None:
                    self._fail(line, "not valid UTF-8")
                    continue
                text = raw.rstrip("\r\n")
                if not text or text.isspace():
                    continue
                try:
                    data = _json_line(text)
                except json.JSONDecodeError as error:
                    self._fail(line, f"malformed JSON ({error.msg}, column {error.colno})")
                    continue
                except RecursionError:
                    self._fail(line, TOO_DEEP)
                    continue
                if not isinstance(data, dict):
                    self._fail(line, f"expected a JSON object, found {type(data).__name__}")
                    continue
                yield Record(next(numbers), line, data, raw)

    def _json_array(self, numbers: Iterator[int]) -> Iterator[Record]:
        """Elements of a top-level array, parsed as whole lines arrive (Scrapy writes one item
        a line; pretty-printed arrays work too). An element that spans lines is decoded again
        only when its brackets close (:class:`_Brackets`) or its text has doubled, so its cost
        stays linear. A malformed element, or one with bytes that are not UTF-8, is one error
        (see :meth:`_drop_malformed` for where reading resumes)."""
        decoder = json.JSONDecoder()
        buffer = _Pending()
        brackets: _Brackets | None = None  # of the element waiting for more lines
        tried = 0  # the pending size when that element was last decoded
        skipping: _Brackets | None = None  # of a dropped element that is not UTF-8
        state = "open"  # open -> first -> (value -> comma)* -> closed
        with self._open() as stream:
            for item in chain(self._lines(stream), [None]):  # None: the end of the file
                if item is not None:
                    line, text, data = item
                    bad = text is None  # then kept as surrogates: the brackets stay readable
                    text = data.decode("utf-8", "surrogateescape") if text is None else text
                    if skipping is not None:
                        close = skipping.scan(text)
                        if close is None:
                            continue
                        skipping = None
                        if close < 0:
                            continue  # the brackets do not match: resume at the next line
                        text, state = text[close:], "comma"
                    buffer.add(line, text, bad)
                    if (
                        brackets is not None
                        and brackets.scan(buffer.last) is None
                        and buffer.size < min(2 * tried, _MAX_PENDING_CHARS + 1)
                    ):
                        continue  # the element goes on
                buffer.join()
                while buffer.skip_space():
                    head, where = buffer.text[buffer.pos], buffer.line
                    if state in ("open", "comma", "closed") and _NOT_UTF8.match(head):
                        self._fail(where, "not valid UTF-8")  # around the elements
                        buffer.drop_line(buffer.pos)
                        state = "value" if state == "comma" else state
                    elif state == "open":
                        if head != "[":
                            raise RecordError(self.name, where, "expected a JSON array '['",
                                              skippable=False)
                        buffer.consume(buffer.pos + 1)
                        state = "first"
                    elif state == "closed":
                        raise RecordError(self.name, where, "text after the closing ']'",
                                          skippable=False)
                    elif head == "]" and state in ("first", "comma"):
                        buffer.consume(buffer.pos + 1)
                        state = "closed"
                    elif state == "comma":
                        if head != ",":
                            self._fail(where, "expected ',' or ']' between elements")
                            buffer.drop_line(buffer.pos)
                            state = "value"
                            continue
                        buffer.consume(buffer.pos + 1)
                        state = "value"
                    else:
                        try:
                            value, end = decoder.raw_decode(buffer.text, buffer.pos)
                        except RecursionError:
                            brackets = None
                            state, skipping = self._drop_too_deep(buffer)
                            continue
                        except json.JSONDecodeError as error:
                            if not _incomplete(error, buffer.text):
                                brackets = None
                                state, skipping = self._drop_malformed(buffer, error)
                                continue
                            if item is None:
                                self._fail(where, "truncated JSON element at the end of the file")
                                return
                            if buffer.size > _MAX_PENDING_CHARS:
                                raise RecordError(
                                    self.name, where, "JSON element too large", skippable=False
                                ) from None
                            if brackets is None:
                                brackets = _Brackets()
                                brackets.scan(buffer.text, buffer.pos)
                            tried = buffer.size
                            break  # wait for more lines
                        brackets = None
                        bad = buffer.bad_at(end)
                        bad_line = buffer.line_at(bad) if bad >= 0 else 0
                        raw = buffer.consume(end)
                        state = "comma"
                        if bad_line:
                            self._fail(bad_line, "not valid UTF-8")
                        elif not isinstance(value, dict):
                            kind = type(value).__name__
                            self._fail(where, f"expected a JSON object, found {kind}")
                        else:
                            yield Record(next(numbers), where, value, raw)
        if state == "open" and not self._content:  # the feed of a crawl that yielded nothing
            return
        if state == "open":
            raise RecordError(self.name, None, "expected a JSON array '['", skippable=False)
        if state != "closed":  # e.g. the feed of a crawl that was killed: its elements are whole
            self._fail(None, "JSON array is not closed with ']' (the file ends early)")

    def _drop_malformed(
        self, buffer: _Pending, error: json.JSONDecodeError
    ) -> tuple[str, _Brackets | None]:
        """Report the malformed element at ``buffer.pos`` (at its first bytes that are not
        UTF-8, else at the error) and drop it; the next state, and brackets to skip lines with.

        - Its brackets close on a later line than the fault: dropped through them ("comma").
        - They are still open, the error is at bytes that are not UTF-8 (the brackets are
          sound) and the element began on an earlier line: dropped, and the brackets returned
          to skip the lines up to its end.
        - Else (a one-line element, or brackets that a quote left out may have fooled), dropped
          through the line of the fault ("value"): reading resumes at the next line.
        """
        bad = buffer.bad_at(error.pos + 1)
        at = error.pos if bad < 0 else bad
        self._fail(
            buffer.line_at(at), "not valid UTF-8" if bad >= 0 else f"malformed JSON ({error.msg})"
        )
        text, start = buffer.text, buffer.pos
        brackets = _Brackets()
        close = brackets.scan(text, start) if text[start] in "[{" else -1
        if close is None and bad == error.pos and text.find("\n", start, bad) >= 0:
            buffer.consume(len(text))
            return "value", brackets
        if close is not None and close > 0 and text.find("\n", at, close) >= 0:
            buffer.consume(close)
            return "comma", None
        buffer.drop_line(at)
        return "value", None

    def _drop_too_deep(self, buffer: _Pending) -> tuple[str, _Brackets | None]:
        """Report the element at ``buffer.pos`` as nested too deeply and drop it, through its
        closing bracket (on a later line: the brackets returned to skip lines with), else
        through its line; the next state, as :meth:`_drop_malformed` gives it."""
        self._fail(buffer.line, TOO_DEEP)
        text, start = buffer.text, buffer.pos
        brackets = _Brackets()
        close = brackets.scan(text, start)
        if close is None:
            buffer.consume(len(text))
            return "value", brackets
        if close > 0:
            buffer.consume(close)
            return "comma", None
        buffer.drop_line(start)
        return "value", None

    def _csv(self, numbers: Iterator[int]) -> Iterator[Record]:
        with self._open() as stream:
            source = _CsvSource(self._lines(stream, _MAX_LINE_BYTES))
            reader = csv.reader(source)
            try:
                header = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise RecordError(self.name, 1, f"malformed CSV header ({error})",
                                  skippable=False) from None
            if source.undecodable:
                raise RecordError(self.name, 1, "header is not valid UTF-8", skippable=False)
            self.fieldnames = header
            self.header_raw = source.take()
            while True:
                first_line = source.line + 1
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except csv.Error as error:
                    source.take()
                    self._fail(first_line, f"malformed CSV ({error})")
                    continue
                undecodable = source.undecodable  # (take() starts the next record afresh)
                raw = source.take()
                if undecodable:
                    self._fail(first_line, "not valid UTF-8")
                    continue
                if raw.count('"') % 2 and _ends_inside_quotes(raw):  # (only at the end)
                    self._fail(first_line, "malformed CSV (a quoted field is never closed: it "
                                           "runs to the end of the file)")
                    continue
                if not row:
                    continue
                if len(row) != len(header):
                    self._fail(first_line, f"expected {len(header)} columns, found {len(row)}")
                    continue
                yield Record(next(numbers), first_line, dict(zip(header, row, strict=True)), raw)

    def _html(self, numbers: Iterator[int]) -> Iterator[Record]:
        for relative in self._files:
            self.bytes_read += 1
            try:
                html = (self.path / relative).read_bytes()
            except OSError as error:
                self._fail(None, f"{relative}: {error.strerror or error}")
                continue
            yield Record(next(numbers), 1, {"path": relative, "html": html}, relative)


def _ends_inside_quotes(raw: str) -> bool:
    """Whether a CSV record's raw text (the excel dialect ``csv.reader`` reads) ends inside a
    quoted field. That happens only at the end of the input, where the reader, lenient, takes
    the rest of the file into that field instead of raising."""
    quoted, field_start, at, end = False, True, 0, len(raw)
    while at < end:
        char = raw[at]
        if quoted:
            if char == '"':
                if raw.startswith('"', at + 1):  # a doubled quote: one quote in the field
                    at += 1
                else:
                    quoted = False
        elif char == '"' and field_start:
            quoted = True
        field_start = not quoted and char in ",\r\n"
        at += 1
    return quoted


class _CsvSource:
    """Lines for ``csv.reader`` that remembers the raw text of the current record."""

    def __init__(self, lines: Iterator[tuple[int, str | None, bytes]]) -> None:
        self._lines = lines
        self._raw: list[str] = []
        self.line = 0
        self.undecodable = False

    def __iter__(self) -> _CsvSource:
        return self

    def __next__(self) -> str:
        number, text, data = next(self._lines)
        self.line = number
        if text is None:
            self.undecodable = True
            text = data.decode("utf-8", "replace")
        self._raw.append(text)
        return text

    def take(self) -> str:
        """The raw text read since the last call (the record's physical lines)."""
        raw = "".join(self._raw)
        self._raw.clear()
        self.undecodable = False
        return raw


class _Pending:
    """Text not parsed yet: ``text`` from ``pos`` (on line ``line``), then the lines added since
    the last ``join`` (joined only when needed: appending each line of a long element to one
    string would copy it again every line)."""

    def __init__(self) -> None:
        self.text = ""
        self.pos = 0
        self.line = 0
        self.size = 0  # characters from pos, added lines included
        self.bad = False  # holds a line that is not UTF-8 (its bytes as surrogates)
        self._added: list[str] = []

    @property
    def last(self) -> str:
        """The line added last."""
        return self._added[-1]

    def add(self, line: int, text: str, bad: bool = False) -> None:
        """Queue line number ``line``; ``bad`` when it was not UTF-8."""
        if not self.size:
            self.text, self.pos, self.line, self.bad = "", 0, line, False
        self._added.append(text)
        self.size += len(text)
        self.bad = self.bad or bad

    def join(self) -> None:
        """Append the queued lines to ``text``, which then starts at ``pos`` 0."""
        if self._added:
            rest = self.text[self.pos :] if self.pos < len(self.text) else ""
            self.text = rest + "".join(self._added)
            self.pos = 0
            self._added.clear()

    def consume(self, end: int) -> str:
        """Move ``pos`` to ``end`` (joined text); the text passed over."""
        taken = self.text[self.pos : end]
        self.line += taken.count("\n")
        self.size -= len(taken)
        self.pos = end
        return taken

    def drop_line(self, at: int) -> None:
        """Drop the text through the end of the line that holds ``at``."""
        end = self.text.find("\n", at)
        self.consume(len(self.text) if end < 0 else end + 1)

    def skip_space(self) -> bool:
        """Drop leading white space; True when text remains."""
        found = _NOT_SPACE.search(self.text, self.pos)
        end = len(self.text) if found is None else found.start()
        if end > self.pos:
            self.consume(end)
        return found is not None

    def bad_at(self, end: int) -> int:
        """Where the first character from ``pos`` to ``end`` that is not UTF-8 is, else -1."""
        found = _NOT_UTF8.search(self.text, self.pos, end) if self.bad else None
        return -1 if found is None else found.start()

    def line_at(self, index: int) -> int:
        """The line number of ``text[index]``."""
        return self.line + self.text.count("\n", self.pos, index)


class _Brackets:
    """The brackets left open by a JSON value read line by line, so that it is decoded only
    once they close. A JSON string cannot span lines: one left open breaks the value."""

    def __init__(self) -> None:
        self.closers: list[str] = []

    def scan(self, text: str, start: int = 0) -> int | None:
        """Scan ``text`` from ``start``: the index just past the bracket that closes the value,
        -1 when the text breaks it (a string left open, a bracket that does not match), None
        when the value goes on."""
        for match in _TOKENS.finditer(text, start):
            kind = match.lastindex  # None: a whole string; 1: a bracket; 2: an open string
            if kind is None:
                continue
            if kind == 2:
                return -1
            bracket = match.group(1)
            if bracket in "[{":
                self.closers.append("]" if bracket == "[" else "}")
            elif not self.closers or self.closers.pop() != bracket:
                return -1
            elif not self.closers:
                return match.end()
        return None


def _incomplete(error: json.JSONDecodeError, text: str) -> bool:
    """True when ``text`` (whole lines) may become valid with more lines after it.

    A JSON string cannot span a line, so an unterminated string is malformed, not incomplete;
    any other error at the very end of the text only means the value goes on.
    """
    if error.msg.startswith(("Unterminated string", "Invalid control character")):
        return False
    return not text[error.pos :].strip()


def _format_from_name(path: Path) -> str | None:
    suffix = path.suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    return None


def detect_format(path: Path, head: bytes | None = None, name: str | None = None) -> str:
    """``jsonl``, ``json``, ``csv`` or ``html`` from the name, else from the first character
    (of ``head`` when given: the first bytes of a stream, which cannot be read twice)."""
    if head is None and path.is_dir():
        return "html"
    found = _format_from_name(path)
    if found is not None:
        return found
    if head is None:
        with path.open("rb") as stream:
            head = stream.read(_HEAD_BYTES)
    head = head.lstrip(_BOM + b" \t\r\n")
    if head.startswith(b"["):
        return "json"
    if head.startswith(b"{"):
        return "jsonl"
    if path.suffix.lower() == ".json":
        return "json"
    allowed = ", ".join(FORMATS)
    raise ValueError(f"{name or path}: cannot tell the format; name it with --format ({allowed})")


def _read_head(stream: IO[bytes]) -> bytes:
    """The first bytes of a stream, up to its first one that is not white space (or a BOM),
    at most ``_HEAD_BYTES``; without waiting for more than the writer has sent."""
    head = b""
    while len(head) < _HEAD_BYTES:
        chunk = stream.read1(_HEAD_BYTES - len(head))  # type: ignore[attr-defined]
        if not chunk:
            break
        head += chunk
        if head.lstrip(_BOM + b" \t\r\n"):
            break
    return head


class _Prefixed(io.RawIOBase):
    """The bytes already read from a stream, then the rest of the stream."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        data = self._stream.read1(len(buffer))  # type: ignore[attr-defined]
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._stream.close()
        super().close()


def html_files(folder: Path) -> list[str]:
    """Relative POSIX paths of the HTML files under ``folder``, sorted."""
    found = [
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.suffix.lower() in HTML_SUFFIXES and path.is_file()
    ]
    return sorted(found)


# -- fields -------------------------------------------------------------------------------------


class UnknownField(KeyError):
    """A field name that the record does not have."""

    def __str__(self) -> str:
        return str(self.args[0])


def field_value(data: dict[str, Any], name: str) -> Any:
    """``data[name]``, or a dotted path into nested objects (``meta.title``)."""
    if name in data:
        return data[name]
    value: Any = data
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise UnknownField(name)
        value = value[part]
    return value


def as_text(value: Any, depth: int = 0) -> str:
    """A field value as text: lists joined by newlines, None as empty; lists and objects
    nested deeper than the crawl's item pipeline reads give nothing."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list | tuple | dict):
        if depth >= _MAX_TEXT_DEPTH:
            return ""
        parts = value.values() if isinstance(value, dict) else value
        return "\n".join(text for part in parts if (text := as_text(part, depth + 1)))
    return str(value)


def record_text(record: Record, fields: list[str], absent: list[str] | None = None) -> str:
    """The named fields' text joined by newlines, those the record lacks left out (Scrapy's
    exports leave unset fields out), as the item pipeline joins an item's; their names are
    appended to ``absent``. :class:`UnknownField` when the record has none of them."""
    parts, lacking = [], []
    for name in fields:
        try:
            parts.append(as_text(field_value(record.data, name)))
        except UnknownField:
            lacking.append(name)
    if absent is not None:
        absent.extend(lacking)
    if lacking and not parts:
        raise UnknownField(lacking[0])
    return "\n".join(parts)


# -- writing ------------------------------------------------------------------------------------


class AtomicWriter:
    """A text file that appears at ``path`` only when the ``with`` block succeeds.

    Data goes to a temporary file in the same folder, which replaces ``path`` on success
    (``os.replace``, after ``fsync``) and is removed on failure: readers never see half a file.
    A file replaced keeps its permissions (a new one gets the umask's). A symbolic link is
    followed: its target is replaced, the link stays. What cannot be
    replaced is written in place: ``-`` (standard output) and an existing file that is not a
    regular one (a device, a FIFO). A folder is refused (:class:`IsADirectoryError`).
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._stream: IO[str] | None = None
        self._temp: str | None = None
        self._target: Path | None = None
        self._mode: int | None = None  # the permissions of the file replaced, if any
        self._prepared = False

    def prepare(self) -> None:
        """Put what was written on disk now (flush, ``fsync``), short of putting the file in
        place: a write that fails (a full disk) fails here, while the caller can still undo what
        goes with the file (an index's transaction). The file is put in place on exit."""
        assert self._stream is not None
        try:
            self._stream.flush()
            if self._temp is not None:
                os.fsync(self._stream.fileno())
        except OSError as error:
            raise self._named(error) from error
        self._prepared = True

    def _named(self, error: OSError) -> OSError:
        """``error`` naming the file the caller asked for, not the temporary one (or none)."""
        if error.filename in (None, self._temp):
            return type(error)(error.errno, error.strerror, str(self.path))
        return error

    def _open_text(self, file: int | str | os.PathLike, closefd: bool = True) -> IO[str]:
        return open(
            file, "w", encoding="utf-8", errors="surrogateescape", newline="", closefd=closefd
        )

    def __enter__(self) -> IO[str]:
        if str(self.path) == STDIO:
            self._stream = self._open_text(sys.stdout.fileno(), closefd=False)
            return self._stream
        target = Path(os.path.realpath(self.path))
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a folder; name a file to write",
                                    str(self.path))
        if target.exists() and not target.is_file():  # a device, a FIFO: written in place
            self._stream = self._open_text(target)
            return self._stream
        folder = target.parent
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder for {target.name}")
        self._mode = target.stat().st_mode & 0o777 if target.exists() else None
        try:
            handle, self._temp = tempfile.mkstemp(
                prefix=f".{target.name}.", suffix=".tmp", dir=folder
            )
        except OSError as error:  # an unwritable folder, say: named as the output
            raise self._named(error) from error
        self._target = target
        self._stream = self._open_text(handle)
        return self._stream

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._stream is not None
        if self._temp is None:  # written in place
            self._stream.close()  # flushes (even after a failure: what was written stays)
            return
        try:
            if exc_type is None and not self._prepared:
                self.prepare()
            self._stream.close()
            if exc_type is None:  # an existing file keeps its permissions
                os.chmod(self._temp, 0o666 & ~_umask() if self._mode is None else self._mode)
                assert self._target is not None
                os.replace(self._temp, self._target)
        finally:
            if os.path.exists(self._temp):
                os.unlink(self._temp)


_SCAN_ONCE = json.JSONDecoder().scan_once


def _json_line(raw: str) -> Any:
    """``json.loads(raw)``, calling the C scanner directly when the line starts with its value
    and holds nothing after it; anything else goes through ``json.loads`` (same value, same
    error). Saves about a third of the parse of a short line."""
    try:
        value, end = _SCAN_ONCE(raw, 0)
    except StopIteration:  # leading space, or not a value: json.loads says which
        return json.loads(raw)
    return value if end == len(raw) else json.loads(raw)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class RecordWriter:
    """Writes records in the reader's format: raw JSON lines, a JSON array, CSV under the input's
    header, or for an HTML folder the kept files' relative paths, one a line."""

    def __init__(self, stream: IO[str], reader: RecordReader) -> None:
        self.stream = stream
        self.reader = reader
        self.count = 0
        self._started = False

    def _start(self) -> None:
        self._started = True
        fmt = self.reader.fmt
        if self.reader.bom and fmt != "html":
            self.stream.write("\ufeff")
        if fmt == "json":
            self.stream.write("[")
        elif fmt == "csv" and self.reader.header_raw:
            self.stream.write(_ended(self.reader.header_raw, self._newline))

    @property
    def _newline(self) -> str:
        """The input's line ending (of its first line), for the lines the writer adds."""
        return self.reader.newline

    def write(self, record: Record) -> None:
        if not self._started:
            self._start()
        fmt = self.reader.fmt
        if fmt == "json":
            self.stream.write(("" if self.count == 0 else ",") + self._newline + record.raw)
        elif fmt in ("csv", "jsonl"):
            self.stream.write(_ended(record.raw, self._newline))
        else:
            self.stream.write(record.raw + "\n")
        self.count += 1

    def close(self) -> None:
        """Finish the output (a CSV header or JSON brackets even when nothing was kept)."""
        if not self._started:
            self._start()
        if self.reader.fmt == "json":
            newline = self._newline
            self.stream.write(f"{newline}]{newline}" if self.count else f"]{newline}")


def _ended(raw: str, newline: str) -> str:
    return raw if raw.endswith("\n") else raw + newline
