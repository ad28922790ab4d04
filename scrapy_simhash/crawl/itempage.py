"""An item field that holds a whole page, checked as a page rather than as an item's text.

A spider that stores ``response.text``, or the page's whole visible text
(``" ".join(response.css("body ::text").getall())``), in an item gets the page's navigation,
related links and footer fingerprinted with its article: the same article under two templates is
then no near-duplicate. :func:`item_page` recognises such a field and makes it a page again,
which the pipeline signs as the downloader middleware signs pages (main text, evidence).

Both tests are strict, so that an ordinary article field is never taken for a page (it keeps
the fingerprint it always had):

- HTML: a document (``<!DOCTYPE html>``, ``<html>`` or ``<head>`` first, after blanks and
  comments) with block elements in it; a fragment (``<p>...</p>``) stays text.
- Visible text: as the page's source lays it out (text nodes joined keep its line breaks and
  indentation: at least :data:`MIN_LAID_OUT_SHARE` of the lines begin with a blank), at least
  :data:`MIN_LINES` lines, in which one run of prose (lines of
  :data:`SHORT_LINE_UNITS` words or more with a sentence's punctuation; the run whose lines add
  up to most words beyond that many each, other lines counting against it) is at least
  :data:`MIN_MAIN_UNITS` words long and has at least :data:`MIN_CHROME_LINES` lines of no
  prose around it, some before and some after (a menu, labels, lists of links, a footer). Its
  lines become the paragraphs of the page's ``<article>``, the lines around it other blocks of
  the page, so that they are the rest of the page the evidence compares.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, NamedTuple

from scrapy_simhash.crawl.signing import page_signature, rebuilt_response, text_signature
from scrapy_simhash.extract.builtin import text_units
from scrapy_simhash.extract.page_layout import NO_LAYOUT

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

    from scrapy_simhash.detectors import Detector, Signed

_DOCUMENT_START = re.compile(
    r"\A(?:\ufeff)?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head)\b",
    re.IGNORECASE | re.DOTALL,
)
_BLOCK_ELEMENT = re.compile(
    r"<(?:p|div|li|h[1-6]|td|article|section|main|table|ul|ol|br)\b", re.IGNORECASE
)
#: A visible text with fewer lines is taken for an item's own text.
MIN_LINES = 12
#: ... and so is one of whose lines fewer than this share begin with a blank (indented as in
#: the page's source). Over the corpora's 255 ground-truth main texts no text passed all the
#: tests; 181 of their pages' whole visible texts did.
MIN_LAID_OUT_SHARE = 0.5
_LAID_OUT_LINE = re.compile(r"\n[ \t]")
#: A line of fewer words (CJK characters count half) is no prose: a menu entry, a link, a label.
SHORT_LINE_UNITS = 10
#: Lines of no prose around the main run that make a page's chrome (and so many on each side).
MIN_CHROME_LINES = 6
MIN_CHROME_LINES_EACH_SIDE = 2
#: A main run shorter than this is no article (a product's blurb): the text is left as it is.
MIN_MAIN_UNITS = 100
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?:\s|$)|[\u3002\uff01\uff1f]")
#: Only so much of a field is scanned for a page's lines (a page's text, not a book).
MAX_SCANNED_CHARS = 2_000_000


def is_html_document(text: str) -> bool:
    """Whether ``text`` is a whole HTML document (not a fragment) with block elements."""
    return bool(_DOCUMENT_START.match(text[:4096])) and bool(_BLOCK_ELEMENT.search(text))


def main_run(lines: list[str]) -> tuple[int, int] | None:
    """(start, end) of the run of lines that is a page's main text, or None when ``lines``
    do not read as a whole page's visible text (see the module docstring)."""
    if len(lines) < MIN_LINES:
        return None
    units = [text_units(line) for line in lines]
    prose = [count >= SHORT_LINE_UNITS and bool(_SENTENCE_END.search(line))
             for line, count in zip(lines, units, strict=True)]
    best, best_start, best_end = 0.0, 0, 0
    total, start = 0.0, 0
    for position, count in enumerate(units):  # the run of highest sum of line scores
        if total <= 0:
            total, start = 0.0, position
        total += count - SHORT_LINE_UNITS if prose[position] else -max(count, SHORT_LINE_UNITS)
        if total > best:
            best, best_start, best_end = total, start, position + 1
    if best <= 0 or sum(units[best_start:best_end]) < MIN_MAIN_UNITS:
        return None
    before = prose[:best_start].count(False)
    after = prose[best_end:].count(False)
    if min(before, after) < MIN_CHROME_LINES_EACH_SIDE or before + after < MIN_CHROME_LINES:
        return None
    return best_start, best_end


def visible_text_page(text: str) -> str | None:
    """The HTML of a page whose visible text ``text`` is, or None when it is no such text."""
    if len(text) > MAX_SCANNED_CHARS:
        return None
    if len(_LAID_OUT_LINE.findall(text)) < MIN_LAID_OUT_SHARE * (text.count("\n") + 1):
        return None
    lines = [line for line in (part.strip() for part in text.splitlines()) if line]
    found = main_run(lines)
    if found is None:
        return None
    start, end = found

    def blocks(part: list[str]) -> str:
        return "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in part)

    # (its layout is this function's, the same for every item: none of the page's own)
    return (
        f"<html><body {NO_LAYOUT}><div>{blocks(lines[:start])}</div>"
        f"<main><article>{blocks(lines[start:end])}</article></main>"
        f"<div>{blocks(lines[end:])}</div></body></html>"
    )


def item_page(text: str, url: str, max_size: int) -> HtmlResponse | None:
    """The page an item field holds (HTML, or its visible text), as a response the crawl's
    page signature reads; None for any other text, and for a page over ``max_size`` bytes."""
    if is_html_document(text):
        markup = text
    else:
        markup = visible_text_page(text)
        if markup is None:
            return None
    body = markup.encode("utf-8", "surrogatepass")
    if len(body) > max_size:
        return None
    return rebuilt_response(url, body, "text/html; charset=utf-8", "utf-8")


class ItemFields(NamedTuple):
    """What an item's check reads: its key, the parts of its text fields (joined by newlines,
    its text) and the fields that may hold a whole page, as (name, value), in order."""

    key: str
    parts: list[str]
    pages: list[tuple[str, str]]

    @property
    def largest_page(self) -> int:
        """Characters of the longest field that may hold a page (0: none)."""
        return max((len(value) for _, value in self.pages), default=0)


def item_signature(
    detector: Detector, fields: ItemFields, *, max_size: int
) -> tuple[Signed, tuple[str, str, str | None] | None]:
    """(signature, note) of an item: of the page the first of ``fields.pages`` that holds one
    holds (:func:`item_page`), signed as the crawl signs a page, with the note (field, "HTML" or
    "visible text", the page signature's note); else of its text (note None). Run where the
    signature is computed (a worker, or the crawl's thread), so that the crawl's thread neither
    scans nor joins a page's worth of text."""
    for name, value in fields.pages:
        page = item_page(value, fields.key, max_size)
        if page is not None:
            signature, page_note = page_signature(detector, page, own_copy=True)
            kind = "HTML" if is_html_document(value) else "visible text"
            return signature, (name, kind, page_note)
    return text_signature(detector, "\n".join(fields.parts)), None
