"""Running tests/reliability/crawl_script.py in a subprocess, and reading what it wrote."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCRIPT = HERE / "crawl_script.py"


def start_crawl(url: str, out: Path, settings: dict) -> subprocess.Popen:
    """Start a crawl of the site at ``url``; its output and log go under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = open(out / f"log-{time.monotonic_ns()}.txt", "w")  # noqa: SIM115 - child owns it
    try:
        return subprocess.Popen(
            [sys.executable, str(SCRIPT), url, str(out), json.dumps(settings)],
            cwd=out, env=env, stdout=log, stderr=subprocess.STDOUT,
        )
    finally:
        log.close()


def wait_for_requests(server, count: int, process: subprocess.Popen, limit: float = 60) -> None:
    """Block until ``server`` has served ``count`` requests in total (or the crawl ended)."""
    deadline = time.monotonic() + limit
    while server.requests < count and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)


def items(out: Path, pid: int | None = None) -> list[dict]:
    pattern = f"items-{pid}.jsonl" if pid else "items-*.jsonl"
    rows = []
    for path in sorted(glob.glob(str(out / pattern))):
        text = Path(path).read_text(encoding="utf-8")
        rows += [json.loads(line) for line in text.splitlines() if line.strip()]
    return rows


def stats(out: Path, pid: int) -> dict:
    path = out / f"stats-{pid}.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def logs(out: Path) -> str:
    return "\n".join(Path(p).read_text() for p in sorted(glob.glob(str(out / "log-*.txt"))))
