"""What scrapy-simhash adds to a crawl's start-up, beside what Scrapy and jieba cost on their own.

    .venv/bin/python benchmarks/startup.py [--runs 7]

Every figure is measured in a fresh Python process (nothing imported, as ``scrapy crawl``
starts), taking turns, and printed as the median of ``--runs``:

- **imports**: Scrapy's (``scrapy.crawler``, what any crawl pays), then the plugin's components
  on top of it;
- **the crawl's detector** (``build_detector`` with the default settings, as the middleware and
  the pipeline build it at start-up: jieba's dictionary and HMM tables, the code point tables, a
  warm-up page), beside ``jieba.initialize()``, jieba's own parse of the same dictionary file
  (without the cache an earlier run leaves in the temporary directory, which would make it a
  load of jieba's own prefix dictionary instead);
- **a worker process**: from its spawn until it answers ``ready`` (its imports and its own
  detector), the time during which the crawl checks its first pages itself.

CPU times are the process's own (``time.process_time``); the worker's figure is wall time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SCRAPY_IMPORT = """
import time
t = time.perf_counter()
import scrapy.crawler, scrapy.http
print(time.perf_counter() - t)
"""

PLUGIN_IMPORT = """
import time
import scrapy.crawler, scrapy.http
t = time.perf_counter()
import scrapy_simhash.crawl.addon, scrapy_simhash.crawl.downloader, scrapy_simhash.crawl.pipeline
print(time.perf_counter() - t)
"""

DETECTOR = """
import time
import scrapy.crawler, scrapy.http, scrapy_simhash.crawl.downloader
from scrapy.settings import Settings
from scrapy_simhash.crawl.settings import build_detector
from scrapy_simhash.crawl.settings import load_config
config = load_config(Settings())
t = time.process_time()
build_detector(config)
print(time.process_time() - t)
"""

JIEBA = """
import logging, tempfile, time
with tempfile.TemporaryDirectory() as fresh:
    t = time.process_time()
    import jieba
    jieba.setLogLevel(logging.WARNING)
    jieba.dt.tmp_dir = fresh  # no cache of an earlier run: dict.txt is parsed
    jieba.initialize()
    print(time.process_time() - t)
"""

WORKER = """
import subprocess, sys, time
from scrapy_simhash.crawl.settings import SimhashConfig
from scrapy_simhash.crawl.workers.child import COMMAND_CODE, HEADER, encode_frame
t = time.perf_counter()
worker = subprocess.Popen([sys.executable, "-c", COMMAND_CODE], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE)
worker.stdin.write(encode_frame(("init", SimhashConfig())))
worker.stdin.flush()
header = worker.stdout.read(HEADER.size)  # the "ready" frame's header
if len(header) < HEADER.size:
    raise SystemExit("the worker exited before it was ready")
print(time.perf_counter() - t)
worker.stdin.close()
worker.wait()
"""

MEASUREMENTS = [
    ("import Scrapy (scrapy.crawler, scrapy.http)", "wall", SCRAPY_IMPORT),
    ("import the plugin's components, after Scrapy", "wall", PLUGIN_IMPORT),
    ("jieba.initialize(), no cache (jieba parsing the same dict.txt)", "CPU", JIEBA),
    ("the crawl's detector (build_detector, defaults)", "CPU", DETECTOR),
    ("a worker process, spawn to ready", "wall", WORKER),
]


def measure(code: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return float(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    seconds: dict[str, list[float]] = {name: [] for name, _, _ in MEASUREMENTS}
    for _ in range(args.runs):
        for name, _, code in MEASUREMENTS:  # taking turns: a drifting host weighs on all alike
            seconds[name].append(measure(code))
    print(f"Start-up, seconds (median of {args.runs} fresh processes; min-max)")
    print("| what | clock | median | min-max |")
    print("|---|---|---:|---:|")
    for name, clock, _ in MEASUREMENTS:
        values = seconds[name]
        print(f"| {name} | {clock} | {statistics.median(values):.3f} | "
              f"{min(values):.3f}-{max(values):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
