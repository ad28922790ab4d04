"""A worker computes what the inline path computes: the same text, the same tree, the same bits."""

from __future__ import annotations

import pytest
from scrapy.http import HtmlResponse

from scrapy_simhash.corpora import iter_pages
from scrapy_simhash.dedup import build_detector
from scrapy_simhash.settings import SimhashConfig
from scrapy_simhash.workers.tasks import page_signature, parsel_root, response_text

ARTICLE = ("<html><head><title>潮汐</title></head><body><article><h1>潮汐为什么会转向</h1>"
           + "<p>月球的引力拉动海水，沿岸的水位每天上涨两次，渔民据此安排出海的时间。</p>" * 5
           + "</article></body></html>")


def _responses(body: bytes, content_type: str):
    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse("http://example.com/a", body=body, headers=headers)


def _inline(detector, response: HtmlResponse):
    """What the middleware computes inline: Scrapy's text and Scrapy's own selector tree."""
    return page_signature(detector, response.text, response.body, response.url,
                          response.selector.root)


def _in_worker(detector, response: HtmlResponse):
    """What a worker computes from the body and response.encoding alone."""
    text = response_text(response.body, response.encoding)
    return page_signature(detector, text, response.body, response.url)


@pytest.mark.parametrize(("body", "content_type"), [
    (ARTICLE.encode("utf-8"), "text/html; charset=utf-8"),
    (ARTICLE.encode("gbk"), "text/html; charset=gbk"),
    (ARTICLE.encode("gb18030"), "text/html"),  # inferred: no declaration anywhere
    (ARTICLE.replace("<head>", "<head><meta charset='gb2312'>").encode("gb2312"), ""),
    (b"\xef\xbb\xbf" + ARTICLE.encode("utf-8"), "text/html; charset=latin-1"),  # the BOM wins
    (ARTICLE.encode("big5", "replace"), "text/html; charset=big5"),
])
def test_worker_text_and_signature_equal_the_inline_ones(body, content_type):
    detector = build_detector(SimhashConfig())
    response = _responses(body, content_type)
    assert response_text(response.body, response.encoding) == response.text
    assert _in_worker(detector, response) == _inline(detector, response)


def test_undecodable_bodies_fall_back_to_the_raw_html_on_both_paths():
    detector = build_detector(SimhashConfig())
    assert response_text(ARTICLE.encode(), None) is None
    assert response_text(ARTICLE.encode(), "zlib") is None  # not a text encoding
    raw = page_signature(detector, None, ARTICLE.encode(), None)
    assert raw == detector.signature_html(ARTICLE.encode())


def test_parsel_root_is_the_tree_scrapy_builds():
    response = _responses(ARTICLE.encode(), "text/html; charset=utf-8")
    from lxml import etree

    assert etree.tostring(parsel_root(response.text)) == etree.tostring(response.selector.root)


def test_every_corpus_page_gets_the_same_signature_in_a_worker(corpora_root):
    detector = build_detector(SimhashConfig())
    checked = 0
    for page in iter_pages():
        for content_type in (f"text/html; charset={page.encoding}" if page.encoding else "",
                             "text/html"):
            response = _responses(page.html, content_type)
            try:
                text = response.text
            except Exception:  # unusable labels: covered above
                continue
            assert response_text(page.html, response.encoding) == text, page.id
            assert _in_worker(detector, response) == _inline(detector, response), page.id
            checked += 1
    assert checked > 400
