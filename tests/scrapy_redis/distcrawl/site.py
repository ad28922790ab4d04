"""A loopback site with near-duplicate clusters, generated from a seed (no real pages copied).

Each cluster is one article published under several URLs: the original, a tracking-parameter
copy with another sidebar, a print version without navigation, and a copy with one word edited.
Singletons are distinct articles. ``delay`` slows every response (to keep a crawl in flight).
"""

from __future__ import annotations

import html
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONSONANTS = "bcdfghklmnprstvz"
VOWELS = "aeiou"


def _word(rng: random.Random) -> str:
    """A made-up word of 2-3 syllables: articles share almost no vocabulary."""
    return "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(rng.randint(2, 3)))


def _article(rng: random.Random, paragraphs: int = 6, words: int = 55) -> tuple[str, list[str]]:
    vocabulary = [_word(rng) for _ in range(120)]
    title = " ".join(rng.choice(vocabulary) for _ in range(6)).capitalize()
    body = [
        " ".join(rng.choice(vocabulary) for _ in range(words)).capitalize() + "."
        for _ in range(paragraphs)
    ]
    return title, body


def _page(title: str, body: list[str], *, nav: bool, sidebar: list[str], note: str = "") -> bytes:
    links = "".join(f'<li><a href="/other/{html.escape(s)}">{html.escape(s)}</a></li>'
                    for s in sidebar)
    navigation = ('<nav><a href="/">Home</a> <a href="/local">Local</a> '
                  '<a href="/sport">Sport</a></nav>') if nav else ""
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in body)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"</head><body>{navigation}<article><h1>{html.escape(title)}</h1>{paragraphs}</article>"
        f"<aside><ul>{links}</ul></aside><footer>{html.escape(note)} The Test Gazette</footer>"
        "</body></html>"
    ).encode()


def build_site(clusters: int = 24, singletons: int = 12, seed: int = 7):
    """``(pages, groups)``: path -> HTML bytes, and the list of paths of each cluster/singleton."""
    rng = random.Random(seed)
    pages: dict[str, bytes] = {}
    groups: list[list[str]] = []
    for c in range(clusters):
        title, body = _article(rng)
        edited = list(body)
        words = edited[2].split()
        words[7] = "zuzuzu"
        edited[2] = " ".join(words)
        side = [f"story-{rng.randrange(1000)}" for _ in range(3)]
        group = {
            f"/news/{c}": _page(title, body, nav=True, sidebar=side),
            f"/news/{c}?utm_source=feed": _page(title, body, nav=True, sidebar=side[::-1],
                                                 note="Shared from the feed."),
            f"/print/{c}": _page(title, body, nav=False, sidebar=[]),
            f"/news/{c}/v2": _page(title, edited, nav=True, sidebar=side),
        }
        pages.update(group)
        groups.append(list(group))
    for s in range(singletons):
        title, body = _article(rng)
        pages[f"/single/{s}"] = _page(title, body, nav=True, sidebar=[])
        groups.append([f"/single/{s}"])
    return pages, groups


class SiteServer(ThreadingHTTPServer):
    """Serves ``pages`` on 127.0.0.1 (a free port), each response after ``delay`` seconds."""

    daemon_threads = True
    request_queue_size = 128  # a web server's backlog (socketserver's 5 drops bursts)

    def __init__(self, pages: dict[str, bytes], delay: float = 0.0) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.pages = pages
        self.delay = delay
        self.served: list[str] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> SiteServer:
        threading.Thread(target=self.serve_forever, name="distcrawl-site", daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer

    def do_GET(self) -> None:
        if self.server.delay:
            time.sleep(self.server.delay)
        body = self.server.pages.get(self.path)
        if body is None:
            self.send_error(404)
            return
        with self.server._lock:
            self.server.served.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass
