"""The long reliability run: hostile pages timed, hot buckets timed, the fuzz suite at length.

    .venv/bin/python benchmarks/fuzz.py                 # bounds + hot buckets (about a minute)
    .venv/bin/python benchmarks/fuzz.py --examples 2000 # ... + hypothesis, 2000 per property
    .venv/bin/python benchmarks/fuzz.py --skip-bounds --skip-hot --cli-examples 400

Table 1, per-page bounds: each hostile body's time through the downloader middleware and through
``Fingerprinter.fingerprint_html`` (median of --repeat runs), with Scrapy's own parse of the same
body (``response.selector``, what the spider pays anyway) as the reference in the same run, and
the process's peak RSS so far. Table 2, hot buckets: the time of one check_and_add (median) when
every stored fingerprint shares the query's block value in one table, against bucket size:
linear growth is per-candidate work, quadratic would double the ratio column. The fuzz run calls
pytest on tests/reliability/test_fuzz.py with SIMHASH_FUZZ_EXAMPLES and reports its summary.
The command-line fuzz run calls pytest on tests/cli/test_fuzz.py with SIMHASH_CLI_FUZZ_EXAMPLES:
``scrapy-simhash dedup`` on generated inputs (deep nesting, encodings, sizes, truncation,
garbage, SIGINT and SIGTERM mid-run), failing on a traceback, an exit status other than 0, 1
or 2 (130 or 143 after a signal), or a file left in the output folder.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from reliability.hotbucket import hot_fingerprints  # noqa: E402
from reliability.pages import article, deeply_nested, padded, page  # noqa: E402
from scrapy import Spider  # noqa: E402
from scrapy.http import HtmlResponse, Request  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402

from scrapy_simhash.crawl.downloader import NearDuplicatePage, SimhashDownloaderMiddleware  # noqa: E402
from scrapy_simhash.fingerprint import Fingerprinter  # noqa: E402
from scrapy_simhash.index import open_index  # noqa: E402

MB = 1024 * 1024


def hostile_bodies() -> dict[str, bytes]:
    tiny = b"<p>ab cd</p>"
    return {
        "50 MB article (over max body)": padded(page(1), 50 * MB, article(2).encode()),
        "10 MB article (at max body)": padded(page(3), 10 * MB - 1, article(4).encode()),
        "10 MB of <p>ab cd</p>": padded(b"<html><body>", 10 * MB - 1, tiny),
        "4 MB of <p>ab cd</p>": padded(b"<html><body>", 4 * MB, tiny),
        "10 MB one Chinese text node": padded(
            b"<p>", 10 * MB - 1, "城市地铁新线路".encode()
        ),
        "100,000 nested <div>": deeply_nested(100_000),
        "10 MB binary": bytes((i * 7919 + 13) % 256 for i in range(10 * MB)),
        "gzip bomb, 64 KB on the wire": gzip.compress(b" " * (64 * MB), 9),
    }


def median_seconds(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bounds_table(repeat: int) -> None:
    crawler = get_crawler(Spider, {})
    crawler.spider = crawler._create_spider("bench")
    middleware = SimhashDownloaderMiddleware.from_crawler(crawler)
    middleware.spider_opened()
    fingerprinter = Fingerprinter()
    counter = iter(range(10**9))

    def through_middleware(body: bytes) -> None:
        url = f"http://bench.test/{next(counter)}"
        request = Request(url)
        response = HtmlResponse(url, body=body, request=request,
                                headers={"Content-Type": "text/html"})
        with contextlib.suppress(NearDuplicatePage):
            middleware.process_response(request, response)

    def scrapy_parse(body: bytes) -> None:
        HtmlResponse("http://bench.test/", body=body).selector.root  # noqa: B018

    print(f"\n{'hostile body':32s} {'bytes':>10s} {'middleware':>11s} {'fp_html':>9s} "
          f"{'scrapy parse':>13s} {'peak RSS':>9s}")
    for name, body in hostile_bodies().items():
        via_middleware = median_seconds(lambda b=body: through_middleware(b), repeat)
        via_html = median_seconds(lambda b=body: fingerprinter.fingerprint_html(b), repeat)
        parse = median_seconds(lambda b=body: scrapy_parse(b), repeat)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{name:32s} {len(body):>10,d} {via_middleware:>10.3f}s {via_html:>8.3f}s "
              f"{parse:>12.3f}s {rss:>7.0f}MB")
    middleware.spider_closed()
    skipped = {k.rsplit("/", 1)[1]: v for k, v in crawler.stats.get_stats().items()
               if "/skipped/" in k}
    print(f"middleware skips over all runs: {skipped}")


def hot_bucket_table(sizes: list[int], queries: int) -> None:
    print(f"\n{'backend':8s} {'hot tables':>10s} {'bucket':>7s} {'us/query':>9s} "
          f"{'x prev':>7s} {'cold us/query':>14s}")
    for backend in ("memory", "sqlite"):
        for hot_tables in (1, 3):
            previous = None
            for size in sizes:
                with tempfile.TemporaryDirectory() as folder:
                    uri = "memory://" if backend == "memory" else f"sqlite:///{folder}/hot.db"
                    index = open_index(uri, bits=128, max_distance=16)
                    stream = hot_fingerprints(index.layout, size + queries, hot_tables, seed=size)
                    index.add_many((f"p{n}", fp) for n, fp in enumerate(stream[:size]))
                    index.flush()
                    probes = stream[size:]
                    times = []
                    for number, fingerprint in enumerate(probes):
                        started = time.perf_counter()
                        index.check_and_add(f"q{number}", fingerprint)
                        times.append(time.perf_counter() - started)
                    rng = random.Random(size)
                    cold = []
                    for number in range(queries):
                        fingerprint = rng.getrandbits(128)
                        started = time.perf_counter()
                        index.check_and_add(f"c{number}", fingerprint)
                        cold.append(time.perf_counter() - started)
                    index.close()
                per_query = statistics.median(times) * 1e6
                ratio = f"{per_query / previous:.2f}" if previous else "-"
                previous = per_query
                print(f"{backend:8s} {hot_tables:>10d} {size:>7,d} {per_query:>9.0f} "
                      f"{ratio:>7s} {statistics.median(cold) * 1e6:>14.0f}")


def fuzz_run(examples: int) -> None:
    env = dict(os.environ, SIMHASH_FUZZ_EXAMPLES=str(examples), SIMHASH_LONG="1")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "tests/reliability/test_fuzz.py", "--hypothesis-show-statistics"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    print(f"\nhypothesis: {examples} examples per property, {time.perf_counter() - started:.0f} s")
    lines = [line for line in done.stdout.splitlines()
             if "passing examples" in line or "failing" in line or " passed" in line
             or "::" in line or "Error" in line]
    print("\n".join(lines[-40:]))


def cli_fuzz_run(examples: int) -> bool:
    """The command line's fuzz run; whether it passed."""
    env = dict(os.environ, SIMHASH_CLI_FUZZ_EXAMPLES=str(examples))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "tests/cli/test_fuzz.py", "--hypothesis-show-statistics"]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    outcome = "passed" if done.returncode == 0 else "FAILED"
    print(f"\ncommand line: {examples} generated runs of scrapy-simhash dedup, "
          f"{time.perf_counter() - started:.0f} s, {outcome}")
    lines = [line for line in done.stdout.splitlines()
             if "passing" in line or "failing" in line or " passed" in line
             or "Falsifying" in line or "source=" in line or "Error" in line]
    print("\n".join(lines[-40:]))
    return done.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000",
                        help="hot bucket sizes")
    parser.add_argument("--queries", type=int, default=200, help="queries per bucket size")
    parser.add_argument("--examples", type=int, default=0,
                        help="hypothesis examples per fuzz property (0: no fuzz run)")
    parser.add_argument("--cli-examples", type=int, default=0,
                        help="generated runs of the command line (0: none)")
    parser.add_argument("--skip-bounds", action="store_true")
    parser.add_argument("--skip-hot", action="store_true", help="no hot-bucket table")
    args = parser.parse_args()
    if not args.skip_bounds:
        bounds_table(args.repeat)
    if not args.skip_hot:
        hot_bucket_table([int(size) for size in args.sizes.split(",")], args.queries)
    if args.examples:
        fuzz_run(args.examples)
    if args.cli_examples and not cli_fuzz_run(args.cli_examples):
        sys.exit(1)


if __name__ == "__main__":
    main()
