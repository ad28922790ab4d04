"""The ``scrapy-simhash`` console script, run as a subprocess on files the tests write.

Expected outputs come from the library's own sequential loop (``check_and_add`` per record in
input order), so they stay exact when the quality work re-tunes the defaults; the planted
duplicates that survive any tuning (identical text after normalisation) are checked by hand too.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scrapy_simhash.detectors import get_detector

from .conftest import (
    SCRIPT,
    dedup_every_way,
    run_cli,
    sample_rows,
    write_csv,
    write_json_array,
    write_jsonl,
)
from .samples import CERTAIN_DUPLICATES, CERTAINLY_KEPT, EN_HARBOUR, EN_ORCHARD

SUMMARY = re.compile(
    r"^records (\d+), kept (\d+) \(\d+ unconfirmed\), dropped (\d+), unfingerprinted (\d+), "
    r"skipped (\d+) malformed, [\d.]+ s \(\d+ records/s\)$"
)
UNCONFIRMED = re.compile(r"kept \d+ \((\d+) unconfirmed\)")


def reference(texts: list[str], ids: list[str], algorithm: str = "simhash", *,
              urls: list[str | None] | None = None, html: bool = False, **options):
    """(kept positions, dups rows) of the sequential crawl-style loop over ``texts`` (HTML
    pages with ``html``; ``options``: the detector's, as the command line passes them): a
    record is a duplicate of the first stored one among the crawl's candidates (the nearest,
    then the others of the first ``MAX_CONFIRMED_CANDIDATES`` within the threshold) that
    ``Detector.is_duplicate`` confirms with the evidence; otherwise it is stored."""
    from scrapy_simhash.crawl.dedup import MAX_CONFIRMED_CANDIDATES
    from scrapy_simhash.evidence import same_site

    detector = get_detector(algorithm, **options)
    index = detector.open_index("memory://")
    urls = urls or [None] * len(ids)
    stored: dict[str, tuple] = {}  # key -> (Signed, url) of the records stored under it
    kept, dups = [], []
    for position, (key, text, url) in enumerate(zip(ids, texts, urls, strict=True)):
        signed = detector.sign_html(text, None, url) if html else detector.sign_text(text)
        if signed.signature is None:
            kept.append(position)
            continue
        found = index.query(signed.signature)
        candidates = found[:1] + [
            m for m in found[:MAX_CONFIRMED_CANDIDATES]
            if found and (m.key, m.fingerprint) != (found[0].key, found[0].fingerprint)
        ]
        match = next((m for m in candidates if detector.is_duplicate(
            signed, stored[m.key][0], same_site(url, stored[m.key][1]))), None)
        if match is None:
            index.add(key, signed.signature)
            stored[key] = (signed, url)
            kept.append(position)
        else:
            dups.append({"id": key, "duplicate_of": match.key, "distance": match.distance})
    return kept, dups


def dups_text(rows: list[dict]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def summary_of(stdout: str) -> tuple[int, ...]:
    match = SUMMARY.match(stdout.strip())
    assert match, stdout
    return tuple(int(group) for group in match.groups())


def test_dedup_jsonl_writes_the_sequential_loops_answer_exactly(workdir: Path) -> None:
    rows = sample_rows()
    lines = write_jsonl(workdir / "crawl.jsonl", rows)
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--id-field", "url",
                     "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir, script=True)
    assert result.code == 0, result.stderr
    kept, dups = reference([r["body"] for r in rows], [r["url"] for r in rows])
    assert (workdir / "kept.jsonl").read_text("utf-8") == "".join(lines[i] + "\n" for i in kept)
    assert (workdir / "dups.jsonl").read_text("utf-8") == dups_text(dups)
    assert summary_of(result.stdout) == (10, len(kept), len(dups), 1, 0)
    # planted duplicates that any tuning finds, and distinct articles that it keeps
    found = {row["id"]: row["duplicate_of"] for row in dups}
    for number, original in CERTAIN_DUPLICATES.items():
        assert found[rows[number - 1]["url"]] == rows[original - 1]["url"]
    assert all(number - 1 in kept for number in CERTAINLY_KEPT)


def test_dedup_several_fields_and_record_numbers_as_ids(workdir: Path) -> None:
    rows = sample_rows()
    write_jsonl(workdir / "crawl.jsonl", rows)
    result = run_cli("dedup", "crawl.jsonl", "-f", "title", "-f", "body", "--out", "kept.jsonl",
                     "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    texts = [f"{r['title']}\n{r['body']}" for r in rows]
    _, dups = reference(texts, [str(n) for n in range(1, 11)])
    assert (workdir / "dups.jsonl").read_text("utf-8") == dups_text(dups)


def test_json_array_and_csv_come_back_in_their_own_format(workdir: Path) -> None:
    rows = sample_rows()
    kept, _ = reference([r["body"] for r in rows], [r["url"] for r in rows])
    write_json_array(workdir / "crawl.json", rows)
    result = run_cli("dedup", "crawl.json", "--field", "body", "--out", "kept.json", cwd=workdir)
    assert result.code == 0, result.stderr
    assert json.loads((workdir / "kept.json").read_text("utf-8")) == [rows[i] for i in kept]

    write_csv(workdir / "crawl.csv", rows)
    result = run_cli("dedup", "crawl.csv", "--field", "body", "--out", "kept.csv", cwd=workdir)
    assert result.code == 0, result.stderr
    written = (workdir / "kept.csv").read_text("utf-8")
    source = (workdir / "crawl.csv").read_text("utf-8").splitlines(keepends=True)
    assert written == source[0] + "".join(source[1 + i] for i in kept)  # byte for byte
    with (workdir / "kept.csv").open(encoding="utf-8", newline="") as stream:
        assert list(csv.DictReader(stream)) == [rows[i] for i in kept]


def test_chunks_and_jobs_do_not_change_the_answer(workdir: Path) -> None:
    rows = sample_rows() * 2 + sample_rows()[:3]  # later copies must match earlier chunks
    write_jsonl(workdir / "crawl.jsonl", rows)
    outputs = [(kept, dups) for kept, dups, _ in dedup_every_way(workdir, "crawl.jsonl", (1, 3))]
    assert all(output == outputs[0] for output in outputs)
    _, dups = reference([r["body"] for r in rows], [str(n) for n in range(1, len(rows) + 1)])
    assert outputs[0][1].decode("utf-8") == dups_text(dups)


def test_folder_of_html_files(workdir: Path) -> None:
    pages = workdir / "pages"
    (pages / "b").mkdir(parents=True)
    templates = [
        "<html><body><nav>Home</nav><article><h1>{t}</h1><p>{b}</p></article></body></html>",
        "<html><body><div id='main'><h2>{t}</h2><div>{b}</div></div><footer>©</footer></body>"
        "</html>",
    ]
    files = {
        "a1.html": templates[0].format(t="Ferry", b=EN_HARBOUR),
        "a2.htm": templates[0].format(t="Orchards", b=EN_ORCHARD),
        "b/copy.html": templates[1].format(t="Ferry", b=EN_HARBOUR),
        "notes.txt": "not a page",
    }
    for name, text in files.items():
        (pages / name).write_text(text, encoding="utf-8")
    result = run_cli("dedup", "pages", "--out", "kept.txt", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    assert (workdir / "kept.txt").read_text("utf-8") == "a1.html\na2.htm\n"
    dup = json.loads((workdir / "dups.jsonl").read_text("utf-8"))
    assert (dup["id"], dup["duplicate_of"]) == ("b/copy.html", "a1.html")


def test_other_algorithms_through_the_detectors(workdir: Path) -> None:
    rows = sample_rows()
    write_jsonl(workdir / "crawl.jsonl", rows)
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--algorithm", "exact",
                     "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    found = [json.loads(line) for line in (workdir / "dups.jsonl").read_text().splitlines()]
    assert [(d["id"], d["duplicate_of"], d["distance"]) for d in found] == [
        (str(n), str(o), 0) for n, o in sorted(CERTAIN_DUPLICATES.items())
    ]


# -- errors ---------------------------------------------------------------------------------------


def test_missing_input_file(workdir: Path) -> None:
    result = run_cli("dedup", "absent.jsonl", "--field", "body", "--out", "kept.jsonl",
                     cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        "scrapy-simhash: error: absent.jsonl: no such file or directory"
    )
    assert not (workdir / "kept.jsonl").exists()


def test_the_feed_of_a_killed_crawl_is_read_with_on_error_skip(workdir):
    """Scrapy's JSON feed ends without ']' when the crawl is killed: its whole items count."""
    rows = sample_rows()[:3]
    feed = "[\n" + ",\n".join(json.dumps(row) for row in rows) + "\n"
    (workdir / "crawl.json").write_text(feed, encoding="utf-8")
    stopped = run_cli("dedup", "crawl.json", "--field", "body", "--out", "kept.json", cwd=workdir)
    assert stopped.code == 2 and "not closed" in stopped.stderr
    assert "--on-error skip" in stopped.stderr
    skipped = run_cli("dedup", "crawl.json", "--field", "body", "--out", "kept.json",
                      "--on-error", "skip", cwd=workdir)
    assert skipped.code == 0, skipped.stderr
    assert "not closed" in skipped.stderr
    assert skipped.stdout.startswith("records 3, ")  # every whole item was read
    kept, _ = reference([r["body"] for r in rows], ["1", "2", "3"])
    assert json.loads((workdir / "kept.json").read_text(encoding="utf-8")) == [
        rows[i] for i in kept
    ]


