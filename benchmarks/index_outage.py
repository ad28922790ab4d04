"""A crawl whose Redis index freezes: the reactor's largest stall, and the pages the spider gets.

    .venv/bin/python benchmarks/index_outage.py [--runs 3] [--pages 60] [--freeze 6]

Starts its own ``redis-server`` on a free loopback port and serves ``--pages`` distinct pages on
loopback; a real crawl (``CrawlerProcess`` in a fresh process, one request at a time every
``--delay`` seconds, signatures inline) stores them in a Redis index. Once the site has served
``--freeze-after`` requests, the Redis process is stopped (SIGSTOP) for ``--freeze`` seconds,
then continued (SIGCONT). A heartbeat in the spider (a LoopingCall every 0.1 s, from the first
response on) records the largest gap between two beats: the longest the reactor stalled.

Two modes, each run ``--runs`` times, taking turns: ``inline`` (``SIMHASH_INDEX_TIMEOUT=0``, the
index called on the reactor thread, as before the index calls had a thread of their own) and
``thread`` (the default: a thread, a 1 s deadline per call, a circuit breaker). Prints medians.

The same crawl, with fewer checks printed, is the end-to-end test
``tests/crawl/test_index_outage.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager as ContextManager
from functools import partial
from pathlib import Path

if __package__:  # imported as benchmarks.index_outage (tests/crawl/test_index_outage.py)
    from .loopback import LoopbackSite
else:  # run as a script
    from loopback import LoopbackSite

REPO = Path(__file__).resolve().parents[1]

CRAWL_SCRIPT = r"""
import json, sys, time
from scrapy import Request, Spider, signals
from scrapy.crawler import CrawlerProcess
from twisted.internet import task

base, count, settings = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
received = []  # time.monotonic() of each response the spider got
heartbeat = {"last": None, "largest_gap": 0.0}

def beat():
    now = time.monotonic()
    if heartbeat["last"] is not None:
        heartbeat["largest_gap"] = max(heartbeat["largest_gap"], now - heartbeat["last"])
    heartbeat["last"] = now

class PagesSpider(Spider):
    name = "pages"

    async def start(self):
        for n in range(count):
            yield Request(f"{base}/p/{n}", errback=self.failed)

    def parse(self, response):
        received.append(time.monotonic())
        if len(received) == 1:  # the crawl runs: from now on the reactor must never stall
            self.beats = task.LoopingCall(beat)
            self.beats.start(0.1)
        yield {"url": response.url}

    def failed(self, failure):
        print("failed:", failure.value, file=sys.stderr)

process = CrawlerProcess(settings)
crawler = process.create_crawler(PagesSpider)
stats = {}

def on_closed(spider, reason):
    beats = getattr(spider, "beats", None)
    if beats is not None and beats.running:
        beats.stop()

def on_stopped():
    stats.update(crawler.stats.get_stats())

crawler.signals.connect(on_closed, signal=signals.spider_closed)
crawler.signals.connect(on_stopped, signal=signals.engine_stopped)
process.crawl(crawler)
process.start()
print(json.dumps({"received": received, "largest_gap": heartbeat["largest_gap"],
                  "stats": {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}}))
"""

_SYLLABLES = "ba ce di fo gu ka le mi no pu ra se ti vo zu".split()
#: 3,375 made-up words: pages drawn from them share few words, so none is another's candidate.
_WORDS = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES]


def page_html(n: int) -> bytes:
    """A page of its own: ~300 words drawn for ``n`` (no two pages are near duplicates)."""
    draw = random.Random(n)
    paragraphs = "".join(
        "<p>" + " ".join(draw.choice(_WORDS) for _ in range(60)) + ".</p>" for _ in range(5)
    )
    return (f"<html><head><title>Page {n}</title></head><body><article><h1>Page {n}</h1>"
            f"{paragraphs}</article></body></html>").encode()


@contextlib.contextmanager
def sigstopped(pid: int) -> Iterator[None]:
    """The process ``pid`` (a redis-server) stopped meanwhile: it neither reads nor answers."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def write_locked(path: Path) -> Iterator[None]:
    """SQLite's write lock on the file ``path`` held meanwhile (as another process writing a
    long transaction would): the crawl's writes wait for it."""
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    deadline = time.monotonic() + 30
    try:
        while True:  # between two of the crawl's commits: SQLite's own busy wait, backing off
            try:  # up to 100 ms a try, could lose the race to the crawl's next write every time
                holder.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.001)
        yield
        holder.execute("ROLLBACK")
    finally:
        holder.close()


