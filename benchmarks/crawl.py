"""Crawl throughput with the plugin off and on, over real corpus pages served on loopback.

    .venv/bin/python benchmarks/crawl.py [--runs 3] [--langs en,zh] [--pages N] [--quick]
        [--set NAME=VALUE ...]

For each language, the pages of ../shared/corpora are served by a threaded HTTP server in a
process of its own; the same spider (title, links, paragraph text of each page) crawls them with
scrapy-simhash off, on (the Addon with its default settings: signatures in
``SIMHASH_WORKERS="auto"`` worker processes) and inline (``SIMHASH_WORKERS=0``), taking turns, each
crawl in a fresh process. CPU time per page is reported for the crawl's own process and for the
workers (their own timing of each task), since on a machine with few cores the server, the crawl
and the workers share them. A page is done when the spider hears of it: its response, or the
errback of a page the plugin dropped (a dropped page was crawled all the same; counting responses
only would charge the plugin for every duplicate it finds). Throughput is the steady state: pages
per second between the pages done at the 10th and the 90th percentile, so that neither the filling
of the pipeline (from cold, or, with workers, from the pages fetched while they start) nor its
draining weighs on a crawl of a few hundred pages; the ratio from the first to the last page is
printed too. One-off costs come before these crawls: jieba's dictionary is loaded in every mode,
and the spider's first request waits until a worker is ready. Each run also times each mode's
whole crawl from a cold start (a fresh process, nothing loaded: as ``scrapy crawl`` runs), where
the start-up counts. Prints medians over the runs, then where the plugin's time goes per page:
among others the crawl thread's CPU time per page in the steady window, and how much of it the
full collections of Python's cyclic garbage collector took (every parsed page is freed by it:
Scrapy's response and its cached selector refer to each other). ``--set`` adds a Scrapy setting
to every crawl of the run, plugin off and on alike (``--set CONCURRENT_ITEMS=1``: how much of the
plugin's share depends on Scrapy's own cost per response).

``--pages N`` makes a long crawl of N pages per language out of the few hundred of the corpus:
each page as it is, then copies of them, each at a URL of its own: in copy k, every word of
the corpus's vocabulary (but its :data:`COMMON_WORDS` commonest) becomes another one, by a
permutation of the vocabulary drawn for k (:func:`distinct_copy`). A copy keeps its page's
markup, size and the places of its stop words, so it costs what its page costs to download,
parse and extract, but its text is another document: the plugin keeps it (the table's
"dropped" column says how many pages it dropped). The server makes the copies before the crawls.
"""

from __future__ import annotations

import argparse
import codecs
import json
import multiprocessing
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpora import iter_pages  # noqa: E402

GOALS = {"en": 0.9, "zh": 0.8}
#: The commonest words of the corpus's text, left as they are in the copies of its pages.
COMMON_WORDS = 150

