"""What a crawl's worker spends on one page: the task it runs for every HTML response.

For the English pages the crawl benchmark serves (``crawl.load_pages("en")``), one pass of the
worker's task per page: the response rebuilt from its bytes, parsed and signed
(``signing.page_signature``, extraction, SimHash and evidence) and the URL its head declares
read (``urlrules.declared_canonical``), the answer pickled as the worker sends it. Beside it,
as the floor no worker can go under, the parse alone (lxml, the same bytes). Medians of
``--repeats`` passes, the two taking turns.

Time on a shared machine moves with its load; instructions do not. Under callgrind, one pass
runs inside libc's ``qsort_r`` (its comparison callback), so that counting only that call counts
the pass and nothing of the set-up:

    .venv/bin/python benchmarks/signing.py [--repeats 7] [--pages N]
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=qsort_r \\
        .venv/bin/python benchmarks/signing.py --pages 100 --one-pass
        (instructions a page: the "Collected" count / 100)
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time

from crawl import load_pages
from lxml import etree, html

from scrapy_simhash.crawl.signing import page_signature, rebuilt_response
from scrapy_simhash.crawl.urlrules import declared_canonical
from scrapy_simhash.crawl.workers.child import encode_frame
from scrapy_simhash.detectors import SimHashDetector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--pages", type=int, default=0, help="the first N pages (0: all)")
    parser.add_argument("--one-pass", action="store_true",
                        help="one pass of the task inside qsort_r, for callgrind")
    args = parser.parse_args()
    pages = load_pages("en")
    pages = pages[: args.pages] if args.pages else pages
    tasks = [(f"http://127.0.0.1:8000/{i}", body, content_type, None)
             for i, (body, content_type) in enumerate(pages)]
    detector = SimHashDetector()

    def task_pass() -> None:
        for task in tasks:
            response = rebuilt_response(*task)
            signature, note = page_signature(detector, response, own_copy=True)
            encode_frame(("ok", signature, 0.0,
                          (note, declared_canonical(response.body, response.url))))

    def parse_pass() -> None:
        parser = html.HTMLParser(recover=True, encoding="utf-8", huge_tree=True,
                                 collect_ids=False)
        for _, body, _, _ in tasks:
            etree.fromstring(body.strip(), parser=parser)  # (as the worker parses)

    task_pass()  # (one-off loads: the tokenizer's tables, the compiled modules)
    if args.one_pass:
        comparison = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        callback = comparison(lambda a, b: task_pass() or 0)
        pair = (ctypes.c_int * 2)(1, 2)
        ctypes.CDLL(None).qsort(pair, 2, ctypes.sizeof(ctypes.c_int), callback)
        print(f"one pass over {len(tasks)} pages")
        return
    runs: dict[str, list[float]] = {"the worker's task": [], "the parse alone": []}
    for _ in range(args.repeats):
        for name, one in (("the worker's task", task_pass), ("the parse alone", parse_pass)):
            started = time.process_time()
            one()
            runs[name].append(time.process_time() - started)
    print(f"{len(tasks)} English pages, median of {args.repeats} passes (CPU time)\n")
    print("| what | ms per page |\n|---|---:|")
    for name, seconds in runs.items():
        print(f"| {name} | {statistics.median(seconds) / len(tasks) * 1000:.3f} |")


if __name__ == "__main__":
    main()
