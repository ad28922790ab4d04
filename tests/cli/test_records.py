"""Reading feed exports as records (line numbers, malformed input) and atomic writing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scrapy_simhash.cli.records import (
    AtomicWriter,
    RecordError,
    RecordReader,
    RecordWriter,
    UnknownField,
    detect_format,
    record_text,
)


def read(path: Path, on_error: str = "stop", fmt: str | None = None):
    reader = RecordReader(path, fmt, on_error)
    records = list(reader)
    return reader, records


def test_pretty_printed_json_array_keeps_raw_text_and_start_lines(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text('[\n  {\n    "a": 1\n  },\n  {"a": "x]"}\n]\n', encoding="utf-8")
    _, records = read(path)
    assert [(r.number, r.line, r.data, r.raw) for r in records] == [
        (1, 2, {"a": 1}, '{\n    "a": 1\n  }'),
        (2, 5, {"a": "x]"}, '{"a": "x]"}'),
    ]


def test_json_array_resumes_after_a_malformed_element(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_text('[{"a": 1},\n{"a": 2 "b"},\n{"a": "open\n{"a": 3}\n]', encoding="utf-8")
    reader, records = read(path, "skip")
    assert [r.data["a"] for r in records] == [1, 3]
    assert [str(e) for e in reader.skipped] == [
        f"{path}:2: malformed JSON (Expecting ',' delimiter)",
        f"{path}:3: malformed JSON (Invalid control character at)",
    ]
    with pytest.raises(RecordError, match=r":2: malformed JSON"):
        read(path)


def test_unclosed_json_array_is_an_error_that_skip_gets_past(tmp_path: Path) -> None:
    """A killed crawl's JSON feed ends without ']': its whole elements can still be read."""
    path = tmp_path / "items.json"
    for text in ('[{"a": 1},\n', '[\n{"a": 1},\n{"a": 2}', '[\n{"a": 1},\n{"a": 2'):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(RecordError, match=r"not closed|truncated") as raised:
            read(path)
        assert raised.value.skippable
        reader, records = read(path, "skip")
        assert [r.data["a"] for r in records][:1] == [1] and len(reader.skipped) == 1
    for text in ("", "   \n"):  # nothing at all: the feed of a crawl that yielded nothing
        path.write_text(text, encoding="utf-8")
        assert read(path)[1] == []
    path.write_text('{"a": 1}\n', encoding="utf-8")  # something, but no array
    with pytest.raises(RecordError, match=r"expected a JSON array") as raised:
        read(path, "skip", "json")
    assert not raised.value.skippable


