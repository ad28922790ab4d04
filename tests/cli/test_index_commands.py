"""``scrapy-simhash index stats`` / ``index query`` on stored indexes: files named as users name
them, indexes opened as they were built, nothing created by looking, one-line errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_simhash.fingerprint import Fingerprinter
from scrapy_simhash.index import open_index
from scrapy_simhash.index.uri import sqlite_uri

from .conftest import Run, run_cli
from .samples import EN_HARBOUR, EN_ORCHARD

ODD_NAME = "run #2 %20 what?.db"


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def build(path: Path, **options) -> None:
    """An index of the two sample articles, fingerprinted as ``options`` say."""
    fingerprinter = Fingerprinter(**{k: v for k, v in options.items() if k != "tables"})
    with open_index(sqlite_uri(path), params=fingerprinter.params, **options) as index:
        index.add("https://news.example/harbour", fingerprinter.fingerprint_text(EN_HARBOUR))
        index.add("https://news.example/orchard", fingerprinter.fingerprint_text(EN_ORCHARD))


def one_line_error(result: Run) -> str:
    assert result.code == 2, result
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr.strip().removeprefix("scrapy-simhash: error: ")


@pytest.mark.parametrize(
    "typed",
    [sqlite_uri(ODD_NAME),  # escaped: sqlite:///run%20%232%20%2520%20what%3F.db
     f"sqlite:///{ODD_NAME}",  # as a user types it
     ODD_NAME],  # a plain path
)
def test_a_file_is_found_whatever_its_name_holds(tmp_path, typed):
    build(tmp_path / ODD_NAME)
    (tmp_path / "query.txt").write_text(EN_ORCHARD.upper(), encoding="utf-8")
    before = listing(tmp_path)
    stats = run_cli("index", "stats", typed, "--json", cwd=tmp_path)
    assert stats.code == 0, stats.stderr
    info = json.loads(stats.stdout)
    assert (info["size"], info["bits"], info["max_distance"]) == (2, 128, 16)
    query = run_cli("index", "query", typed, "--text", "query.txt", cwd=tmp_path)
    assert query.code == 0, query.stderr
    assert re.search(r"^\s+0  [0-9a-f]{32}  https://news\.example/orchard$", query.stdout, re.M)
    assert listing(tmp_path) == before  # nothing created by looking


@pytest.mark.parametrize(
    "options",
    [{"bits": 64, "max_distance": 3, "tables": 5},  # blocks(5): 10 tables
     {"bits": 64, "max_distance": 6, "tables": 2},  # mih(2)
     {"bits": 128, "max_distance": 10, "tables": "manku"}],
)
def test_an_index_opens_with_the_parameters_it_was_built_with(tmp_path, options):
    build(tmp_path / "crawl.db", **options)
    with open_index(sqlite_uri(tmp_path / "crawl.db"), **options) as index:
        layout = index.layout.describe()
    stats = run_cli("index", "stats", "sqlite:///crawl.db", "--json", cwd=tmp_path)
    assert stats.code == 0, stats.stderr
    info = json.loads(stats.stdout)
    assert (info["bits"], info["max_distance"], info["layout"]) == (
        options["bits"], options["max_distance"], layout
    )
    assert len(info["tables"]) == int(layout.split(": ")[1].split()[0])


def test_a_missing_file_is_named_and_not_created(tmp_path):
    for action in (("stats",), ("query", "--text", "q.txt")):
        result = run_cli("index", *action, sqlite_uri("nothing #1.db"), cwd=tmp_path)
        assert one_line_error(result) == "nothing #1.db: no such index file"
    assert listing(tmp_path) == []


def test_files_that_are_no_index_are_named_with_the_cause(tmp_path):
    (tmp_path / "notes.db").write_text("a text file, not a database\n" * 100, encoding="utf-8")
    with sqlite3.connect(tmp_path / "other.db") as conn:
        conn.execute("CREATE TABLE t (a)")
    conn.close()
    assert one_line_error(run_cli("index", "stats", "sqlite:///notes.db", cwd=tmp_path)) \
        .startswith("notes.db: not an SQLite database")
    assert one_line_error(run_cli("index", "stats", "sqlite:///other.db", cwd=tmp_path)) \
        .startswith("other.db: not a scrapy-simhash SimHash index")


def test_a_damaged_index_names_the_file(tmp_path):
    path = tmp_path / "crawl.db"
    with open_index(sqlite_uri(path), bits=64, max_distance=3) as index:
        index.add_many((f"https://example.com/page/{i}", (i * 0x9E3779B97F4A7C15) % 2**64)
                       for i in range(20_000))
    data = bytearray(path.read_bytes())
    middle = len(data) // 2 // 4096 * 4096
    data[middle : middle + 4 * 4096] = bytes(range(256)) * 64
    path.write_bytes(data)
    message = one_line_error(run_cli("index", "stats", "sqlite:///crawl.db", cwd=tmp_path))
    assert message.startswith("crawl.db: the SQLite file is damaged")


def _read_only_runner(folder: Path):
    """A way to run the command line with ``folder`` read-only: a read-only bind mount in a
    mount namespace of its own for root (whom mode bits do not stop), chmod for anyone else."""
    if os.geteuid() != 0:
        return None
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run(
        [unshare, "-m", "--propagation", "private", "sh", "-c",
         f'mount --bind -o ro "{folder}" "{folder}" && ! touch "{folder}/probe" 2>/dev/null'],
        capture_output=True, timeout=30,
    )
    return unshare if probe.returncode == 0 else False


def test_an_index_in_a_read_only_folder_is_readable(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    build(folder / "crawl.db")
    runner = _read_only_runner(folder)
    if runner is False:
        pytest.skip("no way to make a folder read-only for root here (unshare -m, mount)")
    command = [sys.executable, "-m", "scrapy_simhash", "index", "stats", "sqlite:///crawl.db"]
    if runner is None:
        folder.chmod(0o555)
        try:
            done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
        finally:
            folder.chmod(0o755)
    else:
        script = f'mount --bind -o ro "{folder}" "{folder}" && exec "$@"'
        done = subprocess.run([runner, "-m", "--propagation", "private", "sh", "-c", script,
                               "sh", *command], cwd=folder, capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    assert "size          2\n" in done.stdout
    assert listing(folder) == ["crawl.db"]


def test_a_redis_that_needs_a_password_says_so(tmp_path):
    from redisfixture import start_or_skip

    server = start_or_skip(tmp_path / "redis", password="TOPSECRET")
    try:
        url = f"redis://127.0.0.1:{server.port}/0?prefix=auth"
        message = one_line_error(run_cli("index", "stats", url, cwd=tmp_path))
        assert f"needs a password: redis://:PASSWORD@127.0.0.1:{server.port}/0" in message
        assert "HELLO" not in message
    finally:
        server.stop()