CRAWL_SCRIPT = r"""
import gc, json, sys, time
from scrapy import Spider, Request, signals
from scrapy.crawler import CrawlerProcess

base, count, mode, start = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
extra_settings = json.loads(sys.argv[5])  # --set NAME=VALUE: the same in every mode
plugin = mode != "off"
warm = start == "warm"
if warm:  # one-off loads before the crawl, in every mode
    from scrapy_simhash.fingerprint import Fingerprinter
    Fingerprinter().fingerprint_text("预热 jieba 的词典 warm up the dictionary " * 4)
times = []  # (when, the crawl thread's CPU seconds then): the spider got a response or heard
             # that a page was dropped
errbacks = {}  # failures the spider's errback saw, by type
full_gcs = []  # (when, seconds) of each full collection of the cyclic garbage collector
cpu_start = time.process_time()

def on_gc(phase, info, began=[0.0]):
    if info["generation"] != 2:
        return
    if phase == "start":
        began[0] = time.perf_counter()
    else:
        full_gcs.append((began[0], time.perf_counter() - began[0]))

gc.callbacks.append(on_gc)

def done():
    times.append((time.perf_counter(), time.thread_time()))

class PagesSpider(Spider):
    name = "pages"

    async def start(self):
        if warm and plugin:  # a worker's start-up is a one-off too: let it finish first
            import asyncio
            from scrapy_simhash.crawl.workers import WorkerPool
            pool = WorkerPool.for_crawler(self.crawler)
            while pool is not None and pool.available and not pool.ready:
                await asyncio.sleep(0.01)
        for n in range(count):
            yield Request(f"{base}/p/{n}", errback=self.dropped)

    def dropped(self, failure):
        done()
        name = type(failure.value).__name__
        errbacks[name] = errbacks.get(name, 0) + 1

    def parse(self, response):
        yield {
            "title": response.css("title::text").get(),
            "links": response.css("a::attr(href)").getall(),
            "body": " ".join(response.xpath("//p//text()").getall()),
        }

def on_response(response, request, spider):
    done()

settings = {"LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": False, "TELNETCONSOLE_ENABLED": False,
            "CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16, "RETRY_ENABLED": False,
            "DOWNLOAD_MAXSIZE": 0, "ADDONS": {"scrapy_simhash.addon.Addon": 0} if plugin else {}}
settings.update(extra_settings)
if mode == "inline":
    settings["SIMHASH_WORKERS"] = 0
process = CrawlerProcess(settings)
crawler = process.create_crawler(PagesSpider)
crawler.signals.connect(on_response, signal=signals.response_received)
stats = {}
def on_stop():
    stats.update(crawler.stats.get_stats())
crawler.signals.connect(on_stop, signal=signals.engine_stopped)
process.crawl(crawler)
process.start()
keep = {k: v for k, v in stats.items() if k.startswith("simhash/")}
times.sort()
print(json.dumps({"times": [t for t, _ in times], "thread_cpu": [c for _, c in times],
                  "full_gcs": full_gcs, "errbacks": errbacks, "stats": keep,
                  "cpu": time.process_time() - cpu_start}))
"""


class _Handler(BaseHTTPRequestHandler):
    pages: ClassVar[list[tuple[bytes, str]]] = []

    def do_GET(self) -> None:
        try:
            body, content_type = self.pages[int(self.path.rsplit("/", 1)[1])]
        except (ValueError, IndexError):
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


_TEXT = re.compile(rb">[^<]+")
_WORD = re.compile(rb"\b[a-z]{3,12}\b")


def distinct_copy(body: bytes, words: list[bytes], copy: int) -> bytes:
    """Copy ``copy`` of ``body``: in the text between its tags, every lowercase word of
    ``words`` becomes another one of them, by a permutation of ``words`` drawn for ``copy``.
    The markup, the capitalised words, the stop words' places and the text's length stay (as
    much as the words' lengths allow): the page is extracted the same way, its words differ."""
    shuffled = list(words)
    random.Random(copy).shuffle(shuffled)
    renamed = dict(zip(words, shuffled, strict=True))

    def rename(word: re.Match) -> bytes:
        return renamed.get(word.group(), word.group())

    return _TEXT.sub(lambda text: _WORD.sub(rename, text.group()), body)


def copy_vocabulary(lang: str) -> list[bytes]:
    """Words (3 to 12 lowercase ASCII letters) of the ground-truth text of the corpus's pages in
    ``lang`` but for the commonest (stop words keep their places), in a stable order: what the
    copies' words are renamed to and from."""
    counts: Counter[bytes] = Counter()
    for page in iter_pages(with_truth_text=True):
        if page.lang == lang:
            counts.update(_WORD.findall(page.truth_text.encode("utf-8")))
    common = {word for word, _ in counts.most_common(COMMON_WORDS)}
    return sorted(word for word in counts if word not in common)


def page_copies(pages: list[tuple[bytes, str]], words: list[bytes], count: int
                ) -> list[tuple[bytes, str]]:
    """``count`` pages: ``pages`` as they are, then distinct copies of them (see
    :func:`distinct_copy`)."""
    served = list(pages[:count])
    while len(served) < count:
        copy, page = divmod(len(served), len(pages))
        body, content_type = pages[page]
        served.append((distinct_copy(body, words, copy), content_type))
    return served


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A web server's backlog (nginx: 511), not socketserver's 5: with 5, a burst of a crawl's
    # concurrent connections overflows it and each connection refused waits out a 1 s SYN
    # retransmission, a stall charged to whichever mode it happens in.
    request_queue_size = 128


def _serve(pages: list[tuple[bytes, str]], words: list[bytes], count: int, port_out) -> None:
    _Handler.pages = page_copies(pages, words, count)  # (made here: no 2,000 pages to pickle)
    server = _Server(("127.0.0.1", 0), _Handler)
    port_out.put(server.server_address[1])
    server.serve_forever()


def _known_codec(name: str | None) -> bool:
    try:
        return bool(name) and bool(codecs.lookup(name))
    except LookupError:
        return False


def load_pages(lang: str) -> list[tuple[bytes, str]]:
    pages = []
    for page in iter_pages():
        if page.lang != lang:
            continue
        charset = f"; charset={page.encoding}" if _known_codec(page.encoding) else ""
        pages.append((page.html, f"text/html{charset}"))
    return pages


def listen_overflows() -> int | None:
    """The system's count of connections dropped because a listen backlog was full (Linux), or
    None: each one is a 1 s stall of a request, whatever the plugin does."""
    try:
        lines = Path("/proc/net/netstat").read_text().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        row = dict(zip(names.split(), values.split(), strict=False))
        if "ListenOverflows" in row:
            return int(row["ListenOverflows"])
    return None


def process_cpu(pid: int) -> float:
    """Seconds of CPU the process ``pid`` has used (Linux), else nan."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def crawl_once(
    base: str, count: int, mode: str, start: str = "warm", settings: dict | None = None,
    server_pid: int | None = None,
) -> dict:
    """One crawl in a fresh process; ``start="cold"``: as ``scrapy crawl`` starts, with nothing
    loaded beforehand (``seconds_whole``: the process's wall time, start-up included);
    ``settings``: Scrapy settings added to the crawl's own."""
    overflows = listen_overflows()
    server_cpu = process_cpu(server_pid) if server_pid else float("nan")
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CRAWL_SCRIPT, base, str(count), mode, start,
         json.dumps(settings or {})],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )
    whole_seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["pages"] = len(result["times"])
    result["seconds"] = result["times"][-1] - result["times"][0]
    # (a page dropped against a template or a withdrawn page is fetched again: done twice)
    failures = {name: n for name, n in result["errbacks"].items()
                if name not in ("NearDuplicatePage", "SkippedByUrlRule")}
    if failures or result["pages"] < count:
        raise RuntimeError(f"{mode} crawl: {result['pages']} of {count} pages, failures {failures}")
    result["seconds_whole"] = whole_seconds
    after = listen_overflows()
    result["listen_drops"] = after - overflows if None not in (after, overflows) else NAN
    if server_pid:
        result["server_cpu"] = process_cpu(server_pid) - server_cpu
    return result


def steady_window(times: list[float]) -> tuple[int, int]:
    """The pages at the 10th and the 90th percentile of completion times: the crawl's steady
    state, without its first and last tenth, where the pipeline fills (from cold, or from pages
    fetched while the workers started) and drains."""
    return len(times) // 10, len(times) - 1 - len(times) // 10


def steady_rate(times: list[float]) -> float:
    """Pages per second in the :func:`steady_window`."""
    first, last = steady_window(times)
    return (last - first) / (times[last] - times[first])


def steady_costs(result: dict) -> tuple[float, float]:
    """Milliseconds per page in the :func:`steady_window`: the crawl thread's CPU time, and the
    time of the full garbage collections that began in the window (part of that CPU time)."""
    times = result["times"]
    first, last = steady_window(times)
    pages = last - first
    cpu = result["thread_cpu"][last] - result["thread_cpu"][first]
    full_gc = sum(
        seconds for began, seconds in result["full_gcs"] if times[first] <= began < times[last]
    )
    return 1000 * cpu / pages, 1000 * full_gc / pages


