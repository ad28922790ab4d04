"""Which item fields hold a whole page, and the page made of a page's visible text."""

from __future__ import annotations

import pytest
from corpora import iter_pages
from scrapy import Spider
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler
from shoppages import PRODUCTS, shop_page

from scrapy_simhash.crawl.itempage import is_html_document, item_page, visible_text_page
from scrapy_simhash.crawl.pipeline import SimhashPipeline
from scrapy_simhash.crawl.settings import SimhashSettingError


def visible_text(page: str | bytes) -> str:
    """What ``" ".join(response.css("body ::text").getall())`` stores."""
    body = page.encode("utf-8") if isinstance(page, str) else page
    return " ".join(HtmlResponse("http://shop.test/", body=body).css("body ::text").getall())


def test_a_document_is_html_and_a_fragment_is_text():
    assert is_html_document("<!DOCTYPE html>\n<html><body><p>Hello</p></body></html>")
    assert is_html_document("\ufeff<!-- saved -->\n<HTML><div>Hello</div></HTML>")
    assert not is_html_document("<p>An article's body as a CMS stores it.</p><p>More.</p>")
    assert not is_html_document("<html> is the root element of a page, the manual says.")
    assert not is_html_document("Plain text that mentions <html> and <p> further on.")


@pytest.mark.scrapy_version_independent
def test_an_article_field_is_never_taken_for_a_page(corpora_root):
    """The corpora's ground-truth main texts (with lists, headings, captions, tables) read as
    an item's own text; their pages' whole visible texts, most of them, as pages."""
    truths = wholes = taken = 0
    for page in iter_pages(with_truth_text=True, root=corpora_root):
        truths += 1
        text = page.truth_text
        assert visible_text_page(text) is None, page.id
        assert item_page(text, "http://a.test/", 10**7) is None, page.id
        if visible_text_page(visible_text(page.html)) is not None:
            taken += 1
        wholes += 1
    assert truths >= 200
    assert taken >= wholes * 0.6


def test_a_short_product_page_text_is_left_as_it_is():
    for product in PRODUCTS:
        assert visible_text_page(visible_text(shop_page(*product))) is None


def test_an_article_field_keeps_its_fingerprint():
    crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0})
    pipeline = SimhashPipeline.from_crawler(crawler)
    pipeline.spider_opened()
    article = "\n".join(f"Paragraph {n}: the seed library lends beans and squash to gardeners, "
                        "who bring back seeds of their own at the end of the season." for n in
                        range(20))
    item = {"url": "http://a.test/1", "title": "Seeds", "body": article}
    assert pipeline.process_item(item) is item
    stored = pipeline.dedup.index.query(pipeline.dedup.detector.sign_text(
        "Seeds\n" + article).signature)
    assert [(match.key, match.distance) for match in stored] == [("http://a.test/1", 0)]
    assert crawler.stats.get_value("simhash/items/as_page") is None


def test_the_setting_is_checked():
    crawler = get_crawler(Spider, {"SIMHASH_ITEM_MAIN_TEXT": "sometimes"})
    with pytest.raises(SimhashSettingError, match="SIMHASH_ITEM_MAIN_TEXT='sometimes'"):
        SimhashPipeline.from_crawler(crawler)
