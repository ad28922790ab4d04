"""Feeds hostile pages through the plugin under an audit hook: ``python audit_pages.py SECRET``.

SECRET is a file whose content must never show up. After a warm-up (imports, jieba's dictionary),
it records every filesystem open, socket, subprocess and import while pages that reference
files and URLs (XXE, DTDs, XInclude, refresh, base, img, link, iframe, stylesheets) are
fingerprinted and sent through the downloader middleware, then opens SECRET once itself (the
control: the hook works). It prints one JSON object: ``{"events": [...], "leaked": bool}``.
"""

from __future__ import annotations

import contextlib
import json
import sys

from scrapy import Spider
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.downloader import NearDuplicatePage, SimhashDownloaderMiddleware
from scrapy_simhash.extract import get_extractor
from scrapy_simhash.fingerprint import Fingerprinter

WATCHED = ("open", "os.", "socket.", "subprocess.", "shutil.", "urllib.", "http.client.",
           "import", "ctypes.", "sqlite3.connect", "webbrowser.", "glob.", "pathlib.")
PROSE = " ".join(["The ferry crossed the harbour at dawn with cargo and passengers aboard."] * 8)
CHINESE = "城市地铁新线路今天正式开通运营，市民可以乘坐列车直接前往机场和火车站。" * 8


def hostile_pages(secret: str) -> list[bytes]:
    uri = f"file://{secret}"
    heads = [
        f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY xxe SYSTEM "{uri}">]>',
        f'<!DOCTYPE html SYSTEM "{uri}">',
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN" "http://127.0.0.1:9/x.dtd">',
        f'<?xml-stylesheet type="text/xsl" href="{uri}"?>',
    ]
    bodies = [
        "&xxe;", f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{uri}"/>',
        f'<meta http-equiv="refresh" content="0;url={uri}">', f'<base href="{uri}">',
        f'<img src="{uri}"><img src="http://127.0.0.1:9/p.png">', f'<iframe src="{uri}"></iframe>',
        f'<link rel="stylesheet" href="{uri}">', f'<object data="{uri}"></object>',
        f'<svg><image href="{uri}"/></svg>', f'<script src="{uri}"></script>',
        f'<a href="{uri}">read</a>', '<form action="http://127.0.0.1:9/">x</form>',
    ]
    pages = []
    for head in heads:
        for body in bodies:
            pages.append(f"{head}<html><head>{body}</head><body><p>{body}{PROSE}</p>"
                         f"<p>{CHINESE}</p></body></html>".encode())
    return pages


def main() -> None:
    secret = sys.argv[1]
    token = open(secret, encoding="utf-8").read().strip()  # noqa: SIM115 - before the hook
    fingerprinters = [Fingerprinter(), Fingerprinter(extractor="wholepage")]
    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0})  # checked here, not in a coroutine
    crawler.spider = crawler._create_spider("audit")
    middleware = SimhashDownloaderMiddleware.from_crawler(crawler)
    middleware.spider_opened()
    extract = get_extractor("builtin")
    warm = f"<html><body><p>{PROSE}</p><p>{CHINESE}</p></body></html>".encode()
    for fingerprinter in fingerprinters:
        fingerprinter.fingerprint_html(warm)

    def respond(number: int, body: bytes) -> None:
        url = f"http://audit.test/{number}"
        request = Request(url)
        response = HtmlResponse(url, body=body, encoding="utf-8", request=request)
        with contextlib.suppress(NearDuplicatePage):
            middleware.process_response(request, response)

    respond(0, warm)
    pages = hostile_pages(secret)
    events: list[str] = []

    def hook(event: str, args: tuple) -> None:
        if event.startswith(WATCHED):
            events.append(f"{event} {str(args)[:120]}")

    sys.addaudithook(hook)
    leaked = False
    for number, body in enumerate(pages, start=1):
        for fingerprinter in fingerprinters:
            fingerprinter.fingerprint_html(body, None, f"file://{secret}")
        leaked |= token in extract(body, None, None)
        respond(number, body)
    with open(secret, encoding="utf-8"):  # the control: proves the hook records opens
        pass
    sys.stdout.write(json.dumps({"events": events, "leaked": leaked, "pages": len(pages)}))


if __name__ == "__main__":
    main()
