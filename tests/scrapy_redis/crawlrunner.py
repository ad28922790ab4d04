"""Starting ``scrapy crawl pages`` processes of the distcrawl project and reading their output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


@dataclass
class Crawl:
    """One ``scrapy crawl`` process and the files it writes."""

    process: subprocess.Popen
    folder: Path

    def wait_ready(self, timeout: float = 60) -> None:
        """Until the spider is open (its ``stats.ready`` marker exists) or the process ended."""
        deadline = time.monotonic() + timeout
        marker = self.folder / "stats.ready"
        while not marker.exists() and self.process.poll() is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"the crawl in {self.folder} did not open in {timeout}s")
            time.sleep(0.05)

    def wait(self, timeout: float = 90) -> CrawlOutput:
        try:
            log, _ = self.process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            log, _ = self.process.communicate()
            message = f"the crawl did not finish in {timeout}s:\n{log[-3000:]}"
            raise AssertionError(message) from None
        items_file = self.folder / "items.jsonl"
        stats_file = self.folder / "stats.json"
        return CrawlOutput(
            returncode=self.process.returncode,
            log=log,
            items=[json.loads(line) for line in items_file.read_text().splitlines() if line]
            if items_file.is_file() else [],
            stats=json.loads(stats_file.read_text()) if stats_file.is_file() else {},
        )


@dataclass
class CrawlOutput:
    returncode: int
    log: str
    items: list[dict]
    stats: dict


def start_crawl(folder: Path, settings: dict[str, object]) -> Crawl:
    """``python -m scrapy crawl pages`` in the distcrawl project, with ``-s`` overrides."""
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), str(REPO)])
    env["SCRAPY_SETTINGS_MODULE"] = "distcrawl.settings"
    overrides = {"STATS_DUMP_FILE": str(folder / "stats.json"), **settings}
    command = [sys.executable, "-m", "scrapy", "crawl", "pages",
               "-o", str(folder / "items.jsonl:jsonlines")]
    for name, value in overrides.items():
        command += ["-s", f"{name}={value}"]
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    return Crawl(process, folder)


def redis_settings(redis_url: str, prefix: str, index_url: str | None = None,
                   index_options: str = "") -> dict[str, str]:
    """The per-run keys: queue, dupefilter and start URLs under ``prefix``; the index URI
    (``index_options``: more of its query string, e.g. ``&retry_interval=0.2``)."""
    return {
        "REDIS_URL": redis_url,
        "REDIS_START_URLS_KEY": f"{prefix}:start_urls",
        "SCHEDULER_QUEUE_KEY": f"{prefix}:requests",
        "SCHEDULER_DUPEFILTER_KEY": f"{prefix}:dupefilter",
        "SIMHASH_INDEX_URI": f"{index_url or redis_url}?prefix={prefix}{index_options}",
    }