def profile(lang: str, pages: list[tuple[bytes, str]]) -> dict[str, float]:
    """Median milliseconds per page of each stage, in this process (memory index)."""
    from scrapy.http import HtmlResponse

    from scrapy_simhash import features
    from scrapy_simhash.extract import extract_main_text_from_tree
    from scrapy_simhash.fingerprint import Fingerprinter
    from scrapy_simhash.index import open_index
    from scrapy_simhash.simhash import simhash_of_hashes

    fingerprinter = Fingerprinter()
    fingerprinter.fingerprint_text("预热 warm up " * 8)
    index = open_index("memory://", bits=fingerprinter.bits,
                       max_distance=fingerprinter.max_distance, params=fingerprinter.params)
    timings: dict[str, list[float]] = {k: [] for k in ("parse", "extract", "tokens", "simhash",
                                                       "index", "plugin total")}
    for n, (body, content_type) in enumerate(pages):
        response = HtmlResponse(f"http://x/{n}", body=body, headers={"Content-Type": content_type})
        t0 = time.perf_counter()
        root = response.selector.root  # decoding + parsing, as in the crawl
        t1 = time.perf_counter()
        main = extract_main_text_from_tree(root)
        t2 = time.perf_counter()
        hashes, counts = features.token_hash_counts(main)  # Fingerprinter's default path
        t3 = time.perf_counter()
        fingerprint = simhash_of_hashes(hashes, counts, fingerprinter.bits)
        t4 = time.perf_counter()
        index.check_and_add(f"p{n}", fingerprint)
        t5 = time.perf_counter()
        for key, value in zip(timings, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t1),
                              strict=True):
            timings[key].append(1000 * value)
    return {key: (statistics.median(v), statistics.fmean(v)) for key, v in timings.items()}


MODES = ("off", "on", "inline")
NAN = float("nan")


def _median(values: list[float] | tuple[float, ...]) -> float:
    return statistics.median(values) if values else NAN


