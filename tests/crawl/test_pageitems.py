"""The marks that let an item stand for the page it came from."""

from __future__ import annotations

from scrapy_simhash.crawl import pageitems
from scrapy_simhash.crawl.pageitems import PageItems, page_items_of


def test_an_item_is_known_by_identity_and_taken_once():
    marks = PageItems()
    item, equal = {"title": "Jacket"}, {"title": "Jacket"}
    marks.mark(item)
    assert not marks.take(equal)  # an equal item is another item
    assert marks.take(item)
    assert not marks.take(item)


def test_marks_never_taken_make_room_oldest_first(monkeypatch):
    monkeypatch.setattr(pageitems, "MAX_MARKED", 3)
    marks = PageItems()
    items = [{"n": n} for n in range(4)]
    for item in items:
        marks.mark(item)
    assert not marks.take(items[0])  # (dropped by an earlier pipeline, say: never taken)
    assert all(marks.take(item) for item in items[1:])


def test_one_crawl_one_set_of_marks():
    crawler, other = object.__new__(type("C", (), {})), object.__new__(type("D", (), {}))
    assert page_items_of(crawler) is page_items_of(crawler)
    assert page_items_of(crawler) is not page_items_of(other)
