"""Item pipeline: drop items whose text is a near-duplicate of an earlier item's.

Enable it with one line (or through :class:`scrapy_simhash.Addon`)::

    ITEM_PIPELINES = {"scrapy_simhash.SimhashPipeline": 300}

The text is the item's ``SIMHASH_ITEM_FIELDS`` joined in order (missing or empty fields are left
out; list values are joined too); the item is keyed by its ``SIMHASH_ITEM_KEY_FIELD`` (``url``) so a
drop names the item it duplicates. Items keep their own index namespace (``items``), apart from
the downloader middleware's ``pages``.

The only item of a page the downloader middleware kept as distinct stands for that page: it is
not checked again (``simhash/items/skipped/page_kept``; see
:mod:`scrapy_simhash.crawl.pageitems`). A shop's variants, kept as pages for their own prices and
SKUs, would otherwise lose their items to a title and description they share.

A field that holds a whole page (the page's HTML, or its visible text with the page's menus and
footer; see :mod:`scrapy_simhash.crawl.itempage`) stands for its item: it is checked as the
downloader middleware checks a page (its main text, and the rest of the page as evidence), so
the same article stored from two templates is a near-duplicate. ``SIMHASH_ITEM_MAIN_TEXT =
False`` turns this off.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem

from scrapy_simhash.crawl.component import DedupComponent
from scrapy_simhash.crawl.itempage import ItemFields, item_signature
from scrapy_simhash.crawl.pageitems import page_items_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from scrapy_simhash.crawl.dedup import Outcome

PRIORITY = 300


logger = logging.getLogger(__name__)

class NearDuplicateItem(DropItem):
    """The item is a near-duplicate of an earlier one; Scrapy counts it under
    ``item_dropped_reasons_count/NearDuplicateItem``."""

    def __init__(self, key: str, duplicate_of: str | None, distance: int | None) -> None:
        if duplicate_of is None:
            message = f"{key} dropped: simhash index error (SIMHASH_ON_INDEX_ERROR='drop')"
        else:
            message = f"Near-duplicate of {duplicate_of} (distance {distance}): {key}"
        super().__init__(message, log_level="DEBUG")  # an expected outcome, not a warning
        self.key = key
        self.duplicate_of = duplicate_of
        self.distance = distance


def item_text(adapter: ItemAdapter, fields: tuple[str, ...]) -> str:
    """The configured fields' text, joined by newlines: strings as they are, bytes as UTF-8,
    the parts of lists and the values of dicts one by one, anything else as ``str()``."""
    return "\n".join(item_text_parts(adapter, fields))


def item_text_parts(adapter: ItemAdapter, fields: tuple[str, ...]) -> list[str]:
    """The parts :func:`item_text` joins, in order. (The crawl hands them to a worker as they
    are: joining a page's worth of text costs the crawl's thread a pass over it.)"""
    parts: list[str] = []
    for name in fields:
        _collect_text(adapter.get(name), parts)
    return parts


def _has_text(parts: list[str]) -> bool:
    """Whether the parts joined by newlines hold more than blanks (``text.strip()``, without
    joining them)."""
    return any(part and not part.isspace() for part in parts)


def _collect_text(value: Any, parts: list[str], depth: int = 0) -> None:
    if value is None or depth > _MAX_FIELD_DEPTH:
        return
    if isinstance(value, str):
        if value:
            parts.append(value)
    elif isinstance(value, (bytes, bytearray)):
        parts.append(bytes(value).decode("utf-8", errors="replace"))
    elif isinstance(value, Mapping):
        for part in value.values():
            _collect_text(part, parts, depth + 1)
    elif isinstance(value, (list, tuple)):
        for part in value:
            _collect_text(part, parts, depth + 1)
    else:
        parts.append(str(value))


_MAX_FIELD_DEPTH = 8  # nested lists and dicts deeper than this are left out
_MIN_PAGE_CHARS = 500  # a shorter field is never taken for a whole page (and costs no scan)


class SimhashPipeline(DedupComponent):
    """Fingerprints each item's text fields and drops near-duplicates with NearDuplicateItem."""

    namespace = "items"

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.fields = self.config.item_fields
        self.key_field = self.config.item_key_field
        self._unkeyed = 0
        self._warned_fields = False
        self._told_pages = False
        self.page_items = page_items_of(crawler)
        self.page_items.pipeline_on = True

    def process_item(self, item: Any, spider: Any = None) -> Any:
        """The item, or (with worker processes) a coroutine that returns it; raises
        :class:`NearDuplicateItem` for a near-duplicate."""
        if self.dedup.start_up_failed:
            raise DropItem(self.dedup.drop_while_stopping())
        if self.page_items.take(item):  # its page was judged already, with more than its text
            self.dedup.skip("page_kept")
            return item
        adapter = ItemAdapter(item)
        try:
            parts = item_text_parts(adapter, self.fields)
            key = self._key(adapter) if _has_text(parts) else None
        except Exception as error:  # a value whose str() raises: an int of 5,000 digits, say
            self.dedup.signature_failed("an item", error)  # kept unchecked, counted, logged once
            return item
        if key is None:  # no text
            self.dedup.skip("no_text")
            if not self._warned_fields and not any(name in adapter for name in self.fields):
                self._warn_fields(adapter)
            return item
        fields = ItemFields(key, parts, self._page_candidates(adapter))
        if self.workers is not None or self.dedup.offloaded:
            return self._check_with_workers(item, fields)
        return self._apply(item, key, self.dedup.check(key, lambda: self._signature(fields)))

    async def _check_with_workers(self, item: Any, fields: ItemFields) -> Any:
        """In a worker when one has room, else inline; decided in the order checks began.
        The worker tells a field that holds a whole page from text (see
        :func:`~scrapy_simhash.crawl.itempage.item_signature`): the crawl's thread only hands
        the item's strings over."""
        workers = self.workers
        offloaded = None
        if workers is not None and workers.available and workers.has_room(fields.largest_page):
            waiter = workers.submit_item(fields.key, fields.parts, fields.pages)
            if waiter is not None:
                offloaded = self._worker_answer(waiter)
        outcome = await self.dedup.check_in_order(fields.key, self._signature, fields, offloaded)
        return self._apply(item, fields.key, outcome)

    async def _worker_answer(self, waiter: Any) -> tuple[Any, float, str | None]:
        """A worker's answer for an item, its note read as :meth:`_signature` reads it."""
        signature, seconds, note = await waiter
        return signature, seconds, self._read_note(note)

    def _signature(self, fields: ItemFields) -> Any:
        """The item's signature, computed here (no worker, or none with room)."""
        signature, note = item_signature(
            self.dedup.detector, fields, max_size=self.config.max_body_size
        )
        self.dedup.count_note(self._read_note(note))
        return signature

    def _page_candidates(self, adapter: ItemAdapter) -> list[tuple[str, str]]:
        """The fields that may hold a whole page (see :mod:`~scrapy_simhash.crawl.itempage`),
        in order, with their names: strings long enough to be one (none when
        ``SIMHASH_ITEM_MAIN_TEXT`` is off)."""
        if not self.config.item_main_text:
            return []
        candidates = []
        for name in self.fields:
            value = adapter.get(name)
            if isinstance(value, str) and len(value) >= _MIN_PAGE_CHARS:
                candidates.append((name, value))
        return candidates

    def _read_note(self, note: Any) -> str | None:
        """The note of :func:`~scrapy_simhash.crawl.itempage.item_signature`: an item checked
        as the page a field holds is counted (``simhash/items/as_page``, and said once); the
        page signature's own note, if any, is returned."""
        if not isinstance(note, tuple):
            return note
        field, kind, page_note = note
        self.crawler.stats.inc_value("simhash/items/as_page")
        if not self._told_pages:
            self._tell_pages(field, kind)
        return page_note

    def _tell_pages(self, field: str, kind: str) -> None:
        """Once a crawl: items are checked by the page a field holds."""
        self._told_pages = True
        logger.info(
            "Simhash: item field %r holds a whole page (%s): such items are checked by the "
            "page's main text, as pages are (simhash/items/as_page); SIMHASH_ITEM_MAIN_TEXT = "
            "False checks the fields' whole text instead",
            field, kind, extra={"crawler": self.crawler},
        )

    def _apply(self, item: Any, key: str, outcome: Outcome) -> Any:
        if outcome.dropped:
            match = outcome.match
            raise NearDuplicateItem(
                key, match.key if match else None, match.distance if match else None
            )
        return item

    def _warn_fields(self, adapter: ItemAdapter) -> None:
        """Once a crawl: the items carry none of the fields the pipeline reads."""
        self._warned_fields = True
        logger.warning(
            "Simhash: an item has none of SIMHASH_ITEM_FIELDS %s (its fields: %s); such items "
            "pass unchecked (simhash/items/skipped/no_text). Set SIMHASH_ITEM_FIELDS to the "
            "fields that hold your items' text.",
            list(self.fields), ", ".join(sorted(map(str, adapter.keys()))) or "none",
            extra={"crawler": self.crawler},
        )

    def _key(self, adapter: ItemAdapter) -> str:
        value = adapter.get(self.key_field) if self.key_field else None
        if isinstance(value, (list, tuple)):  # an ItemLoader's default output: a list
            value = next((part for part in value if part), None)
        if value:
            # A lone surrogate (JSON's escape of half an emoji) is no text an index can store:
            # written out as its escape, so the item keeps a key of its own.
            return str(value).encode("utf-8", "backslashreplace").decode("utf-8")
        self._unkeyed += 1
        return f"item-{self._unkeyed}"
