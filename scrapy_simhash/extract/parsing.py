"""Bytes or text -> lxml.html root, bounded in size, never raising."""

from __future__ import annotations

import re
import threading

from lxml import etree

from .decoding import NOT_UTF8, UTF8_IF_VALID, decode_html, utf8_expectation

DEFAULT_MAX_BYTES = 4 * 1024 * 1024

_local = threading.local()


def _parser() -> etree.HTMLParser:
    """A plain lxml HTML parser (one per thread): plain elements are built in C, while
    ``lxml.html``'s element classes cost a Python class lookup per element visited."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(
            encoding="utf-8",
            remove_comments=True,
            remove_pis=True,
            default_doctype=False,
            collect_ids=False,  # no id -> element table: nothing here looks elements up by id
            no_network=True,
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
    # bytes.translate deletes in one C loop, ~4x faster than a regex search for a control byte
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls * 20 > len(sample)


def _depth_exceeded(parser: etree.HTMLParser) -> bool:
    return any("depth" in entry.message.lower() for entry in parser.error_log)


def strip_tags(text: str) -> str:
    """Markup-free text by brute force, for pages lxml cannot build a tree of."""
    return " ".join(_TAG_RE.sub(" ", text).split())


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
    return to_text(source, encoding, max_bytes).encode("utf-8", "replace")


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
            if looks_binary(body):
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
    """A one-paragraph document of the page's tag-stripped text (nesting too deep for lxml)."""
    root = etree.Element("html")
    paragraph = etree.SubElement(etree.SubElement(root, "body"), "p")
    paragraph.text = strip_tags(text)
    return root
