"""What a worker computes: the same functions run inline, so both give the same signature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy_simhash.detectors import Detector


def page_signature(
    detector: Detector, text: str | None, body: bytes, url: str | None, root: Any = None
) -> Any:
    """The signature of a page from parsel's tree of its decoded ``text``.

    ``root`` is the tree when the caller already has it (inline: ``response.selector.root``,
    which the spider's callback reuses); a worker builds the same tree from the same text with
    the same parsel code. Without a tree (Scrapy could not decode the body, or parsel could not
    parse the text) the signature comes from the raw HTML through the library's own decoding.
    """
    if root is None and text is not None:
        root = parsel_root(text)
    if root is not None:
        return detector.signature_tree(root)
    return detector.signature_html(body if text is None else text, None, url)


def response_text(body: bytes, encoding: str | None) -> str | None:
    """``response.text`` of a Scrapy response with this body whose ``response.encoding`` is
    ``encoding`` (the same w3lib call), or None when it cannot be decoded."""
    if encoding is None:
        return None
    from w3lib.encoding import html_to_unicode

    try:
        return html_to_unicode(f"charset={encoding}", body)[1]
    except Exception:
        return None


def parsel_root(text: str) -> Any:
    """The root that ``scrapy.Selector(response)`` builds for an HTML response with this text,
    or None when parsel cannot build one."""
    from parsel import Selector

    try:
        return Selector(text=text, type="html").root
    except Exception:
        return None


def text_signature(detector: Detector, text: str) -> Any:
    """The signature of an item's text."""
    return detector.signature(text)
