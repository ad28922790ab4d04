"""Bytes or text -> lxml.html root, bounded in size, never raising."""

from __future__ import annotations

import re
import threading
from html import unescape

from lxml import etree

from .decoding import (
    NOT_UTF8,
    UTF8_IF_VALID,
    _bom_encoding,
    decode_html,
    is_iso2022,
    is_wide,
    normalize_encoding,
    sniff_declared_encoding,
    utf8_expectation,
)
from .segment import BLOCK_TAGS

DEFAULT_MAX_BYTES = 4 * 1024 * 1024

_local = threading.local()


def _parser() -> etree.HTMLParser:
    """A plain lxml HTML parser (one per thread): plain elements are built in C, while
    ``lxml.html``'s element classes cost a Python class lookup per element visited.

    ``huge_tree`` (libxml2's XML_PARSE_HUGE), as parsel and so Scrapy parse: libxml2 then nests
    up to 2048 levels instead of 256 (real pages with unclosed wrappers go deeper than 256),
    and its 10 MB cap on one text node or name goes. Its other use, relaxing the entity
    expansion guards, is moot here: HTML has no entity declarations and no DTD is fetched. The
    input is cut to ``max_bytes`` first and the tree grows linearly with it, so memory stays
    bounded; deeper documents still stop parsing (see :func:`_flat_document`), and the walks
    over the tree (segment.py, _speedups.pyx) are loops, not recursion.
    """
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(
            encoding="utf-8",
            remove_comments=True,
            remove_pis=True,
            default_doctype=False,
            collect_ids=False,  # no id -> element table: nothing here looks elements up by id
            no_network=True,
            huge_tree=True,
        )
        _local.parser = parser
    return parser


def to_text(
    source: str | bytes, encoding: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """The page as text: bytes are cut to ``max_bytes`` and decoded (see decode_html)."""
    text = _decoded(source, encoding, max_bytes)
    if "\x00" in text:
        text = text.replace("\x00", "")
    return text


def _decoded(source: str | bytes, encoding: str | None, max_bytes: int) -> str:
    """:func:`to_text` with any NUL characters still in."""
    if isinstance(source, str):
        return source[:max_bytes]
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_html(bytes(source[:max_bytes]), encoding)
    return ""


_CONTROL_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
# In a 7-bit ISO-2022 codec ESC, SO and SI switch character sets: text, not control bytes.
_ISO2022_CONTROL_BYTES = bytes(b for b in _CONTROL_BYTES if b not in b"\x1b\x0e\x0f")
_BINARY_SAMPLE = 4096
# [^<>], not [^>]: a "<" with no ">" after it then costs one step, not a scan to the end.
_TAG_RE = re.compile(r"<[^<>]*>")


def looks_binary(body: bytes, encoding: str | None = None) -> bool:
    """True for bodies that are not text (images, archives ...): many control bytes up front.

    UTF-16 and UTF-32 text, mostly NUL bytes when it is mostly ASCII, is text when it starts
    with a byte-order mark or ``encoding`` (the HTTP header's charset) names UTF-16 or UTF-32.
    ISO-2022 text (ISO-2022-JP: an ESC sequence at each change of script) is text when
    ``encoding`` or the page's own ``<meta>`` names it. A body that is text without
    ``encoding`` is text with any ``encoding``.
    """
    if _bom_encoding(body) is not None:  # a byte-order mark decode_html honours
        return False
    codec = normalize_encoding(encoding) if encoding else None
    if is_wide(codec):
        return False
    sample = body[:_BINARY_SAMPLE]
    if not _many_controls(sample, _CONTROL_BYTES):
        return False  # (nearly every page)
    if _many_controls(sample, _ISO2022_CONTROL_BYTES):
        return True  # binary even with ESC, SO and SI taken for text
    return not (is_iso2022(codec) or is_iso2022(sniff_declared_encoding(body)))


def _many_controls(sample: bytes, controls: bytes) -> bool:
    # bytes.translate deletes in one C loop, ~4x faster than a regex search for a control byte
    return (len(sample) - len(sample.translate(None, controls))) * 20 > len(sample)


def _depth_exceeded(parser: etree.HTMLParser) -> bool:
    return any("depth" in entry.message.lower() for entry in parser.error_log)


# Flattening a page too deep for lxml: what is dropped, where paragraphs end.
_RAW_TEXT_TAGS = ("script", "style", "title", "textarea", "xmp")  # read to the end if unclosed
_CHROME_TAGS = ("noscript", "template", "nav", "aside", "footer", "select", "button", "svg")
# (The lookaheads let the regex engine pass over a "<" that starts no tag in one step.)
_DROPPED_START = re.compile(
    rf"<(?=[!a-zA-Z])(?:!--|({'|'.join(_RAW_TEXT_TAGS + _CHROME_TAGS)})\b)", re.IGNORECASE
)
_DROPPED_END = {
    name: re.compile(rf"</{name}\b[^<>]*>", re.IGNORECASE) for name in _RAW_TEXT_TAGS + _CHROME_TAGS
}
_COMMENT_END = re.compile("-->")
_BLOCK_BOUNDARY = re.compile(
    rf"<(?=[/a-zA-Z])/?(?:{'|'.join(sorted(BLOCK_TAGS | {'br'}))})\b[^<>]*>", re.IGNORECASE
)
# Characters lxml refuses in text (C0 controls but tab, newline and carriage return ...).
_NOT_XML = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 32), 0xFFFE, 0xFFFF], " ")