def test_csv_records_span_lines_and_keep_their_bytes(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_bytes(b'\xef\xbb\xbfid,body\r\n1,"two\r\nlines"\r\n2\r\n3,ok\r\n')
    reader, records = read(path, "skip")
    assert reader.fieldnames == ["id", "body"]
    assert [(r.line, r.data, r.raw) for r in records] == [
        (2, {"id": "1", "body": "two\r\nlines"}, '1,"two\r\nlines"\r\n'),
        (5, {"id": "3", "body": "ok"}, "3,ok\r\n"),
    ]
    assert [str(e) for e in reader.skipped] == [f"{path}:4: expected 2 columns, found 1"]


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(b'{"a": 1}\n\n[1]\n{"a": "\xff"}\n{"a": 2}\n')
    reader, records = read(path, "skip")
    assert [(r.number, r.line) for r in records] == [(1, 1), (2, 5)]
    assert [e.line for e in reader.skipped] == [3, 4]
    assert reader.bytes_read == reader.total_bytes


def test_format_from_name_or_first_character(tmp_path: Path) -> None:
    (tmp_path / "a.jl").write_text("")
    (tmp_path / "b.txt").write_text(' [{"a": 1}]')
    (tmp_path / "c.dat").write_text('{"a": 1}\n')
    (tmp_path / "d.dat").write_text("a,b\n")
    assert [detect_format(tmp_path / n) for n in ("a.jl", "b.txt", "c.dat")] == [
        "jsonl", "json", "jsonl"
    ]
    assert detect_format(tmp_path) == "html"
    with pytest.raises(ValueError, match="--format"):
        detect_format(tmp_path / "d.dat")


def test_fields_join_lists_and_follow_dotted_paths(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"title": "T", "body": ["p1", null, "p2"], "meta": {"lead": "L"}}\n')
    (record,) = list(RecordReader(path))
    assert record_text(record, ["title", "body", "meta.lead"]) == "T\np1\np2\nL"
    with pytest.raises(UnknownField):
        record_text(record, ["meta.missing"])
    absent: list[str] = []
    assert record_text(record, ["subtitle", "title", "meta.missing"], absent) == "T"
    assert absent == ["subtitle", "meta.missing"]


def test_writer_reproduces_each_format(tmp_path: Path) -> None:
    for name, text in {
        "x.jsonl": '{"a": 1}\n{"a": 2}\n',
        "x.json": '[\n{"a": 1},\n{"a": 2}\n]\n',
        "x.csv": "a,b\r\n1,2\r\n3,4\r\n",
    }.items():
        source = tmp_path / name
        source.write_text(text, encoding="utf-8", newline="")
        reader = RecordReader(source)
        target = tmp_path / f"out-{name}"
        with AtomicWriter(target) as stream:
            writer = RecordWriter(stream, reader)
            for record in reader:
                writer.write(record)
            writer.close()
        assert target.read_bytes().decode("utf-8") == text


def test_writer_with_nothing_kept_still_writes_a_valid_file(tmp_path: Path) -> None:
    for name, text, empty in (("x.json", '[{"a": 1}]', "[]\n"), ("x.csv", "a,b\n1,2\n", "a,b\n")):
        source = tmp_path / name
        source.write_text(text)
        reader = RecordReader(source)
        list(reader)
        with AtomicWriter(tmp_path / f"out-{name}") as stream:
            RecordWriter(stream, reader).close()
        assert (tmp_path / f"out-{name}").read_text() == empty


def test_atomic_writer_leaves_the_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "kept.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), AtomicWriter(target) as stream:
        stream.write("half")
        raise RuntimeError("stop")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.jsonl"]
    with AtomicWriter(target) as stream:
        stream.write("new\n")
    assert target.read_text() == "new\n"


def test_atomic_writer_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    private = tmp_path / "private.jsonl"
    private.write_text("old\n")
    private.chmod(0o600)
    with AtomicWriter(private) as stream:
        stream.write("new\n")
    assert private.read_text() == "new\n" and private.stat().st_mode & 0o777 == 0o600
    fresh = tmp_path / "fresh.jsonl"
    with AtomicWriter(fresh) as stream:
        stream.write("new\n")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("line", [
    '{"a": 1, "b": [1, 2, {"c": "é"}]}', ' {"a": 1}', '{"a": 1} ', '{"a": 1}\t', '{"a": 1}{}',
    '{"a": 1}, {"b": 2}', '{"a": "unterminated', '{"a": NaN}', "[1, 2]", "", "   ", "nul",
    '\ufeff{"a": 1}', '{"a": 1}x', '"text"', '{"a": 1e400}',
])
def test_json_lines_parse_exactly_as_json_loads(line: str) -> None:
    from scrapy_simhash.cli.records import _json_line

    def outcome(parse):
        try:
            return ("value", repr(parse(line)))
        except json.JSONDecodeError as error:
            return ("error", error.msg, error.pos)

    assert outcome(_json_line) == outcome(json.loads)


def test_a_csv_row_that_is_not_utf8_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_bytes(b"url,body\nhttps://a.example,caf\xe9\nhttps://b.example,fine\n")
    reader, records = read(path, "skip")
    assert [r.data["url"] for r in records] == ["https://b.example"]
    assert [e.line for e in reader.skipped] == [2]
    assert "not valid UTF-8" in str(reader.skipped[0])


@pytest.mark.parametrize("ending", ["\n", ""])
def test_a_quote_never_closed_is_malformed_not_the_rest_of_the_file(tmp_path: Path, ending) -> None:
    """csv.reader, lenient, takes everything after an unclosed quote into that field: the
    records after it would silently become part of its text."""
    path = tmp_path / "items.csv"
    path.write_text('url,body\nu0,"fine, quoted"\nu1,"alpha beta\nu2,gamma delta\n'
                    f'u3,epsilon zeta{ending}', encoding="utf-8")
    reader, records = read(path, "skip")
    assert [r.data for r in records] == [{"url": "u0", "body": "fine, quoted"}]
    assert [e.line for e in reader.skipped] == [3]
    assert "a quoted field is never closed" in str(reader.skipped[0])
    # Doubled quotes, quotes inside an unquoted field and a multi-line field are no such thing.
    path.write_text('url,body\nu1,"say ""hi"""\nu2,it"s\nu3,"two\nlines"\n', encoding="utf-8")
    reader, records = read(path, "skip")
    assert [r.data["body"] for r in records] == ['say "hi"', 'it"s', "two\nlines"]
    assert reader.skipped == []


def test_a_long_pretty_printed_element_is_not_decoded_again_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = {f"field{n:04}": n for n in range(3000)}
    text = json.dumps([item, {"a": 1}], indent=2) + "\n"
    path = tmp_path / "items.json"
    path.write_text(text, encoding="utf-8")
    calls: list[int] = []
    decode = json.JSONDecoder.raw_decode

    def counted(self: json.JSONDecoder, s: str, idx: int = 0):
        calls.append(len(s) - idx)
        return decode(self, s, idx)

    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counted)
    _, records = read(path)
    assert [(r.line, r.data) for r in records] == [(2, item), (3004, {"a": 1})]
    # a few decodes of geometrically growing text, not one of the whole element per line
    assert len(calls) < 30
    assert sum(calls) < 4 * len(text)


