"""Records for the offline tools: Scrapy feed exports and HTML folders in, same format out.

Readers stream, so a file of a million records is never held in memory:

- JSON lines (``.jsonl``, ``.jl``, ``.ndjson``): one object a line, blank lines ignored;
- a JSON array (``.json``, Scrapy's ``json`` feed): elements are parsed one by one;
- CSV (``.csv``) with a header row;
- a folder of ``.html`` / ``.htm`` files (searched recursively, in path order).

Every :class:`Record` keeps its ``raw`` text exactly as read, so a writer reproduces the kept
records byte for byte in the input's format. A malformed record raises :class:`RecordError`
naming the file and line, or is skipped and remembered (``on_error="skip"``). Outputs are written
atomically (:class:`AtomicWriter`: a temporary file beside the target, then ``os.replace``).
"""

from __future__ import annotations

import csv
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

FORMATS = ("jsonl", "json", "csv", "html")
ON_ERROR = ("stop", "skip")
HTML_SUFFIXES = (".html", ".htm")
_JSONL_SUFFIXES = (".jsonl", ".jl", ".ndjson")
_MAX_PENDING_CHARS = 256 * 1024 * 1024  # a JSON array element larger than this is an error

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # feed exports carry whole pages in a field


class RecordError(ValueError):
    """A record that cannot be read: ``path:line: message``."""

    def __init__(self, path: str | os.PathLike, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True)
class Record:
    """One input record: its 1-based ``number``, the ``line`` it starts on, parsed ``data``
    (a dict; for an HTML folder ``{"path": relative path, "html": bytes}``) and ``raw`` text."""

    number: int
    line: int
    data: dict[str, Any]
    raw: str


@dataclass
class RecordReader:
    """Iterate over the records of ``path``; ``fmt`` is guessed from the name when None.

    ``bytes_read`` / ``total_bytes`` (files read for a folder) drive a progress bar; ``skipped``
    holds the :class:`RecordError` of each record left out under ``on_error="skip"``.
    """

    path: Path
    fmt: str | None = None
    on_error: str = "stop"
    skipped: list[RecordError] = field(default_factory=list)
    bytes_read: int = 0
    total_bytes: int = 0
    fieldnames: list[str] | None = None
    header_raw: str = ""

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if self.on_error not in ON_ERROR:
            allowed = ", ".join(ON_ERROR)
            raise ValueError(f"on_error must be one of {allowed}; got {self.on_error!r}")
        if not self.path.exists():
            raise FileNotFoundError(f"{self.path}: no such file or directory")
        self.fmt = self.fmt or detect_format(self.path)
        if self.fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {self.fmt!r}")
        if (self.fmt == "html") != self.path.is_dir():
            kind = "a folder" if self.fmt == "html" else "a file"
            raise ValueError(f"{self.path}: format {self.fmt} needs {kind}")
        if self.fmt == "html":
            self._files = html_files(self.path)
            self.total_bytes = len(self._files)
        else:
            self.total_bytes = self.path.stat().st_size

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
        error = RecordError(self.path, line, message)
        if self.on_error == "stop":
            raise error
        self.skipped.append(error)

    def _lines(self, stream: IO[bytes]) -> Iterator[tuple[int, str | None, bytes]]:
        """(line number, text or None when not UTF-8, raw bytes); a leading BOM is dropped."""
        for number, data in enumerate(stream, 1):
            self.bytes_read += len(data)
            if number == 1 and data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            try:
                yield number, data.decode("utf-8"), data
            except UnicodeDecodeError:
                yield number, None, data

    # -- formats ------------------------------------------------------------------------------

    def _jsonl(self, numbers: Iterator[int]) -> Iterator[Record]:
        with self.path.open("rb") as stream:
            for line, text, _ in self._lines(stream):
                if text is None:
                    self._fail(line, "not valid UTF-8")
                    continue
                raw = text.rstrip("\r\n")
                if not raw or raw.isspace():
                    continue
                try:
                    data = _json_line(raw)
                except json.JSONDecodeError as error:
                    self._fail(line, f"malformed JSON ({error.msg}, column {error.colno})")
                    continue
                if not isinstance(data, dict):
                    self._fail(line, f"expected a JSON object, found {type(data).__name__}")
                    continue
                yield Record(next(numbers), line, data, raw)

    def _json_array(self, numbers: Iterator[int]) -> Iterator[Record]:
        """Elements of a top-level array, parsed as whole lines arrive (Scrapy writes one item
        a line; pretty-printed arrays work too). After a malformed element, reading resumes at
        the next line."""
        decoder = json.JSONDecoder()
        buffer = _Pending()
        state = "open"  # open -> first -> (value -> comma)* -> closed
        with self.path.open("rb") as stream:
            for line, text, _ in self._lines(stream):
                if text is None:
                    self._fail(line, "not valid UTF-8")
                    buffer.clear()
                    state = "value" if state in ("first", "comma") else state
                    continue
                buffer.append(line, text)
                while buffer.skip_space():
                    head, where = buffer.text[0], buffer.line
                    if state == "open":
                        if head != "[":
                            raise RecordError(self.path, where, "expected a JSON array '['")
                        buffer.consume(1)
                        state = "first"
                    elif state == "closed":
                        raise RecordError(self.path, where, "text after the closing ']'")
                    elif head == "]" and state in ("first", "comma"):
                        buffer.consume(1)
                        state = "closed"
                    elif state == "comma":
                        if head != ",":
                            self._fail(where, "expected ',' or ']' between elements")
                            buffer.clear()
                            state = "value"
                            break
                        buffer.consume(1)
                        state = "value"
                    else:
                        try:
                            data, end = decoder.raw_decode(buffer.text)
                        except json.JSONDecodeError as error:
                            if _incomplete(error, buffer.text):
                                if len(buffer.text) > _MAX_PENDING_CHARS:
                                    raise RecordError(
                                        self.path, where, "JSON element too large"
                                    ) from None
                                break  # wait for more lines
                            error_line = where + buffer.text.count("\n", 0, error.pos)
                            self._fail(error_line, f"malformed JSON ({error.msg})")
                            buffer.clear()
                            state = "value"
                            break
                        raw = buffer.consume(end)
                        state = "comma"
                        if not isinstance(data, dict):
                            kind = type(data).__name__
                            self._fail(where, f"expected a JSON object, found {kind}")
                            continue
                        yield Record(next(numbers), where, data, raw)
        if buffer.skip_space():
            self._fail(buffer.line, "truncated JSON element at the end of the file")
        elif state != "closed":
            raise RecordError(self.path, None, "JSON array is not closed with ']'")

    def _csv(self, numbers: Iterator[int]) -> Iterator[Record]:
        with self.path.open("rb") as stream:
            source = _CsvSource(self._lines(stream))
            reader = csv.reader(source)
            try:
                header = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise RecordError(self.path, 1, f"malformed CSV header ({error})") from None
            if source.undecodable:
                raise RecordError(self.path, 1, "header is not valid UTF-8")
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
    """Text not parsed yet, and the line number of its first character."""

    def __init__(self) -> None:
        self.text = ""
        self.line = 0

    def append(self, line: int, text: str) -> None:
        if not self.text:
            self.line = line
        self.text += text

    def consume(self, count: int) -> str:
        taken = self.text[:count]
        self.line += taken.count("\n")
        self.text = self.text[count:]
        return taken

    def skip_space(self) -> bool:
        """Drop leading white space; True when text remains."""
        stripped = self.text.lstrip()
        self.consume(len(self.text) - len(stripped))
        return bool(self.text)

    def clear(self) -> None:
        self.text = ""


