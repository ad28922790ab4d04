"""Per-page bounds: bytes parsed, text kept, body size, nesting depth, binary and bomb bodies.

The bounds (defaults): the downloader middleware never parses a body over
``SIMHASH_MAX_BODY_SIZE`` (10 MB); ``Fingerprinter.fingerprint_html`` parses at most the
extractor's ``max_bytes`` (4 MB) and keeps at most ``max_chars`` (200,000) characters of text.
Timings per bound are measured by benchmarks/fuzz.py (RELIABILITY.md), not asserted here.
"""

from __future__ import annotations

import gzip

import pytest
from scrapy import Spider
from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.settings import DEFAULTS
from scrapy_simhash.extract import DEFAULT_MAX_BYTES, DEFAULT_MAX_CHARS, extract_main_text
from scrapy_simhash.fingerprint import Fingerprinter

from .pages import article, deeply_nested, padded, page

MB = 1024 * 1024


class UnparsedResponse(HtmlResponse):
    """An HTML response that fails the test if anything decodes or parses its body."""

    @property
    def selector(self):
        raise AssertionError("the body was parsed")

    @property
    def text(self):
        raise AssertionError("the body was decoded")


@pytest.fixture
def middleware_for(middleware_factory):
    # computed inline: the bounds are the same in a worker process (tests/crawl/workers)
    return middleware_factory


def respond(middleware, url, body, cls=HtmlResponse, **kwargs):
    request = Request(url)
    response = cls(url, body=body, request=request, **kwargs)
    return middleware.process_response(request, response), request


def test_default_max_body_size_is_10_mb():
    assert DEFAULTS["SIMHASH_MAX_BODY_SIZE"] == 10 * MB


def test_50_mb_body_is_skipped_without_being_decoded_or_parsed(middleware_for):
    middleware, stats = middleware_for()
    body = padded(page(1), 50 * MB)
    response, request = respond(middleware, "http://b.test/huge", body, cls=UnparsedResponse)
    assert response.body is body and "simhash" not in request.meta
    assert stats.get_value("simhash/pages/skipped/too_large") == 1


def test_max_body_size_setting_is_the_bound(middleware_for):
    limit = 64 * 1024
    middleware, stats = middleware_for(SIMHASH_MAX_BODY_SIZE=limit)
    respond(middleware, "http://b.test/fits", padded(page(1), limit))
    respond(middleware, "http://b.test/over", padded(page(2), limit + 1), cls=UnparsedResponse)
    assert stats.get_value("simhash/pages/checked") == 1
    assert stats.get_value("simhash/pages/skipped/too_large") == 1


def test_bytes_beyond_max_bytes_never_change_the_fingerprint():
    prefix = padded(page(3), DEFAULT_MAX_BYTES)
    fingerprinter = Fingerprinter()
    expected = fingerprinter.fingerprint_html(prefix)
    assert expected is not None
    for tail in (b"<p>" + article(4).encode() * 400, b"<div>" * 100_000, bytes(range(256)) * 9):
        assert fingerprinter.fingerprint_html(prefix + tail) == expected


def test_50_mb_body_through_fingerprint_html_parses_only_the_prefix():
    head = page(5)
    body = padded(head, 50 * MB, filler=article(6).encode())
    small = padded(head, DEFAULT_MAX_BYTES, filler=article(6).encode())
    fingerprinter = Fingerprinter()
    assert fingerprinter.fingerprint_html(body) == fingerprinter.fingerprint_html(small)


@pytest.mark.parametrize("max_chars", [0, 1, 100, 5000])
def test_extracted_text_is_cut_to_max_chars(max_chars):
    text = extract_main_text(page(8, paragraphs=200), max_chars=max_chars)
    assert len(text) <= max_chars


def test_text_beyond_max_chars_never_changes_the_tree_fingerprint():
    long_article = article(9, paragraphs=1200)  # well over DEFAULT_MAX_CHARS characters
    assert len(long_article) > 1.5 * DEFAULT_MAX_CHARS

    def tree(tail: str):
        html = f"<html><body><article><h1>T</h1>{long_article}{tail}</article></body></html>"
        return HtmlResponse("http://b.test/", body=html.encode(), encoding="utf-8").selector.root

    fingerprinter = Fingerprinter()
    assert fingerprinter.fingerprint_tree(tree("")) == fingerprinter.fingerprint_tree(
        tree(article(10, paragraphs=50))
    )


