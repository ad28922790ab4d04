"""HTML -> main text (headline + article body), for fingerprinting pages without their template.

``extract_main_text`` decodes (:mod:`.decoding`), parses with lxml (:mod:`.parsing`), cuts the
visible text into blocks in one read-only walk (:mod:`.segment`) and picks the main content by
text and link density with class/id hints as weights (:mod:`.builtin`). Other extractors
(whole page, trafilatura, readability-lxml, resiliparse, a dotted path) plug in through
:func:`get_extractor` (:mod:`.extractors`).
"""

from __future__ import annotations

from .builtin import (
    DEFAULT_MAX_CHARS,
    Article,
    Extraction,
    article_from_tree,
    extraction_from_tree,
    visible_text_from_tree,
)
from .decoding import decode_html
from .extractors import EXTRACTOR_NAMES, Extractor, get_extractor
from .parsing import DEFAULT_MAX_BYTES, parse_html
from .structured import structured_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_CHARS",
    "EXTRACTOR_NAMES",
    "Article",
    "Extraction",
    "Extractor",
    "article_from_tree",
    "decode_html",
    "extract_main_text",
    "extract_main_text_from_tree",
    "extraction_from_tree",
    "get_extractor",
    "parse_html",
    "structured_text",
    "visible_text_from_tree",
]


def extract_main_text_from_tree(
    root,
    *,
    include_title: bool = True,
    max_chars: int = DEFAULT_MAX_CHARS,
    first_entry_only: bool = True,
) -> str:
    """Headline and body text of an already parsed lxml.html page; the tree is not modified.

    Paragraphs are separated by ``"\\n"``. Returns ``""`` only for a page that shows no text;
    never raises. On a blog's front page (dated posts of one author) the main text is the
    newest post; ``first_entry_only=False`` keeps them all (the fingerprints' choice). A
    thread's posts (signed by several people) are kept whole either way.
    """
    if root is None:
        return ""
    try:
        return article_from_tree(root, first_entry_only).text(include_title, max_chars)
    except Exception:  # defensive: one odd page must never stop a crawl
        return ""


def extract_main_text(
    html: str | bytes,
    encoding: str | None = None,
    url: str | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_chars: int = DEFAULT_MAX_CHARS,
    include_title: bool = True,
    first_entry_only: bool = True,
) -> str:
    """Headline and body text of an HTML page (bytes are decoded, see :func:`decode_html`).

    ``encoding`` is the HTTP header's charset, if any; ``url`` is accepted for extractors that
    use it (the built-in one does not). At most ``max_bytes`` are parsed and at most
    ``max_chars`` returned. Deterministic; never raises; ``""`` only for a page without text.
    On a blog's front page the main text is the newest post, unless ``first_entry_only`` is
    False (see :func:`extract_main_text_from_tree`).
    """
    try:
        root = parse_html(html, encoding, max_bytes)
    except Exception:
        return ""
    return extract_main_text_from_tree(
        root, include_title=include_title, max_chars=max_chars, first_entry_only=first_entry_only
    )
