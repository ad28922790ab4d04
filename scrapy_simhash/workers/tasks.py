"""What a worker computes: the same functions run inline, so both give the same signature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

    from scrapy_simhash.detectors import Detector

#: The note a page signature carries when Scrapy could not build its tree.
TREE_UNAVAILABLE = "tree_unavailable"


def page_signature(detector: Detector, response: HtmlResponse) -> tuple[Any, str | None]:
    """(signature, note) of a Scrapy HTML response.

    The signature comes from ``response.selector``'s tree, the one the spider's callback reuses;
    when Scrapy cannot decode the body (w3lib raises on labels such as "zlib") or parse it, it
    comes from the raw HTML through the library's own decoding, with the note
    :data:`TREE_UNAVAILABLE`.
    """
    try:
        root = response.selector.root
    except Exception:
        root = None
    if root is not None:
        return detector.signature_tree(root), None
    try:
        html: str | bytes = response.text
    except Exception:
        html = response.body
    return detector.signature_html(html, None, response.url), TREE_UNAVAILABLE


def response_parts(response: HtmlResponse) -> tuple[str, bytes, str | None, str | None]:
    """What a worker needs to rebuild ``response`` for decoding: url, body, Content-Type and
    the encoding given when the response was made (Scrapy decodes from these alone)."""
    content_type = response.headers.get(b"Content-Type")
    return (
        response.url,
        response.body,
        content_type.decode("latin-1") if content_type else None,
        getattr(response, "_encoding", None),
    )


def rebuilt_response(
    url: str, body: bytes, content_type: str | None, encoding: str | None
) -> HtmlResponse:
    """An HtmlResponse that decodes and parses exactly as the crawl's one (same Scrapy code,
    same inputs)."""
    from scrapy.http import HtmlResponse

    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse(url=url, body=body, headers=headers, encoding=encoding)


def text_signature(detector: Detector, text: str) -> Any:
    """The signature of an item's text."""
    return detector.signature(text)
