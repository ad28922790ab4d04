"""A page's signature as the crawl takes it: the same functions run inline and in a worker,
so both give the same signature.

Also :func:`is_near_duplicate`, which judges two documents exactly as a crawl with default
settings would (this is the crawl's view of a page, hence its place in the crawl wing).
"""

from __future__ import annotations

import codecs
import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from scrapy_simhash.extract.decoding import (
    is_utf8_page,
    is_wide,
    normalize_encoding,
    wide_byte_order,
)
from scrapy_simhash.extract.parsing import invalid_utf8, looks_binary

if TYPE_CHECKING:
    from scrapy.http import HtmlResponse

    from scrapy_simhash.detectors import Detector, Signed

#: The note a page signature carries when Scrapy could not build its tree.
TREE_UNAVAILABLE = "tree_unavailable"
#: ... and when Scrapy decodes the page by a legacy charset its body is not in (UTF-8 behind a
#: "gb2312" label: :func:`utf8_under_legacy_label`).
READ_AS_UTF8 = "read_as_utf8"


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
    bytes say; the library reads the order from the bytes). A page Scrapy decodes by a legacy
    charset whose body is UTF-8 (:func:`utf8_under_legacy_label`) is read as UTF-8, with the
    note :data:`READ_AS_UTF8`. An extractor that reads HTML rather than
    trees (``SIMHASH_EXTRACTOR`` naming trafilatura or your own function) is given the body's
    bytes, the encoding declared for them (given when the response was made, or in the HTTP
    header) and the URL, as ``fingerprint_html`` and the command line give them.
    """
    if not detector.fingerprinter.reads_trees:
        encoding = declared_encoding(response)
        return detector.sign_html(response.body, encoding, response.url), None
    if meta_misleads_scrapy(response):
        return detector.sign_html(response.body, None, response.url), TREE_UNAVAILABLE
    if utf8_under_legacy_label(response):
        return detector.sign_html(response.body, "utf-8", response.url), READ_AS_UTF8
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


_CHARSET_PARAMETER = re.compile(r"""(?:^|;)\s*charset\s*=\s*["']?([^"';,\s]+)""", re.IGNORECASE)


def declared_label(response: HtmlResponse) -> str | None:
    """The charset label given when ``response`` was made, else its HTTP header's label as
    written (not resolved: w3lib 2.6 resolves labels as browsers do and drops UTF-32's)."""
    given = getattr(response, "_encoding", None)
    if given:
        return given
    content_type = response.headers.get(b"Content-Type")
    if not content_type:
        return None
    match = _CHARSET_PARAMETER.search(content_type.decode("latin-1"))
    return match.group(1) if match else None


def meta_misleads_scrapy(response: HtmlResponse) -> bool:
    """Whether Scrapy decodes the page as UTF-16 or UTF-32 only because its ``<meta>`` says so.

    A label Scrapy found by reading the bytes as ASCII cannot be right: the bytes are not UTF-16.
    Browsers read such a page as UTF-8 (the WHATWG prescan's rule), and so does the library's own
    decoding; Scrapy's text is CJK-looking noise (w3lib before 2.6; 2.6 reads it as browsers
    do, and this is False). A charset in the Content-Type header, a byte-order mark, or an
    encoding given when the response was made is believed, as Scrapy and browsers do (a
    middleware's ``response.replace()`` gives the one Scrapy resolved: believed).
    """
    from w3lib.encoding import html_body_declared_encoding, read_bom

    if declared_encoding(response):  # (what Scrapy believes: most pages, the body unscanned)
        return False
    body = response.body
    if read_bom(body)[0] is not None:  # Scrapy's own reading of byte-order marks
        return False
    label = html_body_declared_encoding(body)  # as Scrapy reads it
    return label is not None and is_wide(normalize_encoding(label))


def utf8_under_legacy_label(response: HtmlResponse) -> bool:
    """Whether Scrapy decodes the page by a legacy charset (GBK, Shift_JIS, windows-1252 ...,
    from its header or its ``<meta>``) while its body is valid UTF-8 with non-ASCII text.

    Valid multi-byte UTF-8 is almost never an accident, and lying legacy labels are common (a
    site moved to UTF-8, its template's ``<meta>`` not): the library's own decoding reads such
    a body as UTF-8 (:mod:`~scrapy_simhash.extract.decoding`), where Scrapy's text is mojibake,
    so a copy under a true label would never match it. Pages in UTF-8 or in their legacy
    charset pay one attribute read, or one failed UTF-8 decode (it stops at the first byte that
    is not UTF-8).
    """
    try:
        # (a text encoding's WHATWG name, else None: "zlib" is a codec, no charset)
        codec = normalize_encoding(response.encoding)
    except Exception:  # w3lib raises on some labels
        return False
    if codec is None or codec == "utf-8" or is_wide(codec) or response.body.isascii():
        return False
    return is_utf8_page(response.body, codec)  # (the library's own rule: a byte-order mark too)


def wide_without_order(response: HtmlResponse) -> str | None:
    """The codec of a page whose HTTP header or given encoding names UTF-16 or UTF-32 and whose
    body has no byte-order mark, when Scrapy may read it otherwise; None for every other page.

    A plain "UTF-16" or "UTF-32" (no byte order) is read in the order of the body's bytes:
    Scrapy reads it in one order whatever the bytes say (big-endian before w3lib 2.6,
    little-endian or cp1252 since). A label with its order ("utf-32le") is taken as written
    where Scrapy resolves it to another codec (w3lib 2.6 knows no UTF-32).
    """
    from w3lib.encoding import read_bom

    label = declared_label(response)
    if not label:
        return None
    codec = normalize_encoding(label)
    if codec is None or not is_wide(codec):
        return None
    if read_bom(response.body)[0] is not None:
        return None
    if not label.strip().lower().endswith(("le", "be")):
        return wide_byte_order(response.body, codec)
    try:
        if codecs.lookup(response.encoding).name == codecs.lookup(codec).name:
            return None
    except Exception:  # w3lib raises on some labels; LookupError on unknown ones
        pass
    return codec


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
    # extractor); the tree is the same, parsed ~7% faster. Plain elements: lxml.html's classes
    # (parsel's) are the same tree behind a Python class lookup per element visited.
    parser = etree.HTMLParser(recover=True, encoding="utf-8", huge_tree=True, collect_ids=False)
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


def body_skip_reason(response: HtmlResponse, max_body_size: int) -> str | None:
    """Why an HTML response's body is never parsed: ``"too_large"`` (over ``max_body_size``
    bytes), ``"binary"`` (an image or archive labelled as HTML), or None."""
    body = response.body
    if len(body) > max_body_size:
        return "too_large"
    # (Scrapy works ``response.encoding`` out anew at each read: it is read only for the rare
    # body that looks binary, UTF-16 say.)
    if looks_binary(body) and looks_binary(body, response.encoding):
        return "binary"
    return None


def is_near_duplicate(html_a: str | bytes, html_b: str | bytes, *, url_a: str | None = None,
                      url_b: str | None = None, detector: Detector | None = None) -> bool:
    """Whether a crawl with default settings treats the two documents as near duplicates.

    Every stage is included: decoding, main-text extraction, tokenisation, signature, comparison.
    Each document becomes a Scrapy ``HtmlResponse`` whose signature is taken as the crawl takes
    it (:func:`~scrapy_simhash.crawl.signing.page_signature`). ``bytes`` (or a ``bytearray`` or
    ``memoryview``) are decoded as Scrapy decodes a response whose Content-Type names no
    charset (byte-order mark, then ``<meta charset>``, then detection); a ``str`` is encoded as
    UTF-8 and read back as UTF-8. A document the crawl never parses (larger than
    ``SIMHASH_MAX_BODY_SIZE``'s default, or binary) is a near duplicate of nothing, as a page
    with too little text. ``url_a`` / ``url_b`` default to ``http://localhost/a`` /
    ``http://localhost/b``.
    """
    from scrapy_simhash.detectors import Signed, default_detector
    from scrapy_simhash.evidence import other_versions, same_site, urls_part

    detector = detector or default_detector()
    sig_a = _crawl_signature(detector, html_a, url_a or "http://localhost/a", "html_a")
    sig_b = _crawl_signature(detector, html_b, url_b or "http://localhost/b", "html_b")
    if isinstance(sig_a, Signed) and isinstance(sig_b, Signed):
        if urls_part(url_a, url_b, sig_a.evidence, sig_b.evidence):
            return False  # two versions of a page, or weak pages in unrelated parts of a site
        return detector.is_duplicate(sig_a, sig_b, same_site(url_a, url_b))
    if other_versions(url_a, url_b):
        return False  # two versions of a page that a site's URLs name
    return detector.is_duplicate(sig_a, sig_b)


def _crawl_signature(detector: Detector, html: Any, url: str, name: str) -> Any | None:
    """The signature a crawl gives ``html`` fetched from ``url`` (see :func:`is_near_duplicate`);
    ``name`` is the argument's, for the error a wrong type gets."""
    from scrapy.http import HtmlResponse

    from scrapy_simhash.crawl.settings import DEFAULTS

    if isinstance(html, str):
        body = html.encode("utf-8", "surrogatepass")  # a lone surrogate: invalid bytes, replaced
        response = HtmlResponse(url, body=body, encoding="utf-8")
    elif isinstance(html, (bytes, bytearray, memoryview)):
        response = HtmlResponse(url, body=bytes(html))
    else:
        raise TypeError(f"{name} must be str or bytes; got {type(html).__name__}")
    if body_skip_reason(response, DEFAULTS["SIMHASH_MAX_BODY_SIZE"]) is not None:
        return None
    return page_signature(detector, response)[0]