@pytest.mark.parametrize(("name", "content"), [
    ("crawl.json", b'"a string, not an array"\n'),
    ("crawl.csv", b"url,b\xffody\nhttps://x.example,text\n"),  # a header that is not UTF-8
])
def test_a_file_that_on_error_skip_cannot_read_gets_no_such_hint(workdir, name, content):
    (workdir / name).write_bytes(content)
    for extra in ((), ("--on-error", "skip")):
        result = run_cli("dedup", name, "--field", "body", "--out", "kept.jsonl", *extra,
                         cwd=workdir)
        assert result.code == 2
        assert result.stderr.startswith(f"scrapy-simhash: error: {name}"), result.stderr
        assert "--on-error" not in result.stderr


def test_malformed_line_stops_or_is_skipped(workdir: Path) -> None:
    rows = sample_rows()[:4]
    lines = write_jsonl(workdir / "crawl.jsonl", rows)
    broken = [*lines[:2], '{"url": "https://x.example", "body": "unterminated', *lines[2:]]
    (workdir / "crawl.jsonl").write_text("\n".join(broken) + "\n", encoding="utf-8")
    (workdir / "kept.jsonl").write_text("previous output\n")

    stop = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept.jsonl", cwd=workdir)
    assert stop.code == 2
    assert stop.stderr.startswith("scrapy-simhash: error: crawl.jsonl:3: malformed JSON")
    assert "--on-error skip" in stop.stderr
    assert (workdir / "kept.jsonl").read_text() == "previous output\n"  # untouched on failure
    assert [p.name for p in workdir.iterdir() if p.name.endswith(".tmp")] == []

    skip = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept.jsonl",
                   "--on-error", "skip", cwd=workdir)
    assert skip.code == 0, skip.stderr
    assert "skipped crawl.jsonl:3: malformed JSON" in skip.stderr
    assert summary_of(skip.stdout)[0::4] == (4, 1)  # 4 records read, 1 malformed skipped
    kept, _ = reference([r["body"] for r in rows], [str(n) for n in range(1, 5)])
    assert (workdir / "kept.jsonl").read_text("utf-8") == "".join(
        lines[i] + "\n" for i in kept
    )


