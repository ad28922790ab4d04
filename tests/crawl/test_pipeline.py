"""The item pipeline, built through get_crawler, and in real crawls of pages stored whole."""

from __future__ import annotations

import json

import pytest
from crawling import run_crawl
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.pipeline import NearDuplicateItem, SimhashPipeline

BODY = " ".join(f"Line {n}: the seed library lends beans and squash to {n} gardeners."
                for n in range(30))
OTHER = " ".join(f"Line {n}: night buses need shelters with lights for {n} riders."
                 for n in range(30))


@pytest.fixture
def pipeline_and_stats():
    def _build(**settings):
        # the decisions, computed inline (worker processes: tests/crawl/workers)
        crawler = get_crawler(Spider, {"SIMHASH_WORKERS": 0, **settings})
        pipeline = SimhashPipeline.from_crawler(crawler)
        pipeline.spider_opened()
        return pipeline, crawler.stats

    return _build


def test_drops_near_duplicate_item_naming_the_original_and_distance(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats()
    first = {"url": "http://a.test/1", "title": "Seeds", "body": BODY}
    assert pipeline.process_item(first) is first
    with pytest.raises(NearDuplicateItem) as dropped:
        pipeline.process_item({"url": "http://a.test/1?print=1", "title": "Seeds", "body": BODY})
    assert isinstance(dropped.value, DropItem)
    assert "Near-duplicate of http://a.test/1 (distance 0)" in str(dropped.value)
    other = {"url": "http://a.test/2", "title": "Buses", "body": OTHER}
    assert pipeline.process_item(other) is other
    assert stats.get_value("simhash/items/dropped") == 1
    assert stats.get_value("simhash/items/kept") == 2
    pipeline.spider_closed()
    assert stats.get_value("simhash/index/items/size") == 2


def test_item_fields_setting_chooses_the_text(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats(SIMHASH_ITEM_FIELDS=["text"])
    assert pipeline.process_item({"title": "x", "body": BODY}) is not None
    assert stats.get_value("simhash/items/skipped/no_text") == 1
    pipeline.process_item({"text": [BODY[:200], BODY[200:]]})
    with pytest.raises(NearDuplicateItem, match="item-2"):
        pipeline.process_item({"text": BODY})


def test_pages_and_items_use_separate_namespaces(pipeline_and_stats):
    from scrapy_simhash.crawl.downloader import SimhashDownloaderMiddleware

    pipeline, _ = pipeline_and_stats()
    middleware = SimhashDownloaderMiddleware.from_crawler(pipeline.crawler)
    middleware.spider_opened()
    assert pipeline.dedup.index.namespace == "items"
    assert middleware.dedup.index.namespace == "pages"
    url = "http://a.test/1"
    body = f"<html><body><article><p>{BODY}</p></article></body></html>".encode()
    response = HtmlResponse(url, body=body, encoding="utf-8", request=Request(url))
    assert middleware.process_response(response.request, response) is response
    item = {"url": url, "body": BODY}  # the page's own text, as its item
    assert pipeline.process_item(item) is item  # not a duplicate of the page
    with pytest.raises(NearDuplicateItem):
        pipeline.process_item({"url": "http://a.test/2", "body": BODY})
    middleware.spider_closed()


def test_an_item_loaders_list_of_urls_names_the_item_by_its_first(pipeline_and_stats):
    pipeline, _ = pipeline_and_stats()
    pipeline.process_item({"url": ["", "http://a.test/1"], "title": "Seeds", "body": BODY})
    with pytest.raises(NearDuplicateItem) as dropped:
        pipeline.process_item({"url": ["http://a.test/2"], "title": "Seeds", "body": BODY})
    assert str(dropped.value) == "Near-duplicate of http://a.test/1 (distance 0): http://a.test/2"


def test_item_text_reads_bytes_and_nested_values_not_their_repr():
    from itemadapter import ItemAdapter

    from scrapy_simhash.crawl.pipeline import item_text

    item = {"title": b"Seeds \xe2\x9c\x93", "body": {"lead": "Beans.", "more": ["Squash.", 3]}}
    assert item_text(ItemAdapter(item), ("title", "body")) == "Seeds ✓\nBeans.\nSquash.\n3"


def test_item_fields_may_be_a_json_array_on_the_command_line(pipeline_and_stats):
    pipeline, _ = pipeline_and_stats(SIMHASH_ITEM_FIELDS='["title", "text"]')
    assert pipeline.fields == ("title", "text")


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for this value")


def test_a_field_whose_str_raises_keeps_the_item_unchecked_and_logs_once(pipeline_and_stats,
                                                                          caplog):
    pipeline, stats = pipeline_and_stats()
    items = [
        {"url": "http://a.test/1", "title": 10**5000, "body": BODY},  # past int's str() limit
        {"url": "http://a.test/2", "title": _Unprintable(), "body": BODY},
        {"url": _Unprintable(), "title": "Seeds", "body": BODY},  # the key field
    ]
    for item in items:
        assert pipeline.process_item(item) is item
    assert stats.get_value("simhash/items/skipped/error") == 3
    assert stats.get_value("simhash/index/items/size", 0) == 0
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert [r.getMessage().split(" (")[0] for r in errors] == [
        "Simhash: signature failed for an item", "Simhash: signature failed for an item"]
    assert "RuntimeError: no text for this value" in errors[1].getMessage()


def test_a_key_with_a_lone_surrogate_is_stored_as_its_escape(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats(SIMHASH_ON_INDEX_ERROR="stop")
    first = {"url": "http://a.test/\ud83d", "title": "Seeds", "body": BODY}
    assert pipeline.process_item(first) is first
    with pytest.raises(NearDuplicateItem) as dropped:
        pipeline.process_item({"url": "http://a.test/2", "title": "Seeds", "body": BODY})
    assert dropped.value.duplicate_of == "http://a.test/\\ud83d"
    assert stats.get_value("simhash/index/errors") is None


def test_an_item_the_evidence_does_not_confirm_is_kept(pipeline_and_stats):
    import random

    pipeline, stats = pipeline_and_stats()
    words = BODY.split()
    random.Random(3).shuffle(words)  # the same words, so the same SimHash; other 3-grams
    pipeline.process_item({"url": "http://a.test/1", "title": "Seeds", "body": BODY})
    shuffled = {"url": "http://a.test/2", "title": "Seeds", "body": " ".join(words)}
    assert pipeline.process_item(shuffled) is shuffled
    assert stats.get_value("simhash/items/kept/unconfirmed") == 1


def test_a_short_item_is_dropped_only_for_a_nearly_identical_text(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats()
    notice = ("Store notice: the Leeds branch closes early on {day} for a stock count; online "
              "orders ship as usual and collections move to the next morning.")
    pipeline.process_item({"url": "http://a.test/1", "body": notice.format(day="Monday")})
    tuesday = {"url": "http://a.test/2", "body": notice.format(day="Tuesday 14 March")}
    assert pipeline.process_item(tuesday) is tuesday
    assert stats.get_value("simhash/items/kept/unconfirmed") == 1  # a candidate, not confirmed
    with pytest.raises(NearDuplicateItem):
        pipeline.process_item({"url": "http://a.test/1?x", "body": notice.format(day="Monday")})


def test_dry_run_drops_no_item(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats(SIMHASH_DRY_RUN=True)
    pipeline.process_item({"url": "http://a.test/1", "title": "Seeds", "body": BODY})
    again = {"url": "http://a.test/1?print=1", "title": "Seeds", "body": BODY}
    assert pipeline.process_item(again) is again
    assert stats.get_value("simhash/items/dropped/dry_run") == 1


def test_items_without_the_configured_fields_are_warned_of_once(pipeline_and_stats, caplog):
    pipeline, stats = pipeline_and_stats()
    for n in range(3):
        pipeline.process_item({"url": f"http://a.test/{n}", "name": "Kettle", "price": 30 + n})
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert "none of SIMHASH_ITEM_FIELDS ['title', 'body']" in warnings[0]
    assert "(its fields: name, price, url)" in warnings[0]
    assert stats.get_value("simhash/items/skipped/no_text") == 3


def test_a_dropped_item_is_logged_by_scrapy_alone(pipeline_and_stats, caplog):
    caplog.set_level("DEBUG", logger="scrapy_simhash")
    pipeline, _ = pipeline_and_stats()
    pipeline.process_item({"url": "http://a.test/1", "title": "Seeds", "body": BODY})
    with pytest.raises(NearDuplicateItem):
        pipeline.process_item({"url": "http://a.test/1?print=1", "title": "Seeds", "body": BODY})
    assert not [r for r in caplog.records if "near-duplicate of" in r.getMessage()]


# A spider that stores each page whole in its item's "body", fetching the paths one after the
# other (argv: site URL, output folder, JSON of settings with "paths" and "store": "html" for
# response.text, "text" for the body's visible text).
WHOLE_PAGE_SCRIPT = """
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
url, out, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
paths, store = extra.pop("paths"), extra.pop("store")

class WholePages(scrapy.Spider):
    name = "wholepages"

    async def start(self):
        yield scrapy.Request(url + paths[0], cb_kwargs={"position": 0})

    def parse(self, response, position):
        if store == "html":
            body = response.text
        else:
            body = " ".join(response.css("body ::text").getall())
        yield {"url": response.url, "body": body}
        if position + 1 < len(paths):
            yield scrapy.Request(url + paths[position + 1], cb_kwargs={"position": position + 1})

settings = get_project_settings()
settings.setdict({"SIMHASH_REPORT_FILE": out + "/duplicates.jsonl",
                  "STATS_DUMP_FILE": out + "/stats.json",
                  "FEEDS": {out + "/items.jsonl": {"format": "jsonlines"}}, **extra}, "cmdline")
process = CrawlerProcess(settings)
process.crawl(WholePages)
process.start()
"""


@pytest.fixture
def site_with_a_shop(demo_site, monkeypatch):
    from demosite.site import PAGES, Page
    from shoppages import shop_pages

    for path, body in shop_pages().items():
        monkeypatch.setitem(PAGES, path, Page(body))
    return demo_site


def _crawl_whole_pages(site, out, store, **settings):
    from demosite.articles import ENGLISH

    first, second, third = (f"/en/{article.slug}" for article in ENGLISH[:3])
    copy = f"/partner/en/{ENGLISH[0].slug}"  # the first article in the partner's template
    paths = [first, second, third, copy, "/shop/0", "/shop/1", "/shop/2", "/shop/3"]
    extra = {"ADDONS": {}, "ITEM_PIPELINES": {"scrapy_simhash.pipeline.SimhashPipeline": 300},
             "SIMHASH_ITEM_FIELDS": ["body"], "LOG_LEVEL": "DEBUG", "paths": paths,
             "store": store, **settings}
    result = run_crawl(site, out, json.dumps(extra), script=WHOLE_PAGE_SCRIPT)
    assert result.returncode == 0, result.log[-3000:]
    assert len(result.requested) == len(paths), result.log[-3000:]
    return result, paths


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("store", ["html", "text"])
def test_an_item_holding_its_whole_page_is_checked_by_its_main_text(
    site_with_a_shop, tmp_path, store, workers
):
    result, paths = _crawl_whole_pages(site_with_a_shop, tmp_path, store,
                                       SIMHASH_WORKERS=workers)
    base = site_with_a_shop.url
    first, copy = paths[0], paths[3]
    # the article copied into another template: dropped against the first; every distinct
    # article and product (two mugs that differ in one word among them) kept
    assert [(row["url"], row["duplicate_of"]) for row in result.report] == [
        (base + copy, base + first)
    ]
    assert result.item_paths(base) == set(paths) - {copy}
    # one log record for the drop, Scrapy's (the plugin adds none of its own)
    assert result.log.count(f"Near-duplicate of {base + first} (distance ") == 1
    # every HTML document; of the visible texts, the articles' (a product's blurb is no article)
    assert result.stats["simhash/items/as_page"] == (8 if store == "html" else 4)
    kind = "HTML" if store == "html" else "visible text"
    assert result.log.count(f"item field 'body' holds a whole page ({kind})") == 1


def test_main_text_of_whole_page_items_can_be_turned_off(site_with_a_shop, tmp_path):
    result, _ = _crawl_whole_pages(site_with_a_shop, tmp_path, "text",
                                   SIMHASH_ITEM_MAIN_TEXT=False)
    assert result.report == []  # the copy's whole text is too far from the first's: kept
    assert "simhash/items/as_page" not in result.stats


def spider_script(name: str, parse: str) -> str:
    """A script that crawls the site (argv: site URL, output folder) with the add-on alone and
    a spider of ``parse`` (its body, indented as a method's), writing items and stats there."""
    return f"""
import sys
import scrapy
from scrapy.crawler import CrawlerProcess
url, out = sys.argv[1], sys.argv[2]

class Spider(scrapy.Spider):
    name = "{name}"
    start_urls = [url + "/"]
    custom_settings = {{"ADDONS": {{"scrapy_simhash.Addon": 0}}}}

    def parse(self, response):
{parse}
process = CrawlerProcess({{"FEEDS": {{out + "/items.jsonl": {{"format": "jsonlines"}}}},
                          "EXTENSIONS": {{"demo.extensions.StatsDump": 500}},
                          "STATS_DUMP_FILE": out + "/stats.json", "ROBOTSTXT_OBEY": False,
                          "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "INFO"}})
process.crawl(Spider)
process.start()
"""


# Follows the index's links and yields each page's title and description as its item.
VARIANTS_SCRIPT = spider_script("variants", """\
        if response.url.endswith("/"):
            yield from response.follow_all(css="a")
            return
        yield {"url": response.url, "title": response.css("h1::text").get(),
               "body": " ".join(response.css("article p:not(.buy)::text").getall())}
""")


def test_the_item_of_a_page_kept_as_distinct_stands_for_it(tmp_path):
    """A jacket in ten colours: the pages differ in price, SKU and stock line, the items' title
    and description do not. Each page is kept for its figures, and its item with it."""
    from test_hard_negatives_crawl import PagesSite, site_pages

    from benchmarks.hardneg.templated import product_variants

    pages, family_of = site_pages({"variants": product_variants()})
    site = PagesSite(pages).start()
    try:
        result = run_crawl(site, tmp_path, script=VARIANTS_SCRIPT)
    finally:
        site.stop()
    assert result.returncode == 0, result.log[-3000:]
    assert len({item["title"] for item in result.items}) == 1  # the same words in every item
    assert {item["url"][len(site.url):] for item in result.items} == set(family_of)
    assert result.stats["simhash/pages/kept"] == len(family_of)  # (the index: too short)
    assert result.stats["simhash/items/skipped/page_kept"] == len(family_of)
    assert "simhash/items/dropped" not in result.stats


MUG = ("Our stoneware mug is thrown by hand in the Stoke workshop and finished with a smooth "
       "glaze that is safe for the dishwasher and the microwave. The generous handle fits four "
       "fingers comfortably and the thick walls keep your tea or coffee warm for longer. Every "
       "mug is inspected by hand before it leaves the pottery, and the glaze runs a little "
       "differently on each one, so no two are quite alike. Holds {size}.")


def test_items_of_one_site_with_other_titles_are_kept(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats()
    for colour in ("Red", "Blue", "Sand"):
        item = {"url": f"http://shop.test/mugs#{colour}", "title": f"Stoneware mug – {colour}",
                "body": MUG.format(size="350 ml")}
        assert pipeline.process_item(item) is item
    # the same item again (another listing page, a tracking parameter) is still dropped
    with pytest.raises(NearDuplicateItem):
        pipeline.process_item({"url": "http://shop.test/mugs?page=2#Red",
                               "title": "Stoneware mug – Red", "body": MUG.format(size="350 ml")})
    assert stats.get_value("simhash/items/kept") == 3


def test_long_items_whose_titles_name_their_text_are_kept(pipeline_and_stats):
    pipeline, stats = pipeline_and_stats()
    body = ("This role is based in our {city} office. " + BODY) * 2  # over 300 words
    for city in ("Berlin", "Lisbon", "Warsaw"):
        item = {"url": f"http://jobs.test/{city}", "title": f"Platform engineer, {city}",
                "body": body.format(city=city)}
        assert pipeline.process_item(item) is item
    # the same ad again is still dropped; another title that the text does not name is no
    # other ad ("Print:", the site's name)
    for title in ("Platform engineer, Berlin", "Print: Platform engineer, Berlin | Jobs"):
        with pytest.raises(NearDuplicateItem):
            pipeline.process_item({"url": "http://jobs.test/Berlin?ref=feed", "title": title,
                                   "body": body.format(city="Berlin")})
    assert stats.get_value("simhash/items/kept") == 3


# Yields one item per product card of a catalog page.
CATALOG_SCRIPT = spider_script("catalog", """\
        for card in response.css("div.card"):
            title = card.css("h2::text").get()
            yield {"url": response.url + "#" + title, "title": title,
                   "price": card.css(".price::text").get(),
                   "body": card.css(".desc::text").get()}
""")


def test_a_catalog_pages_variant_items_all_reach_the_feed(tmp_path):
    """One page, a card per variant: another colour, size or price in the title, the same
    description. Every item is kept; the page's second copy of a card is dropped."""
    from test_hard_negatives_crawl import PagesSite

    cards = [(f"Stoneware mug – {colour}, {size}", price)
             for colour, size, price in (("Red", "350 ml", "£18"), ("Blue", "350 ml", "£18"),
                                         ("Red", "500 ml", "£22"), ("Sand", "350 ml", "£18"),
                                         ("Ash", "500 ml", "£22"))]
    html = "".join(
        f"<div class='card'><h2>{title}</h2><p class='price'>{price}</p>"
        f"<p class='desc'>{MUG.format(size=title.split(', ')[1])}</p></div>"
        for title, price in [*cards, cards[0]]
    )
    page = (f"<html><head><title>Mugs | Stoke Pottery</title></head><body><nav><a href='/'>Home"
            f"</a></nav><main><h1>Mugs</h1>{html}</main><footer>Stoke Pottery</footer></body>"
            "</html>")
    site = PagesSite({"/": (page.encode(), "text/html; charset=utf-8")}).start()
    try:
        result = run_crawl(site, tmp_path, script=CATALOG_SCRIPT)
    finally:
        site.stop()
    assert result.returncode == 0, result.log[-3000:]
    assert sorted(item["title"] for item in result.items) == sorted(title for title, _ in cards)
    assert result.stats["simhash/items/dropped"] == 1  # the card shown twice
