"""What a worker computes: the same functions run inline, so both give the same signature."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any

from lxml import etree, html

from scrapy_simhash.extract.decoding import is_wide, normalize_encoding, wide_byte_order
from scrapy_simhash.extract.parsing import invalid_utf8

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

    from scrapy_simhash.detectors import Detector, Signed

#: The note a page signature carries when Scrapy could not build its tree.
TREE_UNAVAILABLE = "tree_unavailable"


def page_signature(
    detector: Detector, response: HtmlResponse, *, own_copy: bool = False
) -> tuple[Signed, str | None]:
    """(signature with its evidence, note) of a Scrapy HTML response.

    The signature comes from ``response.selector``'s tree, the one the spider's callback reuses;
    when Scrapy cannot decode the body (w3lib raises on labels such as "zlib") or parse it, it
    comes from the raw HTML through the library's own decoding, with the note
    :data:`TREE_UNAVAILABLE`. ``own_copy``: no spider will read this response (a worker's
    rebuilt one), so the tree may come from :func:`tree_from_body` instead. A page Scrapy reads
    as UTF-16 or UTF-32 only because its own ``<meta>`` says so (:func:`meta_misleads_scrapy`)
    takes the raw HTML's way too, with the same note, and so does a page declared UTF-16 or
    UTF-32 without a byte order or a byte-order mark (Scrapy reads it big-endian whatever its
    bytes say; the library reads the order from the bytes). An extractor that reads HTML rather than
    trees (``SIMHASH_EXTRACTOR`` naming trafilatura or your own function) is given the body's
    bytes, the encoding declared for them (given when the response was made, or in the HTTP
    header) and the URL, as ``fingerprint_html`` and the command line give them.
    """
    if not detector.fingerprinter.reads_trees:
        encoding = declared_encoding(response)
        return detector.sign_html(response.body, encoding, response.url), None
    if meta_misleads_scrapy(response):
        return detector.sign_html(response.body, None, response.url), TREE_UNAVAILABLE
    wide = wide_without_order(response)
    if wide is not None:
        return detector.sign_html(response.body, wide, response.url), TREE_UNAVAILABLE
    root = tree_from_body(response) if own_copy else None
    if root is None:
        try:
            root = response.selector.root
        except Exception:
            root = None
    if root is not None:
        return detector.sign_tree(root, response.url), None
    try:
        html: str | bytes = response.text
    except Exception:
        html = response.body
    return detector.sign_html(html, None, response.url), TREE_UNAVAILABLE


_BYTE_ORDER_MARKS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def declared_encoding(response: HtmlResponse) -> str | None:
    """The encoding given when ``response`` was made, else its HTTP header's charset, else
    None (what the body itself says is the extractor's to read)."""
    from w3lib.encoding import http_content_type_encoding

    given = getattr(response, "_encoding", None)
    if given:
        return given
    content_type = response.headers.get(b"Content-Type")
    if content_type:
        return http_content_type_encoding(content_type.decode("latin-1"))
    return None


def meta_misleads_scrapy(response: HtmlResponse) -> bool:
    """Whether Scrapy decodes the page as UTF-16 or UTF-32 only because its ``<meta>`` says so.

    A label Scrapy found by reading the bytes as ASCII cannot be right: the bytes are not UTF-16.
    Browsers read such a page as UTF-8 (the WHATWG prescan's rule), and so does the library's own
    decoding; Scrapy's text is CJK-looking noise. A charset in the Content-Type header, a
    byte-order mark, or an encoding given when the response was made is believed, as Scrapy and
    browsers do (a middleware's ``response.replace()`` gives the one Scrapy resolved: believed).
    """
    from w3lib.encoding import html_body_declared_encoding, read_bom

    if declared_encoding(response):
        return False  # (most pages: the body is not scanned)
    body = response.body
    if read_bom(body)[0] is not None:  # Scrapy's own reading of byte-order marks
        return False
    label = html_body_declared_encoding(body)  # as Scrapy reads it
    return label is not None and is_wide(normalize_encoding(label))
def wide_without_order(response: HtmlResponse) -> str | None:
    """The codec, with its byte order read from the bytes, of a page whose HTTP header or given
    encoding says plain "UTF-16" or "UTF-32" (no byte order) and whose body has no byte-order
    mark; None for every other page."""
    from w3lib.encoding import read_bom

    label = declared_encoding(response)
    if not label:
        return None
    codec = normalize_encoding(label)
    if codec is None or not is_wide(codec) or label.strip().lower().endswith(("le", "be")):
        return None
    if read_bom(response.body)[0] is not None:
        return None
    return wide_byte_order(response.body, codec)


_INVALID_CHAR = etree.ErrorTypes.ERR_INVALID_CHAR


def tree_from_body(response: HtmlResponse) -> Any | None:
    """The tree ``response.selector`` would build, parsed straight from the body, or None.

    Scrapy decodes the body to text and parsel encodes ``text.strip()`` back to UTF-8 for lxml:
    ~0.5 ms a page for a tree only the signature reads. For a body in UTF-8 (as Scrapy resolves
    ``response.encoding``) with no byte-order mark and no NUL byte, whose first and last
    non-blank bytes are printable ASCII (so ``str.strip`` stops where ``bytes.strip`` does),
    and which libxml2 reads without an encoding error, those are the very same bytes, parsed
    here with parsel's parser settings (less its table of ids). Anything else: None, and the
    caller takes the selector's way.
    """
    body = response.body
    if body.startswith(_BYTE_ORDER_MARKS) or b"\x00" in body:
        return None
    try:
        if codecs.lookup(response.encoding).name != "utf-8":
            return None
    except Exception:  # w3lib raises on some labels; LookupError on unknown ones
        return None
    data = body.strip()
    if not data or not (0x21 <= data[0] <= 0x7E and 0x21 <= data[-1] <= 0x7E):
        return None
    # collect_ids=False: no hash table of id attributes (only XPath's id() reads it, never the
    # extractor); the tree is the same, parsed ~7% faster
    parser = html.HTMLParser(recover=True, encoding="utf-8", huge_tree=True, collect_ids=False)
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.LxmlError, ValueError):
        return None
    if root is None or invalid_utf8(parser, data):
        return None
    if any(entry.type == _INVALID_CHAR for entry in parser.error_log):  # parsel's other signal
        return None
    return root


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


def text_signature(detector: Detector, text: str) -> Signed:
    """The signature of an item's text, with its evidence."""
    return detector.sign_text(text)