def _incomplete(error: json.JSONDecodeError, text: str) -> bool:
    """True when ``text`` (whole lines) may become valid with more lines after it.

    A JSON string cannot span a line, so an unterminated string is malformed, not incomplete;
    any other error at the very end of the text only means the value goes on.
    """
    if error.msg.startswith(("Unterminated string", "Invalid control character")):
        return False
    return not text[error.pos :].strip()


def detect_format(path: Path) -> str:
    """``jsonl``, ``json``, ``csv`` or ``html`` from the name, else from the first character."""
    if path.is_dir():
        return "html"
    suffix = path.suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    with path.open("rb") as stream:
        head = stream.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"["):
        return "json"
    if head.startswith(b"{"):
        return "jsonl"
    if suffix == ".json":
        return "json"
    allowed = ", ".join(FORMATS)
    raise ValueError(f"{path}: cannot tell the format; name it with --format ({allowed})")


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


def as_text(value: Any) -> str:
    """A field value as text: lists joined by newlines, None as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list | tuple):
        return "\n".join(text for text in map(as_text, value) if text)
    if isinstance(value, dict):
        return "\n".join(text for text in map(as_text, value.values()) if text)
    return str(value)


def record_text(record: Record, fields: list[str]) -> str:
    """The named fields' text joined by newlines; :class:`UnknownField` when one is missing."""
    return "\n".join(as_text(field_value(record.data, name)) for name in fields)


# -- writing ------------------------------------------------------------------------------------


class AtomicWriter:
    """A text file that appears at ``path`` only when the ``with`` block succeeds.

    Data goes to a temporary file in the same folder, which replaces ``path`` on success
    (``os.replace``, after ``fsync``) and is removed on failure: readers never see half a file.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._stream: IO[str] | None = None
        self._temp: str | None = None

    def __enter__(self) -> IO[str]:
        folder = self.path.parent
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder for {self.path.name}")
        handle, self._temp = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=folder
        )
        self._stream = open(
            handle, "w", encoding="utf-8", errors="surrogateescape", newline=""
        )
        return self._stream

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._stream is not None and self._temp is not None
        try:
            if exc_type is None:
                self._stream.flush()
                os.fsync(self._stream.fileno())
            self._stream.close()
            if exc_type is None:
                os.chmod(self._temp, 0o666 & ~_umask())
                os.replace(self._temp, self.path)
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
        if self.reader.fmt == "json":
            self.stream.write("[")
        elif self.reader.fmt == "csv" and self.reader.header_raw:
            self.stream.write(_ended(self.reader.header_raw, self._newline))

    @property
    def _newline(self) -> str:
        return "\r\n" if self.reader.header_raw.endswith("\r\n") else "\n"

    def write(self, record: Record) -> None:
        if not self._started:
            self._start()
        fmt = self.reader.fmt
        if fmt == "json":
            self.stream.write(("\n" if self.count == 0 else ",\n") + record.raw)
        elif fmt == "csv":
            self.stream.write(_ended(record.raw, self._newline))
        else:
            self.stream.write(record.raw + "\n")
        self.count += 1

    def close(self) -> None:
        """Finish the output (a CSV header or JSON brackets even when nothing was kept)."""
        if not self._started:
            self._start()
        if self.reader.fmt == "json":
            self.stream.write("\n]\n" if self.count else "]\n")


def _ended(raw: str, newline: str) -> str:
    return raw if raw.endswith("\n") else raw + newline
