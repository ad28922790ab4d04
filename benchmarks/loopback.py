"""A site of fixed pages on a free loopback port, for the benchmarks' real crawls."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackSite(ThreadingHTTPServer):
    """Serves ``pages`` (path -> HTML bytes) from a thread of its own, each as UTF-8 HTML, a 404
    for any other path; ``requested`` lists the paths asked for, in order."""

    daemon_threads = True
    request_queue_size = 128  # a web server's backlog (socketserver's 5 drops bursts)

    def __init__(self, pages: Mapping[str, bytes], port: int = 0) -> None:
        self.pages = dict(pages)
        self.requested: list[str] = []
        super().__init__(("127.0.0.1", port), _Handler)
        threading.Thread(target=self.serve_forever, name="loopback-site", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: LoopbackSite

    def do_GET(self) -> None:
        self.server.requested.append(self.path)
        body = self.server.pages.get(self.path)
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
