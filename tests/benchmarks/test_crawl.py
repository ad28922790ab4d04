"""The long crawl's pages (``benchmarks/crawl.py --pages``): copies that keep their page's markup
and differ in their words, the same for the same copy."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "crawl_benchmark", Path(__file__).resolve().parents[2] / "benchmarks" / "crawl.py"
)
crawl_benchmark = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(crawl_benchmark)

PAGE = (b"<html><head><title>Tides</title><script>var tides = 1;</script></head><body>"
        b"<p class='lead'>The moon pulls on the oceans and the water rises along the coast.</p>"
        b"<p>Sailors watch the tides because the harbour empties twice a day.</p></body></html>")
WORDS = sorted({b"moon", b"pulls", b"oceans", b"water", b"rises", b"along", b"coast", b"sailors",
                b"watch", b"tides", b"because", b"harbour", b"empties", b"twice", b"day"})


def _tags(body: bytes) -> list[bytes]:
    return re.findall(rb"<[^>]*>", body)


def test_a_copy_keeps_the_markup_and_renames_the_words():
    copy = crawl_benchmark.distinct_copy(PAGE, WORDS, 1)
    assert _tags(copy) == _tags(PAGE)
    assert copy != PAGE
    assert b"Tides" in copy and b"The " in copy  # capitalised words are left as they are
    texts, copied = re.findall(rb">([^<]+)<", PAGE), re.findall(rb">([^<]+)<", copy)
    assert len(copied) == len(texts)
    assert all(a != b for a, b in zip(texts[2:], copied[2:], strict=True))  # every paragraph


def test_the_same_copy_is_the_same_document_and_another_copy_another():
    first = crawl_benchmark.distinct_copy(PAGE, WORDS, 1)
    assert crawl_benchmark.distinct_copy(PAGE, WORDS, 1) == first
    assert crawl_benchmark.distinct_copy(PAGE, WORDS, 2) != first


def test_the_pages_served_are_the_pages_then_their_copies():
    pages = [(PAGE, "text/html"), (PAGE.replace(b"moon", b"sun"), "text/html; charset=utf-8")]
    served = crawl_benchmark.page_copies(pages, WORDS, 5)
    assert len(served) == 5
    assert served[:2] == pages
    assert [content_type for _, content_type in served] == [
        "text/html", "text/html; charset=utf-8"] * 2 + ["text/html"]
    assert len({body for body, _ in served}) == 5
