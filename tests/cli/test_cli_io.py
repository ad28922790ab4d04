"""Where ``scrapy-simhash`` reads and writes: pipes and standard input, standard output,
symbolic links, devices and FIFOs, an output that is an input, line endings and byte order marks.
"""

from __future__ import annotations

import csv
import os
import stat
import threading
from pathlib import Path

import pytest

from .conftest import run_cli, sample_rows, write_csv, write_jsonl
from .test_cli import reference, summary_of


def kept_lines(lines: list[str], ending: str = "\n") -> str:
    """The lines of the records the sequential loop keeps (ids: record numbers)."""
    rows = sample_rows()
    kept, _ = reference([r["body"] for r in rows], [str(n) for n in range(1, len(rows) + 1)])
    return "".join(lines[i] + ending for i in kept)


# -- inputs that are not regular files --------------------------------------------------------


@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
def test_records_piped_in_are_all_read(workdir: Path, source: str) -> None:
    if source == "/dev/stdin" and not Path(source).exists():
        pytest.skip("no /dev/stdin on this system")
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    piped = (workdir / "crawl.jsonl").read_text("utf-8")
    result = run_cli("dedup", source, "--field", "body", "--out", "kept.jsonl", cwd=workdir,
                     stdin=piped)
    assert result.code == 0, result.stderr
    assert summary_of(result.stdout)[0] == 10
    assert (workdir / "kept.jsonl").read_text("utf-8") == kept_lines(lines)


def test_csv_piped_in_needs_format_and_then_reads_every_record(workdir: Path) -> None:
    write_csv(workdir / "crawl.csv", sample_rows())
    piped = (workdir / "crawl.csv").read_text("utf-8")
    unnamed = run_cli("dedup", "-", "--field", "body", "--out", "kept.csv", cwd=workdir,
                      stdin=piped)
    assert unnamed.code == 2
    assert unnamed.stderr.strip() == ("scrapy-simhash: error: <stdin>: cannot tell the format; "
                                      "name it with --format (jsonl, json, csv, html)")
    named = run_cli("dedup", "-", "--format", "csv", "--field", "body", "--out", "kept.csv",
                    cwd=workdir, stdin=piped)
    assert named.code == 0, named.stderr
    assert summary_of(named.stdout)[0] == 10
    rows = sample_rows()
    kept, _ = reference([r["body"] for r in rows], [str(n) for n in range(1, len(rows) + 1)])
    source = piped.splitlines(keepends=True)
    assert (workdir / "kept.csv").read_text("utf-8") == source[0] + "".join(
        source[1 + i] for i in kept
    )  # byte for byte
    with (workdir / "kept.csv").open(encoding="utf-8", newline="") as stream:
        assert list(csv.DictReader(stream)) == [rows[i] for i in kept]


def test_a_named_pipe_without_a_suffix_is_read_once_from_its_start(workdir: Path) -> None:
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    data = (workdir / "crawl.jsonl").read_bytes()
    os.mkfifo(workdir / "feed")

    def feed() -> None:
        try:
            with (workdir / "feed").open("wb") as stream:
                stream.write(data)
        except OSError:  # the reader went away
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = run_cli("dedup", "feed", "--field", "body", "--out", "kept.jsonl", cwd=workdir,
                     timeout=60)
    writer.join(timeout=10)
    assert result.code == 0, result.stderr
    assert summary_of(result.stdout)[0] == 10
    assert (workdir / "kept.jsonl").read_text("utf-8") == kept_lines(lines)


# -- outputs that are not regular files -------------------------------------------------------


def test_out_through_a_symbolic_link_writes_its_target_and_keeps_the_link(workdir: Path) -> None:
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    (workdir / "real").mkdir()
    (workdir / "real" / "kept.jsonl").write_text("old\n")
    (workdir / "link.jsonl").symlink_to(Path("real") / "kept.jsonl")
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "link.jsonl",
                     cwd=workdir)
    assert result.code == 0, result.stderr
    assert (workdir / "link.jsonl").is_symlink()
    assert (workdir / "real" / "kept.jsonl").read_text("utf-8") == kept_lines(lines)
    assert [p.name for p in (workdir / "real").iterdir()] == ["kept.jsonl"]


def test_out_dash_writes_standard_output_and_the_summary_to_stderr(workdir: Path) -> None:
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "-", cwd=workdir)
    assert result.code == 0, result.stderr
    assert result.stdout == kept_lines(lines)
    assert summary_of(result.stderr)[0] == 10
    assert sorted(p.name for p in workdir.iterdir()) == ["crawl.jsonl"]  # no file named '-'


def test_out_to_a_fifo_is_written_in_place(workdir: Path) -> None:
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    fifo = workdir / "kept.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the output fits in the pipe's buffer
    try:
        result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", fifo.name,
                         cwd=workdir)
        received = b""
        while chunk := os.read(reader, 1 << 16):
            received += chunk
    finally:
        os.close(reader)
    assert result.code == 0, result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert received.decode("utf-8") == kept_lines(lines)