def crawl_with_a_freeze(
    index_uri: str, frozen_index: Callable[[], ContextManager], *, pages: int = 60,
    delay: float = 0.25, freeze_after: int = 10, freeze: float = 6.0,
    settings: dict | None = None, timeout: float = 120.0,
) -> dict:
    """Crawl ``pages`` pages into the index at ``index_uri``, frozen by ``frozen_index()`` (e.g.
    :func:`sigstopped`) for ``freeze`` seconds once ``freeze_after`` requests were served.
    Returns the crawl's ``received`` times, ``largest_gap``, ``stats``, ``log``, ``returncode``,
    and ``frozen``: (start, end) on the crawl's clock (``time.monotonic``)."""
    site = LoopbackSite({f"/p/{n}": page_html(n) for n in range(pages)})
    crawl_settings = {
        "LOG_LEVEL": "INFO", "ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False,
        "DOWNLOAD_DELAY": delay, "RANDOMIZE_DOWNLOAD_DELAY": False, "CONCURRENT_REQUESTS": 1,
        "RETRY_ENABLED": False, "SIMHASH_WORKERS": 0, "SIMHASH_INDEX_URI": index_uri,
        "DOWNLOADER_MIDDLEWARES": {"scrapy_simhash.SimhashDownloaderMiddleware": 540},
        **(settings or {}),
    }
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    crawl = subprocess.Popen(
        [sys.executable, "-c", CRAWL_SCRIPT, site.url, str(pages), json.dumps(crawl_settings)],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    frozen = (0.0, 0.0)
    try:
        while len(site.requested) < freeze_after and crawl.poll() is None:
            time.sleep(0.005)
        if crawl.poll() is None:
            with frozen_index():
                started = time.monotonic()
                time.sleep(freeze)
            frozen = (started, time.monotonic())
        out, err = crawl.communicate(timeout=timeout)
    finally:
        if crawl.poll() is None:
            crawl.kill()
            crawl.communicate()
        site.stop()
    lines = out.strip().splitlines()
    result = json.loads(lines[-1]) if crawl.returncode == 0 and lines else {
        "received": [], "largest_gap": float("nan"), "stats": {}}
    result.update(returncode=crawl.returncode, log=err, frozen=frozen)
    return result


def received_while_frozen(result: dict) -> int:
    start, end = result["frozen"]
    return sum(1 for when in result["received"] if start <= when < end)


# -- a private redis-server ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_redis(directory: Path) -> tuple[subprocess.Popen, str]:
    executable = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = _free_port()
    process = subprocess.Popen(
        [executable, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no", "--dir", str(directory), "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return process, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.02)
    process.kill()
    raise RuntimeError("redis-server did not start")


MODES = {"inline": {"SIMHASH_INDEX_TIMEOUT": 0}, "thread": {}}
DECIDED_WHILE_OPEN = "simhash/index/breaker/decided/pages"

HOP_SCRIPT = r"""
import asyncio, json, random, sys, time
from scrapy import Spider
from scrapy.utils.reactor import install_reactor
install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
from scrapy.utils.test import get_crawler
from twisted.internet import reactor
from scrapy_simhash.crawl.dedup import Deduplicator
from scrapy_simhash.crawl.settings import build_detector, load_config

count, settings = int(sys.argv[1]), json.loads(sys.argv[2])
crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0, **settings})
config = load_config(crawler.settings)
dedup = Deduplicator(crawler, config, build_detector(config), "pages")
dedup.open()
draw = random.Random(7)
signatures = [draw.getrandbits(128) for _ in range(count)]
signatures += signatures[: count // 5]  # a fifth are exact duplicates: a candidate, confirmed

async def crawl():
    checks = [dedup.check_in_order(f"http://a.test/{n}", lambda s: s, signature)
              for n, signature in enumerate(signatures)]
    return await asyncio.gather(*checks)

began, cpu = time.perf_counter(), time.thread_time()
outcomes = reactor._asyncioEventloop.run_until_complete(crawl())
wall, cpu = time.perf_counter() - began, time.thread_time() - cpu
dedup.close()
print(json.dumps({"wall_us": 1e6 * wall / len(signatures), "cpu_us": 1e6 * cpu / len(signatures),
                  "dropped": sum(o.dropped for o in outcomes)}))
"""


def hop_cost(count: int, settings: dict) -> dict:
    """Per decision on an in-memory SQLite index (``sqlite://``), in a fresh process: wall and
    reactor-thread CPU microseconds."""
    done = subprocess.run(
        [sys.executable, "-c", HOP_SCRIPT, str(count),
         json.dumps({"SIMHASH_INDEX_URI": "sqlite://", **settings})],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--delay", type=float, default=0.25)
    parser.add_argument("--freeze", type=float, default=6.0)
    parser.add_argument("--freeze-after", type=int, default=10)
    parser.add_argument("--hop", type=int, default=2000, metavar="N",
                        help="decisions per run of the healthy-index table (0: none)")
    args = parser.parse_args()
    if args.hop:
        print_hop_cost(args.hop, args.runs)
    if args.pages:
        print_outage(args)


def print_hop_cost(count: int, runs: int) -> None:
    """What the thread costs a healthy index: decisions through the crawl's own path."""
    results: dict[str, list[dict]] = {mode: [] for mode in MODES}
    for _ in range(runs):
        for mode, settings in MODES.items():
            results[mode].append(hop_cost(count, settings))
    print(f"Healthy index (sqlite://, in memory), {count} decisions + {count // 5} duplicates "
          f"through check_in_order; medians of {runs} runs\n")
    print("| index calls | wall per decision (µs) | reactor-thread CPU per decision (µs) | "
          "dropped |")
    print("| --- | ---: | ---: | ---: |")
    for mode in MODES:
        rows = results[mode]
        print(f"| {mode} | {statistics.median(r['wall_us'] for r in rows):.0f} "
              f"| {statistics.median(r['cpu_us'] for r in rows):.0f} "
              f"| {statistics.median(r['dropped'] for r in rows):.0f} |")
    print()


def print_outage(args: argparse.Namespace) -> None:
    directory = Path(tempfile.mkdtemp(prefix="simhash-outage-"))
    redis, url = start_redis(directory)
    results: dict[str, list[dict]] = {mode: [] for mode in MODES}
    try:
        for run in range(args.runs):  # the modes take turns
            for mode, settings in MODES.items():
                result = crawl_with_a_freeze(
                    f"{url}?prefix=outage_{mode}_{run}", partial(sigstopped, redis.pid),
                    pages=args.pages,
                    delay=args.delay, freeze_after=args.freeze_after, freeze=args.freeze,
                    settings=settings,
                )
                if result["returncode"] != 0:
                    raise RuntimeError(f"{mode} crawl failed: {result['log'][-3000:]}")
                results[mode].append(result)
    finally:
        redis.kill()
        redis.wait()
        shutil.rmtree(directory, ignore_errors=True)

    def median(mode: str, value) -> float:
        return statistics.median(value(result) for result in results[mode])

    print(f"{args.pages} pages, one every {args.delay:g}s; Redis frozen {args.freeze:g}s after "
          f"{args.freeze_after} requests; medians of {args.runs} runs\n")
    print("| index calls | largest reactor stall (s) | pages received while frozen | "
          "pages received | timeouts | decided while open |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for mode in MODES:
        print(
            f"| {mode} | {median(mode, lambda r: r['largest_gap']):.2f} "
            f"| {median(mode, received_while_frozen):.0f} "
            f"| {median(mode, lambda r: len(r['received'])):.0f} "
            f"| {median(mode, lambda r: r['stats'].get('simhash/index/timeouts', 0)):.0f} "
            f"| {median(mode, lambda r: r['stats'].get(DECIDED_WHILE_OPEN, 0)):.0f} |"
        )


if __name__ == "__main__":
    main()