def test_unknown_field_names_the_known_ones(workdir: Path) -> None:
    write_csv(workdir / "crawl.csv", sample_rows())
    result = run_cli("dedup", "crawl.csv", "--field", "text", "--out", "kept.csv", cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        "scrapy-simhash: error: crawl.csv:1: unknown field 'text' (fields: url, title, body)"
    )


def test_stored_index_remembers_runs_and_refuses_other_parameters(workdir: Path) -> None:
    rows = sample_rows()
    write_jsonl(workdir / "crawl.jsonl", rows)
    common = ("dedup", "crawl.jsonl", "--field", "body", "--id-field", "url", "--index",
              "sqlite:///seen.db", "--out", "kept.jsonl", "--dups", "dups.jsonl", "-k", "3")
    first = run_cli(*common, cwd=workdir)
    assert first.code == 0, first.stderr
    kept_first = summary_of(first.stdout)[1]

    again = run_cli(*common, cwd=workdir)  # everything fingerprinted was seen by the first run
    assert again.code == 0, again.stderr
    assert summary_of(again.stdout)[1:4] == (1, 9, 1)
    assert (workdir / "kept.jsonl").read_text("utf-8").count("\n") == 1

    other = run_cli(*common[:-1], "4", cwd=workdir)
    assert other.code == 2
    assert other.stderr.startswith("scrapy-simhash: error: SQLite index 'seen.db'")
    assert "max_distance: stored 3, requested 4" in other.stderr

    stats = run_cli("index", "stats", "sqlite:///seen.db", "--json", cwd=workdir)
    assert stats.code == 0, stats.stderr
    info = json.loads(stats.stdout)
    assert (info["size"], info["max_distance"], len(info["tables"])) == (kept_first - 1, 3, 4)
    assert sum(row["buckets"] >= 1 for row in info["tables"]) == 4
    text = run_cli("index", "stats", "sqlite:///seen.db", cwd=workdir)
    assert f"size          {kept_first - 1}\n" in text.stdout

    (workdir / "query.txt").write_text(EN_ORCHARD.upper(), encoding="utf-8")
    query = run_cli("index", "query", "sqlite:///seen.db", "--text", "query.txt", cwd=workdir)
    assert query.code == 0, query.stderr
    assert re.search(r"^\s+0  [0-9a-f]+  https://news\.example/orchard$", query.stdout, re.M)

    missing = run_cli("index", "stats", "sqlite:///nothing.db", cwd=workdir)
    assert (missing.code, missing.stderr.strip()) == (
        2, "scrapy-simhash: error: nothing.db: no such index file"
    )
    assert not (workdir / "nothing.db").exists()


@pytest.mark.parametrize("algorithm", ["simhash", "minhash"])
def test_a_run_that_fails_leaves_a_sqlite_index_as_it_was(workdir: Path, algorithm: str) -> None:
    """A run is one transaction: chunks decided before the failure are not stored, so running
    it again after the fix keeps what a first run keeps (not 'seen' by the failed run)."""
    rows = sample_rows()
    lines = write_jsonl(workdir / "crawl.jsonl", rows)
    common = ("dedup", "crawl.jsonl", "--field", "body", "--id-field", "url", "--chunk-size",
              "2", "--algorithm", algorithm, "--out", "kept.jsonl")
    fresh = run_cli(*common, cwd=workdir)  # memory://: what a first run keeps
    assert fresh.code == 0, fresh.stderr

    (workdir / "crawl.jsonl").write_text("\n".join([*lines, "{broken"]) + "\n", "utf-8")
    failed = run_cli(*common, "--index", "sqlite:///seen.db", cwd=workdir)
    assert failed.code == 2
    assert failed.stderr.startswith("scrapy-simhash: error: crawl.jsonl:11: malformed JSON")

    write_jsonl(workdir / "crawl.jsonl", rows)
    again = run_cli(*common, "--index", "sqlite:///seen.db", cwd=workdir)
    assert again.code == 0, again.stderr
    assert summary_of(again.stdout)[:4] == summary_of(fresh.stdout)[:4]