def test_out_to_a_device_is_written_in_place(workdir: Path) -> None:
    write_jsonl(workdir / "crawl.jsonl", sample_rows())
    device = workdir / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device of our own
    except (PermissionError, OSError, AttributeError) as error:
        pytest.skip(f"cannot make a device node here: {error}")
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", device.name,
                     cwd=workdir)
    assert result.code == 0, result.stderr
    assert stat.S_ISCHR(device.lstat().st_mode)
    assert sorted(p.name for p in workdir.iterdir()) == ["crawl.jsonl", "null"]


def test_report_reads_stdin_and_writes_stdout(workdir: Path) -> None:
    dups = '{"id": "2", "duplicate_of": "1", "distance": 1}\n'
    result = run_cli("report", "-", "--html", "-", cwd=workdir, stdin=dups)
    assert result.code == 0, result.stderr
    assert "<html" in result.stdout and result.stdout.rstrip().endswith("</html>")
    assert result.stderr.strip() == "<stdout>: 1 duplicates in 1 clusters"
    assert list(workdir.iterdir()) == []


# -- an output that is an input ----------------------------------------------------------------


@pytest.mark.parametrize(("extra", "message"), [
    (("--out", "kept.jsonl", "--dups", "crawl.jsonl"),
     "--dups crawl.jsonl: is the input (crawl.jsonl)"),
    (("--out", "crawl.jsonl"), "--out crawl.jsonl: is the input (crawl.jsonl)"),
    (("--out", "./sub/../crawl.jsonl"), "--out ./sub/../crawl.jsonl: is the input"),
    (("--out", "hard.jsonl"), "--out hard.jsonl: is the input (crawl.jsonl)"),
    (("--out", "soft.jsonl"), "--out soft.jsonl: is the input (crawl.jsonl)"),
    (("--out", "seen.db", "--index", "sqlite:///seen.db"), "--out seen.db: is the index"),
    (("--out", "kept.jsonl", "--dups", "seen.db", "--index", "sqlite:///seen.db"),
     "--dups seen.db: is the index"),
])
def test_an_output_that_is_an_input_is_refused_before_anything_is_written(
    workdir: Path, extra: tuple[str, ...], message: str
) -> None:
    write_jsonl(workdir / "crawl.jsonl", sample_rows())
    original = (workdir / "crawl.jsonl").read_bytes()
    (workdir / "sub").mkdir()
    os.link(workdir / "crawl.jsonl", workdir / "hard.jsonl")
    (workdir / "soft.jsonl").symlink_to("crawl.jsonl")
    before = sorted(p.name for p in workdir.iterdir())
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", *extra, cwd=workdir)
    assert result.code == 2
    assert result.stderr.startswith(f"scrapy-simhash: error: {message}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (workdir / "crawl.jsonl").read_bytes() == original
    assert sorted(p.name for p in workdir.iterdir()) == before


def test_report_refuses_to_write_its_page_over_its_input(workdir: Path) -> None:
    text = '{"id": "2", "duplicate_of": "1", "distance": 1}\n'
    (workdir / "dups.jsonl").write_text(text)
    result = run_cli("report", "dups.jsonl", "--html", "dups.jsonl", cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == ("scrapy-simhash: error: --html dups.jsonl: is the input "
                                     "(dups.jsonl); name another file to write")
    assert (workdir / "dups.jsonl").read_text() == text


# -- line endings and byte order marks ---------------------------------------------------------


@pytest.mark.parametrize(("name", "bom", "ending"), [
    ("crawl.jsonl", "", "\r\n"),
    ("crawl.jsonl", "\ufeff", "\n"),
    ("crawl.csv", "\ufeff", "\r\n"),
    ("crawl.json", "\ufeff", "\r\n"),
])
def test_kept_records_keep_the_inputs_line_endings_and_byte_order_mark(
    workdir: Path, name: str, bom: str, ending: str
) -> None:
    rows = sample_rows()
    if name.endswith(".csv"):
        write_csv(workdir / name, rows)  # the csv module ends rows with \r\n
        lines = (workdir / name).read_bytes().decode("utf-8").split("\r\n")[:-1]
        header, lines = lines[0] + ending, lines[1:]
        footer = ""
    else:
        lines = write_jsonl(workdir / name, rows)
        header, footer = ("[" + ending, ending + "]" + ending) if name.endswith(".json") else (
            "", "")
    separator = "," if name.endswith(".json") else ""
    body = (separator + ending).join(lines) + ("" if footer else ending)
    (workdir / name).write_bytes((bom + header + body + footer).encode("utf-8"))
    result = run_cli("dedup", name, "--field", "body", "--out", f"kept-{name}", cwd=workdir)
    assert result.code == 0, result.stderr
    kept = kept_lines(lines, "\0").split("\0")[:-1]
    expected = bom + header + (separator + ending).join(kept) + ("" if footer else ending) + footer
    assert (workdir / f"kept-{name}").read_bytes() == expected.encode("utf-8")
