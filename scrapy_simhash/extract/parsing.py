"""Bytes or text -> lxml.html root, bounded in size, never raising."""

from __future__ import annotations

import re
import threading

from lxml import etree

from .decoding import decode_html, is_utf8_page

DEFAULT_MAX_BYTES = 4 * 1024 * 1024

_local = threading.local()


def _parser() -> etree.HTMLParser:
    """A plain lxml HTML parser (one per thread): plain elements are built in C, while
    ``lxml.html``'s element classes cost a Python class lookup per element visited."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(
            encoding="utf-8", remove_comments=True, remove_pis=True, default_doctype=False
        )
        _local.parser = parser
    return parser


def to_text(
    source: str | bytes, encoding: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
) -> str:
    """The page as text: bytes are cut to ``max_bytes`` and decoded (see decode_html)."""
    if isinstance(source, str):
        text = source[:max_bytes]
    elif isinstance(source, (bytes, bytearray, memoryview)):
        text = decode_html(bytes(source[:max_bytes]), encoding)
    else:
        return ""
    if "\x00" in text:
        text = text.replace("\x00", "")
    return text


_CONTROL_BYTES = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_BINARY_SAMPLE = 4096
_TAG_RE = re.compile(r"<[^>]*>")


def looks_binary(body: bytes) -> bool:
    """True for bodies that are not text (images, archives ...): many control bytes up front."""
    if body[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a byte-order mark
        return False
    sample = body[:_BINARY_SAMPLE]
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls * 20 > len(sample)


def _depth_exceeded(parser: etree.HTMLParser) -> bool:
    return any("depth" in entry.message.lower() for entry in parser.error_log)


def strip_tags(text: str) -> str:
    """Markup-free text by brute force, for pages lxml cannot build a tree of."""
    return " ".join(_TAG_RE.sub(" ", text).split())


def _utf8_payload(source: str | bytes, encoding: str | None, max_bytes: int) -> bytes:
    """UTF-8 bytes for libxml2. Bytes that already are clean UTF-8 skip a decode/encode trip."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        body = bytes(source[:max_bytes])
        if b"\x00" not in body and is_utf8_page(body, encoding):
            return body
    return to_text(source, encoding, max_bytes).encode("utf-8", "replace")


def parse_html(
    source: str | bytes, encoding: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES
):
    """An lxml root element for the page (plain ``etree`` elements), or None."""
    try:
        if isinstance(source, (bytes, bytearray, memoryview)) and looks_binary(bytes(source)):
            return None
        data = _utf8_payload(source, encoding, max_bytes)
        if not data or data.isspace():
            return None
        parser = _parser()
        root = etree.fromstring(data, parser)
        if _depth_exceeded(parser):
            return _flat_document(data.decode("utf-8", "replace"))
        return root
    except (etree.LxmlError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def _flat_document(text: str):
    """A one-paragraph document of the page's tag-stripped text (nesting too deep for lxml)."""
    root = etree.Element("html")
    paragraph = etree.SubElement(etree.SubElement(root, "body"), "p")
    paragraph.text = strip_tags(text)
    return root