def setting_argument(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` from the command line; VALUE as JSON if it parses, else as a string."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--langs", default="en,zh")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        type=setting_argument, help="a Scrapy setting for every crawl of the "
                        "run, plugin off and on alike (VALUE read as JSON if it parses)")
    parser.add_argument("--pages", type=int, default=0, metavar="N",
                        help="crawl N pages per language: the corpus's pages, then distinct "
                        "copies of them (see the module docstring); default: each page once")
    parser.add_argument("--quick", action="store_true", help="plugin off and on only: no "
                        "inline crawls, no cold starts (their columns read nan)")
    args = parser.parse_args()
    settings = dict(args.set)
    modes = ("off", "on") if args.quick else MODES
    rows = []
    profiles = {}
    cold_seconds: dict[str, dict[str, float]] = {}
    first_to_last: dict[str, float] = {}  # on/off, from the first page to the last
    steady_ms: dict[str, dict[str, tuple[float, ...]]] = {}  # (thread CPU, full GC) per page
    for lang in args.langs.split(","):
        pages = load_pages(lang)
        count = args.pages or len(pages)
        words = copy_vocabulary(lang) if count > len(pages) else []
        queue: multiprocessing.Queue = multiprocessing.Queue()
        server = multiprocessing.Process(
            target=_serve, args=(pages, words, count, queue), daemon=True
        )
        server.start()
        base = f"http://127.0.0.1:{queue.get(timeout=600)}"
        rates: dict[str, list[float]] = {mode: [] for mode in MODES}
        whole: dict[str, list[float]] = {mode: [] for mode in MODES}
        cold: dict[str, list[float]] = {mode: [] for mode in MODES}
        cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
        server_ms: dict[str, list[float]] = {mode: [] for mode in MODES}
        drops: dict[str, list[float]] = {mode: [] for mode in MODES}
        steady: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
        worker_ms: list[float] = []
        last_stats = {}
        try:
            for _ in range(args.runs):
                for mode in modes:
                    result = crawl_once(base, count, mode, settings=settings,
                                        server_pid=server.pid)
                    server_ms[mode].append(1000 * result["server_cpu"] / result["pages"])
                    drops[mode].append(result["listen_drops"])
                    rates[mode].append(steady_rate(result["times"]))
                    whole[mode].append(result["pages"] / result["seconds"])
                    cpu[mode].append(1000 * result["cpu"] / result["pages"])
                    steady[mode].append(steady_costs(result))
                    stats = result["stats"]
                    if mode == "on":
                        last_stats = stats
                        worker_ms.append(1000 * (
                            stats.get("simhash/time/pages/fingerprint", 0)
                            + stats.get("simhash/time/items/fingerprint", 0)
                        ) / result["pages"])
                for mode in modes if not args.quick else ():
                    cold[mode].append(
                        crawl_once(base, count, mode, "cold", settings)["seconds_whole"]
                    )
        finally:
            server.terminate()
            server.join()
        rate = {mode: _median(values) for mode, values in rates.items()}
        cpu_ms = {mode: _median(values) for mode, values in cpu.items()}
        cold_seconds[lang] = {mode: _median(values) for mode, values in cold.items()}
        steady_ms[lang] = {
            mode: tuple(_median(column) for column in zip(*values, strict=True))
            if values else (NAN, NAN)
            for mode, values in steady.items()
        }
        first_to_last[lang] = statistics.median(whole["on"]) / statistics.median(whole["off"])
        cpu_ms.update({f"server {mode}": _median(values) for mode, values in server_ms.items()})
        cpu_ms.update({f"drops {mode}": sum(values) for mode, values in drops.items()})
        rows.append((lang, count, rate, cpu_ms, statistics.median(worker_ms),
                     last_stats.get("simhash/workers/processes", 0),
                     last_stats.get("simhash/pages/dropped", 0)))
        profiles[lang] = profile(lang, pages)

    print(f"\nCrawl throughput, median of {args.runs} runs (pages/s, middle 80% of the pages)"
          + (f"; in every crawl: {settings}" if settings else ""))
    print("| lang | pages | off | on (defaults) | on/off | goal | inline (SIMHASH_WORKERS=0) "
          "| inline/off | workers | dropped | on/off, first to last page |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for lang, n, rate, _, _, workers, dropped in rows:
        ratio = rate["on"] / rate["off"]
        goal = GOALS.get(lang, 0.0)
        verdict = "ok" if ratio >= goal else "MISSED"
        print(f"| {lang} | {n} | {rate['off']:.1f} | {rate['on']:.1f} | {ratio:.2f} "
              f"| {goal:.2f} {verdict} | {rate['inline']:.1f} | {rate['inline'] / rate['off']:.2f} "
              f"| {workers} | {dropped} | {first_to_last[lang]:.2f} |")
    print("\nThe whole crawl from a cold start (as `scrapy crawl`: start-up included), seconds, "
          "median")
    print("| lang | off | on (defaults) | on - off | inline | inline - off |")
    print("|---|---|---|---|---|---|")
    for lang, seconds in cold_seconds.items():
        print(f"| {lang} | {seconds['off']:.2f} | {seconds['on']:.2f} "
              f"| {seconds['on'] - seconds['off']:+.2f} | {seconds['inline']:.2f} "
              f"| {seconds['inline'] - seconds['off']:+.2f} |")
    print("\nCPU per page, ms (medians): the crawl's own process, the worker processes and the "
          "site's server; connections the server's backlog dropped (all runs)")
    print("| lang | crawl process, off | crawl process, on | crawl process, inline "
          "| workers, on | server, off | server, on | backlog drops, off / on |")
    print("|---|---|---|---|---|---|---|---|")
    for lang, _, _, cpu_ms, worker, _, _ in rows:
        print(f"| {lang} | {cpu_ms['off']:.2f} | {cpu_ms['on']:.2f} | {cpu_ms['inline']:.2f} "
              f"| {worker:.2f} | {cpu_ms['server off']:.2f} | {cpu_ms['server on']:.2f} "
              f"| {cpu_ms['drops off']:g} / {cpu_ms['drops on']:g} |")
    print("\nThe crawl's thread in the steady window, ms per page (medians): CPU time, and the "
          "full garbage collections within it")
    print("| lang | CPU, off | CPU, on | CPU, inline | full GC, off | full GC, on "
          "| full GC, inline |")
    print("|---|---|---|---|---|---|---|")
    for lang, modes in steady_ms.items():
        print(f"| {lang} | " + " | ".join(f"{modes[mode][0]:.2f}" for mode in MODES) + " | "
              + " | ".join(f"{modes[mode][1]:.2f}" for mode in MODES) + " |")
    print("\nWhere the plugin's time goes, ms per page (median / mean), outside the crawl")
    stages = list(next(iter(profiles.values())))
    print("| lang | " + " | ".join(stages) + " |")
    print("|---|" + "---|" * len(stages))
    for lang, timings in profiles.items():
        cells = " | ".join(f"{timings[s][0]:.2f} / {timings[s][1]:.2f}" for s in stages)
        print(f"| {lang} | {cells} |")
    print("(parse is shared with the spider's callback: parsel caches the tree; "
          "'plugin total' = extract + tokens + simhash + index)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