def test_a_run_that_fails_says_what_it_left_in_a_redis_index(workdir: Path, redis_url) -> None:
    lines = write_jsonl(workdir / "crawl.jsonl", sample_rows())
    (workdir / "crawl.jsonl").write_text("\n".join([*lines, "{broken"]) + "\n", "utf-8")
    failed = run_cli("dedup", "crawl.jsonl", "--field", "body", "--chunk-size", "2", "--index",
                     redis_url, "--out", "kept.jsonl", cwd=workdir)
    assert failed.code == 2
    notice, error = failed.stderr.strip().splitlines()
    stored = re.fullmatch(r"scrapy-simhash: the run stopped after storing (\d+) fingerprint\(s\) "
                          r"in redis://\S+ \(namespace pages\); running it again drops those "
                          r"records as already seen", notice)
    assert stored, notice
    assert error.startswith("scrapy-simhash: error: crawl.jsonl:11: malformed JSON")
    stats = run_cli("index", "stats", redis_url, "--json", cwd=workdir)
    assert stats.code == 0, stats.stderr
    assert json.loads(stats.stdout)["size"] == int(stored.group(1)) > 0


# -- compare and report ---------------------------------------------------------------------------


def test_compare_explains_the_decision(workdir: Path) -> None:
    (workdir / "a.html").write_text(
        f"<html><body><nav>Home | World</nav><article><h1>Ferry</h1><p>{EN_HARBOUR}</p>"
        "</article></body></html>", encoding="utf-8")
    (workdir / "b.html").write_text(
        f"<html><body><div class='post'><h1>Ferry</h1><p>{EN_HARBOUR}</p></div>"
        "<footer>Contact us</footer></body></html>", encoding="utf-8")
    same = run_cli("compare", "a.html", "b.html", cwd=workdir)
    assert same.code == 0, same.stderr
    prints = re.findall(r"fingerprint  ([0-9a-f]+) \(\d+ bits\)", same.stdout)
    assert len(prints) == 2 and prints[0] == prints[1]
    assert "distance     0 bits" in same.stdout
    assert "verdict      near-duplicate" in same.stdout

    (workdir / "a.txt").write_text(EN_HARBOUR, encoding="utf-8")
    (workdir / "b.txt").write_text(EN_ORCHARD, encoding="utf-8")
    different = run_cli("compare", "a.txt", "b.txt", "--text", "--diff", cwd=workdir)
    assert different.code == 0, different.stderr
    assert "verdict      different" in different.stdout
    assert "--- A: a.txt\n+++ B: b.txt\n" in different.stdout
    assert f"-{EN_HARBOUR}\n+{EN_ORCHARD}\n" in different.stdout


def test_report_page_is_self_contained_and_escaped(workdir: Path) -> None:
    rows = [
        {"id": "p2", "duplicate_of": "p1", "distance": 1},
        {"id": "<script>alert(1)</script>", "duplicate_of": "q1", "distance": 0},
        {"id": "p3", "duplicate_of": "p1", "distance": 3},
        {"url": "https://crawl.example/x", "duplicate_of": "https://crawl.example/", "distance": 2},
        {"url": "https://crawl.example/y", "duplicate_of": None, "distance": None},
    ]
    write_jsonl(workdir / "dups.jsonl", rows)
    result = run_cli("report", "dups.jsonl", "--html", "report.html", cwd=workdir)
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "report.html: 4 duplicates in 3 clusters"
    page = (workdir / "report.html").read_text("utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "http://" not in page.replace("https://crawl.example", "")  # no external assets
    png = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert png and base64.b64decode(png.group(1)).startswith(b"\x89PNG\r\n\x1a\n")
    # clusters largest first: p1 (3 records) before q1 and the crawl's page (2 each, in order)
    assert page.index("<code>p1</code>") < page.index("<code>q1</code>") < page.index(
        "<code>https://crawl.example/</code>")

    (workdir / "bad.jsonl").write_text('{"id": "a", "duplicate_of": "b"}\n{"id": \n')
    bad = run_cli("report", "bad.jsonl", "--html", "r.html", cwd=workdir)
    assert bad.code == 2 and bad.stderr.startswith("scrapy-simhash: error: bad.jsonl:2:")


@pytest.mark.skipif(not SCRIPT.exists(), reason="console script not installed (pip install -e .)")
def test_console_script_and_module_agree(workdir: Path) -> None:
    assert run_cli("--help", cwd=workdir, script=True).stdout == run_cli(
        "--help", cwd=workdir).stdout.replace("__main__.py", "scrapy-simhash")


def _evidence_chains(seed: int = 5) -> tuple[list[str], list]:
    """Keys and ``Signed`` records: chains (C near B near A, C far from A), ties, repeated keys,
    missing signatures, and candidates within the threshold whose evidence confirms them (the
    same text, a word changed) or does not (another text)."""
    from scrapy_simhash import evidence as ev
    from scrapy_simhash.detectors import Signed

    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(400)]

    def text() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(120))

    def flipped(fp: int, count: int) -> int:
        for position in rng.sample(range(128), count):
            fp ^= 1 << position
        return fp

    def edited(words: str) -> str:
        units = words.split()
        units[rng.randrange(len(units))] = "edited"
        return " ".join(units)

    records: list = []
    for _ in range(60):
        a, body = rng.getrandbits(128), text()
        b = flipped(a, 10)
        same, other = ev.of_text(edited(body)), ev.of_text(text())
        records += [
            Signed(a, ev.of_text(body)),
            Signed(b, rng.choice((same, other))),
            Signed(flipped(b, 10), rng.choice((same, other))),  # near b, usually far from a
            Signed(flipped(a, 3), other),
            Signed(flipped(a, 3), same),
            None,
            Signed(None),
            Signed(rng.getrandbits(128), ev.of_text(text())),
        ]
    keys = [f"r{i}" for i in range(len(records))]
    for i in rng.sample(range(len(keys)), 40):  # ids need not be unique
        keys[i] = keys[rng.randrange(len(keys))]
    return keys, records


