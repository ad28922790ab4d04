"""The item a checked page yields stands for that page.

The downloader middleware judges a page by its main text, the rest of the page and its figures;
the item pipeline sees only the item's text fields (``SIMHASH_ITEM_FIELDS``: a title and a
description, say). A shop's colour variants, each kept as a page of its own (another price,
another SKU), yield items whose title and description are the same words: judged by those
alone, all but one would be dropped, data the page check had kept. So the item of a page the
downloader middleware kept as distinct, when it is the only item the page yields, is not checked
again by the pipeline (``simhash/items/skipped/page_kept``); the items of a page that yields
several (a listing's products, which other listings repeat) are, as are the items of pages it
did not check.

The spider middleware marks such items once the callback is done (:meth:`PageItems.mark`); the
pipeline takes the mark (:meth:`PageItems.take`). Items are any object (dicts, ``Item``,
dataclasses): they are known by identity, each held until taken, at most :data:`MAX_MARKED` at
once (an item an earlier pipeline dropped is never taken: the oldest marks go first).
"""

from __future__ import annotations

import weakref
from typing import Any

#: Items marked and not yet taken by the pipeline, at most.
MAX_MARKED = 10_000


class PageItems:
    """The marked items of one crawl."""

    def __init__(self) -> None:
        self._marked: dict[int, Any] = {}  # id -> the item (held: its id is not reused meanwhile)
        #: the item pipeline is on (it says so when built): otherwise nothing is marked
        self.pipeline_on = False

    def mark(self, item: Any) -> None:
        if len(self._marked) >= MAX_MARKED:
            del self._marked[next(iter(self._marked))]
        self._marked[id(item)] = item

    def take(self, item: Any) -> bool:
        """Whether ``item`` was marked (the mark is removed)."""
        if self._marked.get(id(item)) is not item:
            return False
        del self._marked[id(item)]
        return True


_OF: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def page_items_of(crawler: object) -> PageItems:
    """The crawl's marks, shared by its spider middleware and its item pipeline."""
    return _OF.setdefault(crawler, PageItems())
