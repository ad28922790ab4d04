"""Serve the demo site from a threaded ``http.server`` on 127.0.0.1 (a free port by default)."""

from __future__ import annotations

import argparse
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from demosite.site import PAGES, encode


class DemoHandler(BaseHTTPRequestHandler):
    server: DemoServer

    def do_GET(self) -> None:
        self.server.record(self.path)
        page = PAGES.get(self.path)
        if page is None:
            self.send_error(404)
            return
        body, headers = encode(page, self.headers.get("Accept-Encoding", ""))
        self.send_response(page.status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


class DemoServer(ThreadingHTTPServer):
    """The demo site's HTTP server; remembers every path requested (for the tests)."""

    daemon_threads = True
    request_queue_size = 128  # a web server's backlog (socketserver's 5 drops bursts)

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__((host, port), DemoHandler)
        self.requested: list[str] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def record(self, path: str) -> None:
        with self._lock:
            self.requested.append(path)

    def start(self) -> DemoServer:
        threading.Thread(target=self.serve_forever, name="demo-site", daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the demo site on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    args = parser.parse_args()
    server = DemoServer(port=args.port)
    print(f"Demo site at {server.url}/ (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