def _sequential_reference(detector, keys: list[str], records: list) -> list:
    """The crawl's loop over ``Signed`` records: query, weigh the candidates with the evidence,
    store the record when none is confirmed."""
    from scrapy_simhash.cli.keeper import MAX_CONFIRMED_CANDIDATES

    index = detector.open_index("memory://")
    stored: dict = {}
    expected = []
    for key, record in zip(keys, records, strict=True):
        if record is None or record.signature is None:
            expected.append(None)
            continue
        found = index.query(record.signature)
        candidates = found[:1] + [
            m for m in found[:MAX_CONFIRMED_CANDIDATES]
            if (m.key, m.fingerprint) != (found[0].key, found[0].fingerprint)
        ]
        match = next((m for m in candidates if detector.is_duplicate(record, stored[m.key])),
                     None)
        if match is None:
            index.add(key, record.signature)
            stored[key] = record
        expected.append(match)
    return expected


def test_cluster_keeper_equals_the_sequential_crawl_decision_within_and_across_chunks() -> None:
    """The batched keeper and the record-by-record one drop and keep exactly what the crawl's
    loop does, with candidates the evidence confirms and candidates it refuses."""
    from scrapy_simhash.cli.dedup import ClusterKeeper
    from scrapy_simhash.cli.keeper import MAX_CONFIRMED_CANDIDATES as CLI_CANDIDATES
    from scrapy_simhash.crawl.dedup import MAX_CONFIRMED_CANDIDATES

    assert CLI_CANDIDATES == MAX_CONFIRMED_CANDIDATES
    detector = get_detector("simhash")
    keys, records = _evidence_chains()
    expected = _sequential_reference(detector, keys, records)
    assert sum(match is not None for match in expected) > 100
    outcomes = []
    for chunk, batched in ((1, True), (7, True), (64, True), (1000, True), (7, False)):
        keeper = ClusterKeeper(detector, detector.open_index("memory://"))
        keeper.batched = batched
        got = []
        for start in range(0, len(keys), chunk):
            got += keeper.decide(keys[start : start + chunk], records[start : start + chunk])
        assert got == expected, (chunk, batched)
        outcomes.append(keeper.unconfirmed)
    assert len(set(outcomes)) == 1 and outcomes[0] > 20  # refused candidates were weighed


def test_cluster_keeper_confirms_against_the_evidence_of_an_earlier_run(tmp_path: Path) -> None:
    """A SQLite index keeps the evidence of the records a run stored: a second run confirms its
    records against them, in one chunk or record by record."""
    from scrapy_simhash.cli.dedup import ClusterKeeper

    detector = get_detector("simhash")
    keys, records = _evidence_chains(seed=9)
    expected = _sequential_reference(detector, keys + keys, records + records)
    for batched in (True, False):
        uri = f"sqlite:///{tmp_path / f'seen-{batched}.db'}"
        got = []
        for _ in range(2):
            with detector.open_index(uri) as index:
                keeper = ClusterKeeper(detector, index)
                keeper.batched = batched
                got += keeper.decide(keys, records)
        assert [m and (m.key, m.distance) for m in got] == [
            m and (m.key, m.distance) for m in expected], batched


def test_cluster_keeper_counts_what_it_stored_before_an_index_fails() -> None:
    """Band indexes (here MinHash's) go record by record: when one check_and_add fails, the
    records stored before it are counted (the CLI's "stopped after storing N" notice)."""
    from scrapy_simhash.cli.dedup import ClusterKeeper

    detector = get_detector("minhash")
    index = detector.open_index("memory://")
    real_check = index.check_and_add
    calls = []

    def failing_third_time(key, signature):
        calls.append(key)
        if len(calls) == 3:
            raise OSError("disk full")
        return real_check(key, signature)

    index.check_and_add = failing_third_time
    texts = [row["body"] for row in sample_rows()[:4]]
    keeper = ClusterKeeper(detector, index)
    assert not keeper.batched
    with pytest.raises(OSError, match="disk full"):
        keeper.decide(["a", "b", "c", "d"], [detector.sign_text(text) for text in texts])
    assert calls == ["a", "b", "c"]
    assert keeper.added == len(index) == 2