def _dropped_removed(text: str) -> tuple[str, str]:
    """``text`` without comments, script/style/title contents and chrome subtrees (as segment
    skips them), and the first ``<title>``'s text. Linear: an unclosed raw-text element or
    comment runs to the end (as in a browser); an unclosed chrome tag drops nothing."""
    kept: list[str] = []
    title = ""
    unclosed: set[str] = set()  # chrome tags with no end tag further on
    position = 0
    while (start := _DROPPED_START.search(text, position)) is not None:
        kept.append(text[position : start.start()])
        name = (start.group(1) or "").lower()
        end = None
        if name not in unclosed:
            end = (_DROPPED_END[name] if name else _COMMENT_END).search(text, start.end())
            if end is None and (not name or name in _RAW_TEXT_TAGS):
                return "".join(kept), title
        if end is None:
            unclosed.add(name)
            kept.append(start.group())  # the tag stays, stripped with the others
            position = start.end()
            continue
        if name == "title" and not title:
            opened = text.find(">", start.end(), end.start())
            title = text[opened + 1 : end.start()] if opened >= 0 else ""
        position = end.end()
    kept.append(text[position:])
    return "".join(kept), title


def _payload(body: bytes, encoding: str | None) -> tuple[bytes, bool]:
    """UTF-8 bytes for libxml2 and whether their validity is still to be confirmed.

    Bytes that already are UTF-8 go as they are (no decode and re-encode trip); when no label
    speaks against UTF-8 their validity is left to libxml2, which reports invalid bytes while
    it parses (see :func:`invalid_utf8`), instead of a full decode here.
    """
    if b"\x00" not in body:
        expectation = utf8_expectation(body, encoding)
        if expectation != NOT_UTF8:
            return body, expectation == UTF8_IF_VALID
    return _encoded(body, encoding), False


def _encoded(source: str | bytes, encoding: str | None, max_bytes: int | None = None) -> bytes:
    """The page decoded (see to_text) and encoded back to UTF-8 for libxml2."""
    if max_bytes is None:
        max_bytes = len(source)
    data = _decoded(source, encoding, max_bytes).encode("utf-8", "replace")
    # NULs dropped from the bytes, not the text: a byte search is memchr's, a search of wide
    # text is not (0.08 ms a page). UTF-8 has no 0 byte but a NUL's.
    return data.replace(b"\x00", b"") if b"\x00" in data else data


# libxml2 stops reporting errors after this many in one document (XML_MAX_ERRORS).
_LIBXML2_ERROR_CAP = 100


def invalid_utf8(parser: etree.HTMLParser, data: bytes) -> bool:
    """True when the parse just done read ``data`` as UTF-8 and found it was not."""
    log = parser.error_log
    if any(entry.type == _INVALID_ENCODING for entry in log):
        return True
    if len(log) < _LIBXML2_ERROR_CAP:
        return False
    try:  # the log is full: an encoding error may have gone unreported
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


_INVALID_ENCODING = etree.ErrorTypes.ERR_INVALID_ENCODING


def parse_html(
    source: str | bytes, encoding: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
):
    """An lxml root element for the page (plain ``etree`` elements), or None."""
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            body = bytes(source[:max_bytes])
            if looks_binary(body, encoding):
                return None
            data, unverified = _payload(body, encoding)
        else:
            data, unverified = _encoded(source, encoding, max_bytes), False
        if not data or data.isspace():
            return None
        parser = _parser()
        root = etree.fromstring(data, parser)
        if unverified and invalid_utf8(parser, data):  # a page in a legacy charset, unlabelled
            data = _encoded(body, encoding)
            root = etree.fromstring(data, parser)
        if _depth_exceeded(parser):
            return _flat_document(data.decode("utf-8", "replace"))
        return root
    except (etree.LxmlError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def _flat_document(text: str):
    """The page as a flat document, for nesting too deep for lxml (libxml2 stops parsing past
    2048 levels): its ``<title>``, and one paragraph per block of tag-free text, without
    comments, scripts, styles and chrome subtrees (see :func:`_dropped_removed`)."""
    text, title = _dropped_removed(text.translate(_NOT_XML))
    root = etree.Element("html")
    title = " ".join(unescape(title).split())  # (a title holds text, not tags)
    if title:
        etree.SubElement(etree.SubElement(root, "head"), "title").text = title
    body = etree.SubElement(root, "body")
    for block in _BLOCK_BOUNDARY.split(text):
        paragraph = " ".join(_TAG_RE.sub("", block).split())  # inline tags join, as in a tree
        if paragraph:
            etree.SubElement(body, "p").text = unescape(paragraph)
    return root