@pytest.mark.parametrize("bad_line", [b'    "b": "caf\xe9",\n', b'    "b": 2\xff,\n'])
def test_a_line_not_utf8_in_a_pretty_printed_element_drops_that_element(
    tmp_path: Path, bad_line: bytes
) -> None:
    path = tmp_path / "items.json"
    path.write_bytes(
        b'[\n  {\n    "a": 1\n  },\n  {\n    "a": 2,\n'
        + bad_line
        + b'    "c": 3\n  },\n  {\n    "a": 3\n  }\n]\n'
    )
    reader, records = read(path, "skip")
    assert [(r.line, r.data, r.raw) for r in records] == [
        (2, {"a": 1}, '{\n    "a": 1\n  }'),
        (10, {"a": 3}, '{\n    "a": 3\n  }'),
    ]
    assert [str(e) for e in reader.skipped] == [f"{path}:7: not valid UTF-8"]
    with pytest.raises(RecordError, match=r":7: not valid UTF-8"):
        read(path)


def test_lines_not_utf8_in_a_scrapy_feed_drop_their_items(tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    path.write_bytes(b'[\n{"a": 1},\n{"a": "\xff"},\n{"a": 3},\n{"a": "caf\xe9"}\n]\n')
    reader, records = read(path, "skip")
    assert [(r.line, r.data) for r in records] == [(2, {"a": 1}), (4, {"a": 3})]
    assert [str(e) for e in reader.skipped] == [
        f"{path}:3: not valid UTF-8",
        f"{path}:5: not valid UTF-8",
    ]
    with pytest.raises(RecordError, match=r":3: not valid UTF-8"):
        read(path)


def test_a_malformed_element_is_one_error_then_reading_goes_on(tmp_path: Path) -> None:
    pretty = tmp_path / "pretty.json"
    pretty.write_text('[\n  {\n    "a": 1\n    "b": 2\n  },\n  {\n    "a": 3\n  }\n]\n')
    reader, records = read(pretty, "skip")
    assert [(r.line, r.data) for r in records] == [(6, {"a": 3})]
    assert [str(e) for e in reader.skipped] == [
        f"{pretty}:4: malformed JSON (Expecting ',' delimiter)"
    ]
    # brackets that never match (a crawl cut off, then appended to): resume at the next line
    appended = tmp_path / "appended.json"
    appended.write_text('[\n  {\n    "a": 1,\n    "b": 2[\n  {\n    "c": 3\n  }\n]\n')
    reader, records = read(appended, "skip")
    assert [(r.line, r.data) for r in records] == [(5, {"c": 3})]
    assert [e.line for e in reader.skipped] == [4]