def test_sign_batch_signs_as_the_crawl_does() -> None:
    """Signatures and evidence equal to Detector.sign_text / sign_html one by one, also after
    a round trip through pickle (the worker processes' answers)."""
    import pickle

    from scrapy_simhash.cli.common import sign_batch

    rows = sample_rows()
    texts = [row["body"] for row in rows] + ["", "short"]

    def comparable(signed: list) -> list:  # MinHash signatures are numpy arrays
        return [(s.signature.tolist() if hasattr(s.signature, "tolist") else s.signature,
                 s.evidence) for s in signed]

    for algorithm in ("simhash", "minhash"):
        detector = get_detector(algorithm)
        batch = sign_batch(detector, "text", texts)
        assert comparable(batch) == comparable([detector.sign_text(t) for t in texts])
        assert comparable(pickle.loads(pickle.dumps(batch))) == comparable(batch)
    detector = get_detector("simhash")
    pages = [(f"<html><body><article><p>{t}</p></article></body></html>", "https://a.test/")
             for t in texts]
    batch = sign_batch(detector, "html", pages)
    assert batch == [detector.sign_html(html, None, url) for html, url in pages]
    assert sum(signed.evidence is not None for signed in batch) >= 8


FAILING_EXTRACTOR = """
from scrapy_simhash.extract import extract_main_text

def fail_on_marked(html, encoding=None, url=None):
    if "MARKED" in html:
        raise RuntimeError("cannot read this page")
    return extract_main_text(html, encoding, url)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_records_the_extractor_fails_on_are_kept_unfingerprinted(workdir: Path, jobs) -> None:
    """A custom extractor that raises on one record: the run goes on (as a crawl keeps such a
    page, counted), the record is kept unfingerprinted, and one line names the first cause."""
    (workdir / "failing_extractor.py").write_text(FAILING_EXTRACTOR, encoding="utf-8")
    page = "<html><body><article><p>{}</p></article></body></html>"
    rows = [{"url": "a", "html": page.format(EN_HARBOUR)},
            {"url": "b", "html": page.format("MARKED " + EN_ORCHARD)},
            {"url": "c", "html": page.format(EN_HARBOUR)},
            {"url": "d", "html": page.format(EN_ORCHARD)}]
    write_jsonl(workdir / "pages.jsonl", rows)
    result = run_cli("dedup", "pages.jsonl", "-f", "html", "--html", "--id-field", "url",
                     "--extractor", "failing_extractor.fail_on_marked", "--jobs", jobs,
                     "--out", "kept.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    assert result.stderr == (
        "scrapy-simhash: the extractor failed on 1 record(s), kept unfingerprinted; the first: "
        "pages.jsonl:2: RuntimeError: cannot read this page\n")
    kept = [json.loads(line)["url"] for line in (workdir / "kept.jsonl").open(encoding="utf-8")]
    assert kept == ["a", "b", "d"]
    assert summary_of(result.stdout) == (4, 3, 1, 1, 0)


@pytest.mark.parametrize(("extra", "expected"), [
    (("--out", "no_such_folder/kept.jsonl"), "scrapy-simhash: error: "),
    (("--out", "kept.jsonl", "--dups", "no_such_folder/dups.jsonl"), "scrapy-simhash: error: "),
    (("--out", "kept.jsonl", "--index", "sqlite:///no_such_folder/seen.db"),
     "scrapy-simhash: error: index: "),
    (("--out", "kept.jsonl", "--index", "redis://127.0.0.1:1/0?socket_connect_timeout=1"),
     "scrapy-simhash: error: index: "),
])
def test_files_and_indexes_that_cannot_be_used_are_one_line_errors(workdir, extra, expected):
    write_jsonl(workdir / "crawl.jsonl", sample_rows()[:3])
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", *extra, cwd=workdir)
    assert result.code == 2
    assert result.stderr.startswith(expected), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_ids_python_cannot_encode_are_kept_as_escapes(workdir: Path) -> None:
    body = sample_rows()[0]["body"]
    text = json.dumps(body)
    lines = ['{"id": "x\\ud83d", "body": ' + text + "}", '{"id": "y", "body": ' + text + "}"]
    (workdir / "crawl.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--id-field", "id",
                     "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    assert json.loads((workdir / "dups.jsonl").read_text("utf-8")) == {
        "id": "y", "duplicate_of": "x\\ud83d", "distance": 0}


def test_a_first_record_without_the_text_field_is_kept_unfingerprinted(workdir: Path) -> None:
    rows = sample_rows()[:3]
    lines = write_jsonl(workdir / "crawl.jsonl", [{"url": "https://a.example/no-body"}, *rows])
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept.jsonl",
                     "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    kept, dups = reference([r["body"] for r in rows], ["2", "3", "4"])
    assert kept == [0, 1] and len(dups) == 1  # the planted copy of record 2 still goes
    # the record without a body comes first in the kept output, as it was read
    assert (workdir / "kept.jsonl").read_text("utf-8") == (
        lines[0] + "\n" + "".join(lines[1 + i] + "\n" for i in kept)
    )
    assert (workdir / "dups.jsonl").read_text("utf-8") == dups_text(dups)
    assert summary_of(result.stdout) == (4, 1 + len(kept), len(dups), 1, 0)


def test_a_record_lacking_one_of_several_fields_is_checked_on_the_others(workdir: Path) -> None:
    """Scrapy's exports leave unset fields out: with --field title --field body, records
    without a title are compared on their body (as the item pipeline joins an item's fields),
    not kept unfingerprinted."""
    write_jsonl(workdir / "crawl.jsonl", [
        {"url": "a", "title": "Harbour", "body": EN_HARBOUR}, {"url": "b", "body": EN_ORCHARD},
        {"url": "c", "body": EN_ORCHARD}, {"url": "d", "title": "Orchard"},
    ])
    result = run_cli("dedup", "crawl.jsonl", "-f", "title", "-f", "body", "--id-field", "url",
                     "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    kept = [json.loads(line)["url"] for line in (workdir / "kept.jsonl").open(encoding="utf-8")]
    assert kept == ["a", "b", "d"]  # c duplicates b; d's title alone is too short to compare
    assert [json.loads(line) for line in (workdir / "dups.jsonl").open(encoding="utf-8")] == [
        {"id": "c", "duplicate_of": "b", "distance": 0}]


def test_a_field_no_record_has_is_unknown_even_beside_known_ones(workdir: Path) -> None:
    write_jsonl(workdir / "crawl.jsonl", sample_rows()[:3])
    result = run_cli("dedup", "crawl.jsonl", "-f", "title", "-f", "bdy", "--out", "kept.jsonl",
                     cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        "scrapy-simhash: error: crawl.jsonl:1: unknown field 'bdy' (fields: url, title, body)")
    assert sorted(p.name for p in workdir.iterdir()) == ["crawl.jsonl"]


@pytest.mark.parametrize(("extra", "message"), [
    (("--out", "same.jsonl", "--dups", "same.jsonl"), "--out and --dups name the same file"),
    (("--out", "a_folder"), "a_folder: is a folder"),
    (("--out", "kept.jsonl", "--dups", "a_folder"), "a_folder: is a folder"),
    (("--out", "kept.jsonl", "--chunk-size", "0"), "--chunk-size must be at least 1"),
])
def test_outputs_that_cannot_both_be_written_are_refused_before_the_run(workdir, extra, message):
    write_jsonl(workdir / "crawl.jsonl", sample_rows()[:3])
    (workdir / "a_folder").mkdir()
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", *extra, cwd=workdir)
    assert result.code == 2
    assert message in result.stderr
    assert sorted(p.name for p in workdir.iterdir()) == ["a_folder", "crawl.jsonl"]


# -- interrupts, stored namespaces, options an algorithm does not use ---------------------------


def _endless_records(stream, stop: threading.Event) -> None:
    """Write varied JSON lines to ``stream`` until ``stop`` or until its reader goes away."""
    rng = random.Random(11)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(3000)]
    number = 0
    try:
        while not stop.is_set():
            batch = []
            for _ in range(200):
                number += 1
                body = " ".join(rng.choice(words) for _ in range(120))
                batch.append(json.dumps({"url": f"https://x.example/{number}", "body": body}))
            stream.write(("\n".join(batch) + "\n").encode())
            stream.flush()
    except (BrokenPipeError, OSError, ValueError):  # the run ended
        pass
    finally:
        with contextlib.suppress(OSError):
            stream.close()


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_ctrl_c_with_workers_exits_130_with_one_line_and_no_temp_file(workdir: Path) -> None:
    """Ctrl-C signals the whole process group, the workers too: the run must still stop (not
    hang in Pool.terminate), print one line and leave no temporary file."""
    process = subprocess.Popen(
        [sys.executable, "-m", "scrapy_simhash", "dedup", "-", "--format", "jsonl", "-f", "body",
         "--out", "kept.jsonl", "--jobs", "3", "-q"],
        cwd=workdir, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,  # its own group, as a terminal's foreground job is
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    stop = threading.Event()
    feeder = threading.Thread(target=_endless_records, args=(process.stdin, stop), daemon=True)
    feeder.start()
    try:
        deadline = time.monotonic() + 60
        while not any(p.name.endswith(".tmp") and p.stat().st_size > 0
                      for p in workdir.iterdir()):  # workers are signing records
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "no output after 60 s"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("still running 60 s after Ctrl-C")
        stderr = process.stderr.read().decode()
    finally:
        stop.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        feeder.join(timeout=10)
        process.stdout.close()
        process.stderr.close()
    assert (code, stderr) == (130, "scrapy-simhash: interrupted\n")
    assert sorted(p.name for p in workdir.iterdir()) == []


@pytest.mark.parametrize("action", ["stats", "query"])
def test_index_commands_on_a_missing_redis_namespace_refuse_and_create_nothing(
    workdir: Path, redis_server, redis_url, redis_prefix, action: str
) -> None:
    write_jsonl(workdir / "crawl.jsonl", sample_rows())
    made = run_cli("dedup", "crawl.jsonl", "--field", "body", "--index", redis_url, "--out",
                   "kept.jsonl", cwd=workdir)  # namespace "pages" exists
    assert made.code == 0, made.stderr
    (workdir / "query.txt").write_text(EN_ORCHARD, encoding="utf-8")
    extra = ("--text", "query.txt") if action == "query" else ()
    result = run_cli("index", action, redis_url, "--namespace", "nope", *extra, cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        f"scrapy-simhash: error: {redis_url}: no namespace 'nope' under prefix "
        f"{redis_prefix!r} (namespaces: pages)"
    )
    client = redis_server.client()
    try:
        assert client.keys(f"{{{redis_prefix}:nope}}*") == []
    finally:
        client.close()
    found = run_cli("index", action, redis_url, *extra, cwd=workdir)
    assert found.code == 0, found.stderr


def test_report_on_a_folder_is_a_one_line_error(workdir: Path) -> None:
    (workdir / "saved").mkdir()
    result = run_cli("report", "saved", "--html", "r.html", cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        "scrapy-simhash: error: saved: is a folder; name the --dups file of dedup (JSON lines)"
    )
    assert sorted(p.name for p in workdir.iterdir()) == ["saved"]


@pytest.mark.parametrize(("extra", "message"), [
    (("--algorithm", "minhash", "-k", "3"),
     "--max-distance/-k applies to --algorithm simhash only, not minhash"),
    (("--algorithm", "exact", "--bits", "64"), "--bits applies to --algorithm simhash only, "
     "not exact"),
    (("--algorithm", "ksentence", "--weighting", "logtf"),
     "--weighting applies to --algorithm simhash only, not ksentence"),
    (("--algorithm", "minhash", "--features", "shingles"),
     "--features applies to --algorithm simhash only, not minhash"),
    (("--threshold", "0.3",), "--threshold applies to --algorithm minhash only, not simhash"),
    (("--num-perm", "64",), "--num-perm applies to --algorithm minhash only, not simhash"),
    (("--algorithm", "exact", "-o", "threshold=0.3"),
     "-o threshold applies to --algorithm minhash only, not exact"),
])
@pytest.mark.parametrize("command", ["dedup", "compare"])
def test_options_the_algorithm_does_not_use_are_refused(workdir, command, extra, message):
    write_jsonl(workdir / "crawl.jsonl", sample_rows()[:3])
    (workdir / "a.txt").write_text(EN_HARBOUR)
    where = (("crawl.jsonl", "--field", "body", "--out", "kept.jsonl") if command == "dedup"
             else ("a.txt", "a.txt", "--text"))
    result = run_cli(command, *where, *extra, cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == f"scrapy-simhash: error: {message}"
    assert not (workdir / "kept.jsonl").exists()


@pytest.mark.parametrize(("extra", "algorithm", "options"), [
    (("--algorithm", "minhash", "--threshold", "0.4", "--num-perm", "64", "--min-tokens", "3"),
     "minhash", {"threshold": 0.4, "num_perm": 64, "min_tokens": 3}),
    (("--algorithm", "exact", "--min-tokens", "3"), "exact", {"min_tokens": 3}),
    (("--bits", "64", "-k", "3", "--features", "words", "--weighting", "tf"),
     "simhash", {"bits": 64, "max_distance": 3, "features": "words", "weighting": "tf"}),
])
def test_options_the_algorithm_uses_are_accepted(workdir, extra, algorithm, options):
    rows = sample_rows()
    lines = write_jsonl(workdir / "crawl.jsonl", rows)
    result = run_cli("dedup", "crawl.jsonl", "--field", "body", "--out", "kept.jsonl",
                     "--dups", "dups.jsonl", *extra, cwd=workdir)
    assert result.code == 0, (extra, result.stderr)
    kept, dups = reference([r["body"] for r in rows], [str(n) for n in range(1, 11)],
                           algorithm, **options)
    assert (workdir / "kept.jsonl").read_text("utf-8") == "".join(lines[i] + "\n" for i in kept)
    assert (workdir / "dups.jsonl").read_text("utf-8") == dups_text(dups)
    assert summary_of(result.stdout)[:3] == (10, len(kept), len(dups))


def test_an_output_that_cannot_be_completed_leaves_the_index_as_it_was(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A full disk when the kept records are put on disk: the run fails naming --out, neither
    output appears, and the SQLite index holds nothing of the run (a repeated run keeps what a
    first one keeps, instead of dropping every record as already seen)."""
    import errno

    from scrapy_simhash import cli
    from scrapy_simhash.cli import records

    write_jsonl(workdir / "crawl.jsonl", sample_rows())
    monkeypatch.chdir(workdir)
    arguments = ["dedup", "crawl.jsonl", "-f", "body", "--index", "sqlite:///seen.db",
                 "--out", "kept.jsonl", "--dups", "dups.jsonl", "-q"]

    def full_disk(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(records.os, "fsync", full_disk)
        assert cli.main(arguments) == 2
    assert capsys.readouterr().err == (
        "scrapy-simhash: error: kept.jsonl: No space left on device\n")
    assert sorted(p.name for p in workdir.iterdir()) == ["crawl.jsonl", "seen.db"]
    assert cli.main(arguments) == 0
    kept = (workdir / "kept.jsonl").read_text(encoding="utf-8").splitlines()
    assert cli.main(["dedup", "crawl.jsonl", "-f", "body", "--out", "fresh.jsonl", "-q"]) == 0
    assert kept == (workdir / "fresh.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(kept) >= len(CERTAINLY_KEPT)


def test_report_without_the_cli_extra_names_the_package_to_install(workdir: Path,
                                                                    monkeypatch) -> None:
    missing = workdir / "without"
    (missing / "matplotlib").mkdir(parents=True)
    (missing / "matplotlib" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'matplotlib'\", name='matplotlib')\n")
    monkeypatch.setenv("PYTHONPATH", str(missing))
    write_jsonl(workdir / "dups.jsonl", [{"id": "p2", "duplicate_of": "p1", "distance": 1}])
    result = run_cli("report", "dups.jsonl", "--html", "report.html", cwd=workdir)
    assert result.code == 2
    assert result.stderr.strip() == (
        "scrapy-simhash: error: report draws its histogram with matplotlib, which is not "
        "installed: pip install matplotlib (the package's 'cli' extra)"
    )
    assert "Traceback" not in result.stderr
    assert not (workdir / "report.html").exists()
