"""The command line on generated inputs: deep nesting, encodings, sizes, truncation, garbage
and signals. Whatever the input, ``scrapy-simhash dedup`` exits 0, 1 or 2 (130 or 143 after a
signal), never prints a traceback, and leaves no file behind in its output folder unless it
succeeded (and then no temporary one).

``SIMHASH_CLI_FUZZ_EXAMPLES`` sets the number of generated runs (default 12, about 10 s);
``benchmarks/fuzz.py --cli-examples N`` runs it at length.
"""

from __future__ import annotations

import codecs
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("SIMHASH_CLI_FUZZ_EXAMPLES", "12"))
WORDS = ["harbour", "ferry", "orchard", "cider", "地铁", "线路", "café", "naïve", "x" * 40, "",
         "\u200b", "\ud83d\ude00", "line\nbreak", '"quoted"', "a,b", "[", "{"]


@st.composite
def values(draw, depth: int = 0):
    """A JSON value: text mostly, sometimes nested lists and objects."""
    if depth > 3 or draw(st.integers(0, 3)):
        return " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=40)))
    if draw(st.booleans()):
        return draw(st.lists(values(depth + 1), max_size=4))
    return {"k": draw(values(depth + 1)), "n": draw(st.integers(-5, 5))}


@st.composite
def records(draw) -> list[dict]:
    count = draw(st.integers(0, 30))
    fields = draw(st.lists(st.sampled_from(["url", "title", "body", "meta"]), min_size=1,
                           max_size=4, unique=True))
    return [{name: draw(values()) for name in fields} for _ in range(count)]


def _nested(depth: int, kind: str) -> str:
    if kind == "[":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


def _serialise(rows: list[dict], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if fmt == "json":
        return "[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n]\n"
    import csv
    import io

    names = sorted({name for row in rows for name in row}) or ["body"]
    stream = io.StringIO()
    writer = csv.DictWriter(stream, fieldnames=names)
    writer.writeheader()
    for row in rows:
        writer.writerow({name: json.dumps(row.get(name), ensure_ascii=False) for name in names})
    return stream.getvalue()


@st.composite
def inputs(draw) -> tuple[str, bytes]:
    """(file name, bytes): records in a format, then hostile changes to them."""
    fmt = draw(st.sampled_from(["jsonl", "json", "csv"]))
    rows = draw(records())
    text = _serialise(rows, fmt)
    change = draw(st.sampled_from(["none", "nest", "huge", "truncate", "garbage", "splice"]))
    if change == "nest":  # a record nested 10 to 200,000 levels deep, among the others
        depth = draw(st.sampled_from([10, 900, 1_000, 5_000, 200_000]))
        deep = '{"body": ' + _nested(depth, draw(st.sampled_from(["[", "{"]))) + "}"
        text = _serialise([*rows[:1], {}, *rows[1:]], fmt).replace("{}", deep, 1)
    elif change == "huge":  # one record of megabytes, on one line
        text = _serialise([*rows, {"body": "word " * draw(st.integers(1, 400_000))}], fmt)
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-32",
                                     "latin-1", "cp1252"]))
    data = text.encode(encoding, "replace")
    if change == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif change == "garbage":
        data = draw(st.binary(max_size=2000))
    elif change == "splice" and data:  # bytes that are not UTF-8, or a NUL, somewhere
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\x00", b"\xc3", codecs.BOM_UTF8,
                                                 b"\r", b"\n\n\n"])) + data[at:]
    suffix = draw(st.sampled_from([fmt, fmt, "txt", "gz"]))
    return f"input.{suffix}", data


@st.composite
def options(draw) -> list[str]:
    chosen = ["--field", draw(st.sampled_from(["body", "title", "meta.k", "missing"]))]
    if draw(st.booleans()):
        chosen += ["--on-error", "skip"]
    if draw(st.integers(0, 3)) == 0:
        chosen += ["--jobs", "2"]
    if draw(st.integers(0, 3)) == 0:
        chosen += ["--format", draw(st.sampled_from(["jsonl", "json", "csv"]))]
    if draw(st.integers(0, 5)) == 0:
        chosen += ["--html"]
    if draw(st.booleans()):
        chosen += ["--id-field", "url"]
    return chosen


def run_fuzzed(name: str, data: bytes, extra: list[str], stop: int | None, delay: float
               ) -> tuple[int, str, list[str]]:
    """Run dedup on the input in a fresh folder; with ``stop``, send that signal ``delay``
    seconds after the run started writing its outputs. (exit status, stderr, files left in the
    output folder)."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / name).write_bytes(data)
        out = work / "out"
        out.mkdir()
        command = [sys.executable, "-m", "scrapy_simhash", "dedup", name, *extra,
                   "--out", "out/kept", "--dups", "out/dups.jsonl", "-q"]
        process = subprocess.Popen(command, cwd=work, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        try:
            if stop is not None:
                deadline = time.monotonic() + 60
                while process.poll() is None and not any(out.iterdir()):
                    assert time.monotonic() < deadline, "no output after 60 s"
                    time.sleep(0.005)
                time.sleep(delay)
                if process.poll() is None:
                    process.send_signal(stop)
            _, stderr = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        return process.returncode, stderr.decode("utf-8", "replace"), sorted(
            path.name for path in out.iterdir()
        )


def check_run(code: int, stderr: str, left: list[str], stopped: bool) -> None:
    # (after a signal: 130 or 143, or the death by that signal that Python gives an
    # interrupted program, which a shell shows as 130 or 143 too)
    signalled = {130, 143, -signal.SIGINT, -signal.SIGTERM}
    allowed = {0, 1, 2} | (signalled if stopped else set())
    assert code in allowed, (code, stderr[-2000:])
    assert "Traceback" not in stderr, stderr[-3000:]
    if code == 0:
        assert not [name for name in left if name.endswith(".tmp")], left
    else:
        assert left == [], (code, left, stderr[-500:])
    if code == 2:
        errors = [line for line in stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and errors[0].startswith("scrapy-simhash: error: "), stderr


# (no shrinking: each example is a process of its own, and a failing one is printed whole)
@settings(max_examples=EXAMPLES, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    source=inputs(),
    extra=options(),
    stop=st.sampled_from([None, None, None, signal.SIGINT, signal.SIGTERM]),
    delay=st.floats(0, 0.3),
)
def test_dedup_on_generated_inputs(source, extra, stop, delay):
    name, data = source
    code, stderr, left = run_fuzzed(name, data, extra, stop, delay)
    check_run(code, stderr, left, stop is not None)
