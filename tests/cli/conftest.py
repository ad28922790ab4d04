"""Helpers for the command-line tests: run the console script, write sample inputs."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from redisfixture import redis_prefix, redis_server, redis_url  # noqa: F401

from .samples import RECORDS

SCRIPT = Path(sys.executable).with_name("scrapy-simhash")


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str | Path, cwd: Path, script: bool = False, stdin: str | None = None,
            timeout: float = 120) -> Run:
    """Run ``scrapy-simhash`` (the console script, or ``python -m scrapy_simhash``); ``stdin``
    is piped to it (else it reads nothing)."""
    command = [str(SCRIPT)] if script else [sys.executable, "-m", "scrapy_simhash"]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    feed: dict = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}
    done = subprocess.run(
        [*command, *map(str, args)], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
        env=env, timeout=timeout, **feed,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def dedup_every_way(workdir: Path, name: str, chunk_sizes: tuple[int, ...]) -> list[tuple]:
    """(kept bytes, dups bytes, stdout) of ``dedup NAME --field body`` run with each chunk size,
    with two jobs on chunks of 4, and at the defaults: every way must give the same answer."""
    outputs = []
    ways = [["--chunk-size", str(size)] for size in chunk_sizes]
    for extra in [*ways, ["--jobs", "2", "--chunk-size", "4"], []]:
        result = run_cli("dedup", name, "--field", "body", "--out", "kept.jsonl",
                         "--dups", "dups.jsonl", *extra, cwd=workdir)
        assert result.code == 0, result.stderr
        outputs.append(((workdir / "kept.jsonl").read_bytes(),
                        (workdir / "dups.jsonl").read_bytes(), result.stdout))
    return outputs


def sample_rows() -> list[dict[str, str]]:
    return [{"url": url, "title": title, "body": body} for url, title, body in RECORDS]


def write_jsonl(path: Path, rows: list[dict]) -> list[str]:
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines


def write_json_array(path: Path, rows: list[dict]) -> None:
    path.write_text(
        "[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n]",
        encoding="utf-8",
    )


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path
