"""Running real crawls of the example project in a subprocess, and reading what they wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

EXAMPLE_PROJECT = Path(__file__).resolve().parents[2] / "example_project"
REPO = EXAMPLE_PROJECT.parent
if str(EXAMPLE_PROJECT) not in sys.path:
    sys.path.insert(0, str(EXAMPLE_PROJECT))

from demosite.server import DemoServer  # noqa: E402


@dataclass
class CrawlResult:
    returncode: int
    log: str
    stats: dict
    items: list[dict]
    report: list[dict]
    requested: list[str]

    def item_paths(self, base: str) -> set[str]:
        return {item["url"][len(base):] for item in self.items}


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def run_crawl(
    server: DemoServer, out: Path, *args: str, script: str | None = None, timeout: float = 120
) -> CrawlResult:
    """``scrapy crawl news`` (or ``python -c script``) in the example project, in a subprocess."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("items.jsonl", "duplicates.jsonl", "stats.json"):
        (out / name).unlink(missing_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(EXAMPLE_PROJECT), str(REPO)])
    settings = [
        "-s", f"SIMHASH_REPORT_FILE={out / 'duplicates.jsonl'}",
        "-s", f"STATS_DUMP_FILE={out / 'stats.json'}",
        "-s", "LOG_LEVEL=DEBUG",
    ]
    if script is None:
        command = [sys.executable, "-m", "scrapy", "crawl", "news", "-a",
                   f"start_url={server.url}/", "-O", str(out / "items.jsonl"), *settings, *args]
    else:
        command = [sys.executable, "-c", script, server.url, str(out), *args]
    before = len(server.requested)
    done = subprocess.run(command, cwd=EXAMPLE_PROJECT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    stats_path = out / "stats.json"
    return CrawlResult(
        returncode=done.returncode,
        log=done.stdout + done.stderr,
        stats=json.loads(stats_path.read_text()) if stats_path.is_file() else {},
        items=_read_jsonl(out / "items.jsonl"),
        report=_read_jsonl(out / "duplicates.jsonl"),
        requested=server.requested[before:],
    )