@pytest.mark.parametrize("tag", ["div", "b", "span", "table"])
def test_100000_deep_nesting_through_the_middleware_is_kept_and_counted(middleware_for, tag):
    middleware, stats = middleware_for()
    url = f"http://b.test/deep/{tag}"
    response, _ = respond(middleware, url, deeply_nested(100_000, tag=tag))
    assert isinstance(response, HtmlResponse) and response.url == url  # kept, not raised
    counted = {key: value for key, value in stats.get_stats().items() if "/pages/" in key}
    assert sum(v for k, v in counted.items() if k.endswith(("checked", "too_short", "error"))) == 1


def test_100000_deep_nesting_still_fingerprints_its_text():
    """Too deep for libxml2: the extractor falls back to the page's tag-stripped text."""
    assert Fingerprinter().fingerprint_html(deeply_nested(100_000)) is not None


def test_binary_body_served_as_html_is_skipped(middleware_for):
    middleware, stats = middleware_for()
    blob = bytes((i * 7919 + 13) % 256 for i in range(200_000))  # deterministic "random" bytes
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + blob
    for number, body in enumerate((blob, png, gzip.compress(page(11)))):
        respond(middleware, f"http://b.test/blob{number}", body,
                headers={"Content-Type": "text/html"})
    assert stats.get_value("simhash/pages/skipped/binary") == 3
    assert stats.get_value("simhash/pages/checked") is None


def w3lib_before_2_6() -> bool:
    from importlib.metadata import version

    major, minor = (int(part) for part in version("w3lib").split(".")[:2])
    return (major, minor) < (2, 6)


@pytest.mark.parametrize(
    ("header", "meta"),
    [("x-unknown-charset", ""), (None, '<meta charset="x-bogus">'),
     ("utf-8", '<meta charset="no-such-thing">'), ("zlib", ""), ("idna", ""), ("undefined", "")],
)
def test_unknown_or_unusable_charset_labels_fingerprint_like_utf8(middleware_for, header, meta):
    body = page(12, head=meta)
    middleware, stats = middleware_for()
    headers = {"Content-Type": f"text/html; charset={header}"} if header else {}
    _, request = respond(middleware, "http://b.test/charset", body, headers=headers)
    expected = Fingerprinter().fingerprint_html(page(12), "utf-8")
    assert request.meta["simhash"] == expected
    # w3lib before 2.6 raises on codecs that are not text encodings: the raw body is
    # fingerprinted instead (2.6 reads them as UTF-8, and Scrapy's tree serves)
    try:
        unusable = not HtmlResponse("http://b.test/", body=body, headers=headers).text
    except Exception:
        unusable = True
    assert unusable == (header in ("zlib", "idna", "undefined") and w3lib_before_2_6())
    assert stats.get_value("simhash/pages/tree_unavailable") == (1 if unusable else None)


def _compression_middleware(**settings):
    crawler = get_crawler(Spider, settings)
    crawler.spider = crawler._create_spider("bomb")
    return HttpCompressionMiddleware.from_crawler(crawler)


def _gzip_bomb(size: int) -> bytes:
    return gzip.compress(page(13) + b" " * (size - len(page(13))), compresslevel=9)


def test_gzip_bomb_is_stopped_by_download_maxsize_before_our_middleware():
    bomb = _gzip_bomb(64 * MB)
    assert len(bomb) < 100_000  # ~64 KB on the wire
    compression = _compression_middleware(DOWNLOAD_MAXSIZE=16 * MB)
    request = Request("http://b.test/bomb")
    response = HtmlResponse(request.url, body=bomb, request=request,
                            headers={"Content-Encoding": "gzip", "Content-Type": "text/html"})
    with pytest.raises(IgnoreRequest, match="DOWNLOAD_MAXSIZE"):
        compression.process_response(request, response)


def test_decompressed_bomb_under_download_maxsize_is_skipped_as_too_large(middleware_for):
    compression = _compression_middleware()  # Scrapy's default DOWNLOAD_MAXSIZE: 1 GB
    request = Request("http://b.test/bomb")
    response = HtmlResponse(request.url, body=_gzip_bomb(32 * MB), request=request,
                            headers={"Content-Encoding": "gzip", "Content-Type": "text/html"})
    decompressed = compression.process_response(request, response)
    assert len(decompressed.body) == 32 * MB
    middleware, stats = middleware_for()
    assert middleware.process_response(request, decompressed) is decompressed
    assert stats.get_value("simhash/pages/skipped/too_large") == 1
