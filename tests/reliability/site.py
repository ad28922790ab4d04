"""A generated news site on 127.0.0.1 for crash, resume and concurrency crawls.

``PAGE_COUNT`` distinct articles in clusters: every ``CLUSTER``-th page has near-duplicate
copies (a tracking parameter, a print view), so a correct crawl keeps exactly one page per
cluster. The hub ``/`` links to every page (crawls fetch it with ``dont_simhash``, so a rerun
on a persistent index still reaches every page); each page links to a few others. The server
counts requests so a test can act after the N-th one, and calls ``before_page(path)`` (when
given) before it serves a page, so a test can hold one back until it is time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from .pages import article

PAGE_COUNT = 120
COPIES = ("?utm_source=feed", "/print")
CLUSTER = 4  # every 4th article also has the COPIES


def paths() -> dict[str, int]:
    """Every path of the site -> the cluster (article number) it belongs to."""
    found = {}
    for number in range(PAGE_COUNT):
        found[f"/a/{number}"] = number
        if number % CLUSTER == 0:
            for copy in COPIES:
                found[f"/a/{number}{copy}"] = number
    return found


def site_path(url: str) -> str:
    """The key of :func:`paths` for a URL (or a request's target): its path and query."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def hub() -> bytes:
    anchors = "".join(f'<li><a href="{path}">{path}</a></li>' for path in paths())
    return f"<html><body><ul>{anchors}</ul></body></html>".encode()


def body(path: str) -> bytes | None:
    if path == "/":
        return hub()
    cluster = paths().get(path)
    if cluster is None:
        return None
    links = [(cluster * 7 + step) % PAGE_COUNT for step in (1, 2, 3, 11)]
    anchors = "".join(f'<li><a href="/a/{n}">Story {n}</a></li>' for n in links)
    if cluster % CLUSTER == 0:
        anchors += "".join(f'<li><a href="/a/{cluster}{copy}">copy</a></li>' for copy in COPIES)
    extra = "<p>Printed from the Courier website.</p>" if path.endswith("/print") else ""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Story {cluster}</title></head>"
        f"<body><nav><ul>{anchors}</ul></nav><article><h1>Story {cluster}</h1>"
        f"{article(cluster)}{extra}</article><footer>© Courier</footer></body></html>"
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer

    def do_GET(self) -> None:
        self.server.count()
        if self.server.delay:
            time.sleep(self.server.delay)  # a slow site: crawls last long enough to be killed
        path = site_path(self.path)
        if self.server.before_page is not None:
            self.server.before_page(path)  # a test holding a page back until it is time
        page = body(path)
        if page is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: object) -> None:
        pass


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    # a web server's backlog, not socketserver's 5: with 5, a burst of a crawl's concurrent
    # connections overflows it and each one refused waits out a SYN retransmission (1 s, 3 s...)
    request_queue_size = 128

    def __init__(
        self, delay: float = 0.0, before_page: Callable[[str], None] | None = None
    ) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.delay = delay
        self.before_page = before_page
        self.requests = 0
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def count(self) -> None:
        with self._lock:
            self.requests += 1

    def start(self) -> SiteServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
