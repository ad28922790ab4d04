"""Downloads a crawl avoids with learned URL rules, and the distinct pages it still receives.

The site of :mod:`hardneg.urlsite` (30 articles each linked under five duplicate URL families
and a ``?ref=`` link, a category in six ``?page=`` pages, thirty ``?id=`` products) is served on
loopback and crawled with the add-on alone, following every link, with ``SIMHASH_URL_RULES``
off (the plugin drops duplicates after downloading them) and on (the add-on's default). Each
crawl runs in a fresh process; the table gives the medians of ``--runs`` crawls.

    python benchmarks/url_rules.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from hardneg.urlsite import site

SPIDER = """
import sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess
url, out, rules = sys.argv[1], sys.argv[2], sys.argv[3] == "on"

class Site(Spider):
    name = "url_rules"
    start_urls = [url + "/"]
    custom_settings = {"ADDONS": {"scrapy_simhash.Addon": 0}, "SIMHASH_URL_RULES": rules}

    def parse(self, response):
        yield {"url": response.url}
        yield from response.follow_all(css="a")

process = CrawlerProcess({"FEEDS": {out: {"format": "jsonlines"}}, "ROBOTSTXT_OBEY": False,
                          "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "ERROR"})
process.crawl(Site)
process.start()
"""


def serve(pages: dict[str, bytes]) -> tuple[ThreadingHTTPServer, list[str]]:
    requested: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requested.append(self.path)
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, requested


def crawl(rules: str) -> dict[str, int]:
    pages = site()
    same = {path: target for path, (_, target) in pages.items()}
    server, requested = serve({path: html.encode() for path, (html, _) in pages.items()})
    base = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "items.jsonl"
        subprocess.run([sys.executable, "-c", SPIDER, base, str(out), rules], check=True)
        received = {json.loads(line)["url"][len(base):] for line in out.read_text().splitlines()}
    server.shutdown()
    contents = {same.get(path, path) for path in received}
    return {
        "duplicate downloads": sum(1 for path in requested if same.get(path, path) != path),
        "distinct pages lost": len(set(same.values()) - contents),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = {mode: [crawl(mode) for _ in range(args.runs)] for mode in ("off", "on")}
    print(f"{len(site())} pages, {len(set(t for _, t in site().values()))} distinct; "
          f"medians of {args.runs} crawls\n")
    print("| SIMHASH_URL_RULES | duplicate downloads | distinct pages lost |\n|---|---:|---:|")
    medians = {}
    for mode, runs in results.items():
        medians[mode] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(f"| {mode} | {medians[mode]['duplicate downloads']:.0f} | "
              f"{medians[mode]['distinct pages lost']:.0f} |")
    avoided = 1 - medians["on"]["duplicate downloads"] / medians["off"]["duplicate downloads"]
    print(f"\nduplicate downloads avoided: {avoided:.0%}")


if __name__ == "__main__":
    main()
