"""Bad input never ends in a traceback: one line on stderr naming the file (and line) and the
cause, exit status 2, and nothing written; SIGTERM stops a run as Ctrl-C does."""

from __future__ import annotations

import gzip
import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import run_cli, sample_rows, write_jsonl


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _only_the_input_left(workdir: Path, *inputs: str) -> None:
    assert sorted(p.name for p in workdir.iterdir()) == sorted(inputs)


@pytest.mark.parametrize("depth", [1_000, 100_000])
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_a_record_nested_too_deeply_is_one_error_line(workdir, depth, fmt):
    rows = [json.dumps(row) for row in sample_rows()[:3]]
    rows.insert(1, '{"body": ' + _deep(depth) + "}")
    name = f"crawl.{fmt}"
    if fmt == "jsonl":
        text, line = "\n".join(rows) + "\n", 2
    else:
        text, line = "[\n" + ",\n".join(rows) + "\n]\n", 3
    (workdir / name).write_text(text)
    stopped = run_cli("dedup", name, "--field", "body", "--out", "kept", "--dups", "dups",
                      cwd=workdir)
    assert stopped.code == 2
    assert stopped.stderr == (f"scrapy-simhash: error: {name}:{line}: JSON nested too deeply "
                              f"(more than about {sys.getrecursionlimit()} levels); use "
                              "--on-error skip to leave such records out\n")
    _only_the_input_left(workdir, name)
    skipped = run_cli("dedup", name, "--field", "body", "--out", "kept", "--on-error", "skip",
                      cwd=workdir)
    assert skipped.code == 0, skipped.stderr
    assert skipped.stderr.startswith(f"scrapy-simhash: skipped {name}:{line}: JSON nested too")
    assert "Traceback" not in skipped.stderr
    assert skipped.stdout.startswith("records 3, ") and "skipped 1 malformed" in skipped.stdout


def test_a_deep_but_readable_value_gives_the_text_the_crawl_would(workdir):
    # 900 levels: within what the JSON reader takes; the text of lists nested deeper than the
    # item pipeline reads is left out, so the record has none and is kept unfingerprinted
    path = workdir / "crawl.jsonl"
    path.write_text('{"body": ' + _deep(900) + '}\n{"body": "short"}\n')
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept", cwd=workdir)
    assert result.code == 0, result.stderr
    assert "unfingerprinted 2" in result.stdout


def _undecodable(path: Path) -> None:
    path.write_bytes(b'{"body": "caf\xe9 au lait"}\n')


def _utf16(path: Path) -> None:
    path.write_bytes('{"body": "hello"}\n'.encode("utf-16"))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _blank(path: Path) -> None:
    path.write_bytes(b"\n  \n\n")


def _folder(path: Path) -> None:
    path.mkdir()
    (path / "page.html").write_text("<p>hello</p>")


def _huge_malformed_line(path: Path) -> None:
    path.write_text('{"body": "' + "word " * 2_000_000 + "\n")  # 10 MB, the quote left open


def _truncated_gzip(path: Path) -> None:
    data = gzip.compress(b'{"body": "hello"}\n' * 1000)
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(
    ("name", "make", "message"),
    [
        ("crawl.jsonl", _undecodable, "crawl.jsonl:1: not valid UTF-8"),
        ("crawl.jsonl", _utf16, "crawl.jsonl: the file is UTF-16 or UTF-32"),
        ("crawl.json", _utf16, "crawl.json: the file is UTF-16 or UTF-32"),
        ("crawl.jsonl", _folder, "--field does not apply to a folder"),
        ("crawl.jsonl", _huge_malformed_line, "crawl.jsonl:1: malformed JSON"),
        ("crawl.jsonl.gz", _truncated_gzip, "crawl.jsonl.gz: cannot tell the format"),
        ("crawl.jsonl", _truncated_gzip, "crawl.jsonl:1: not valid UTF-8"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(workdir, name, make, message):
    make(workdir / name)
    result = run_cli("dedup", name, "--field", "body", "--out", "kept", "--dups", "dups",
                     cwd=workdir)
    assert result.code == 2
    assert result.stderr.startswith(f"scrapy-simhash: error: {message}"), result.stderr
    assert result.stderr.count("\n") == 1
    _only_the_input_left(workdir, name)


@pytest.mark.parametrize(
    ("name", "make"),
    [("crawl.jsonl", _empty), ("crawl.json", _empty), ("crawl.csv", _empty),
     ("crawl.jsonl", _blank)],
)
def test_the_feed_of_a_crawl_that_yielded_nothing_is_an_empty_run(workdir, name, make):
    # `scrapy crawl -O items.jsonl && scrapy-simhash dedup items.jsonl`: nothing to drop
    make(workdir / name)
    result = run_cli("dedup", name, "--field", "body", "--out", "kept", "--dups", "dups",
                     cwd=workdir)
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    outputs = sorted(path for path in workdir.iterdir() if path.name != name)
    assert [path.stem for path in outputs] == ["dups", "kept"]
    for path in outputs:  # no record in either (a JSON output is an empty array)
        assert path.read_text().strip() in ("", "[]")


def test_the_report_of_a_run_without_duplicates_is_no_error(workdir):
    # (an empty --dups file is a valid input of report)
    (workdir / "dups.jsonl").write_text("")
    pytest.importorskip("matplotlib")
    result = run_cli("report", "dups.jsonl", "--html", "dups.html", cwd=workdir)
    assert result.code == 0, result.stderr


def _large_input(path: Path, records: int) -> None:
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(3000)]
    bodies = [" ".join(rng.choice(words) for _ in range(120)) for _ in range(500)]
    with path.open("w") as stream:
        for number in range(records):
            body = f"{bodies[number % len(bodies)]} {number}"
            stream.write(json.dumps({"url": f"https://x.example/{number}", "body": body}) + "\n")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigterm_stops_the_run_with_one_line_and_no_temp_file(workdir, jobs):
    _large_input(workdir / "crawl.jsonl", 60_000)
    process = subprocess.Popen(
        [sys.executable, "-m", "scrapy_simhash", "dedup", "crawl.jsonl", "-f", "body",
         "--out", "kept.jsonl", "--dups", "dups.jsonl", "--jobs", jobs, "-q"],
        cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not any(p.name.endswith(".tmp") and p.stat().st_size > 0
                      for p in workdir.iterdir()):  # records are being written
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "no output after 60 s"
            time.sleep(0.02)
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)
        stderr = process.stderr.read().decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()
    assert (code, stderr) == (143, "scrapy-simhash: terminated\n")
    _only_the_input_left(workdir, "crawl.jsonl")


def test_an_empty_run_of_records_is_still_a_run(workdir):
    # records that all lack text are no empty input
    write_jsonl(workdir / "crawl.jsonl", [{"body": ""}, {"body": None}])
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept", cwd=workdir)
    assert result.code == 0, result.stderr
