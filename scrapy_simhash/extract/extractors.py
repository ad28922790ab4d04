"""Pluggable extractors: the built-in one, whole-page text, three peers, or a dotted path.

Every extractor is a callable ``(html, encoding, url) -> str``. The peer adapters are thin and
import their package only when chosen (the package's ``extractors`` extra).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .builtin import visible_text_from_tree
from .parsing import parse_html, to_text

Extractor = Callable[[str | bytes, str | None, str | None], str]

EXTRAS_HINT = (
    "pip install trafilatura readability-lxml resiliparse (the package's 'extractors' extra)"
)


def builtin_extractor(
    html: str | bytes, encoding: str | None = None, url: str | None = None
) -> str:
    """The built-in main-text extractor (headline + body), as fingerprints use it: a list of
    dated posts counts as the whole list, not as its first post (a blog's front page must not
    make its newest post's own page a near-duplicate)."""
    from . import extract_main_text

    return extract_main_text(html, encoding, url, first_entry_only=False)


def wholepage_extractor(
    html: str | bytes, encoding: str | None = None, url: str | None = None
) -> str:
    """All visible text of the page: script, style, hidden elements and the like left out."""
    root = parse_html(html, encoding)
    if root is None:
        return ""
    try:
        return visible_text_from_tree(root)
    except Exception:
        return ""


def _require(module: str, package: str):
    try:
        return importlib.import_module(module)
    except ImportError as missing:
        raise ImportError(
            f"the {package!r} extractor needs the {package} package: {EXTRAS_HINT}"
        ) from missing


def _trafilatura() -> Extractor:
    trafilatura = _require("trafilatura", "trafilatura")

    def extract(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
        text = to_text(html, encoding)
        return trafilatura.extract(text, url=url, include_comments=False) or ""

    return extract


def _readability() -> Extractor:
    readability = _require("readability", "readability-lxml")

    def extract(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
        text = to_text(html, encoding)
        if not text.strip():
            return ""
        summary = readability.Document(text, url=url).summary(html_partial=True)
        root = parse_html(summary)
        return visible_text_from_tree(root) if root is not None else ""

    return extract


def _resiliparse() -> Extractor:
    _require("resiliparse", "resiliparse")
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    def extract(html: str | bytes, encoding: str | None = None, url: str | None = None) -> str:
        tree = HTMLTree.parse(to_text(html, encoding))
        return extract_plain_text(tree, main_content=True) or ""

    return extract


_FACTORIES: dict[str, Callable[[], Extractor]] = {
    "builtin": lambda: builtin_extractor,
    "wholepage": lambda: wholepage_extractor,
    "trafilatura": _trafilatura,
    "readability": _readability,
    "resiliparse": _resiliparse,
}

EXTRACTOR_NAMES = tuple(_FACTORIES)


def get_extractor(spec: str | Extractor | None = None) -> Extractor:
    """The extractor named by ``spec``: a name in EXTRACTOR_NAMES, a dotted path, or a callable.

    ``None`` or ``""`` means ``"builtin"``. Unknown names raise ValueError; a peer whose package
    is missing raises ImportError naming the ``extractors`` extra.
    """
    if spec is None or spec == "":
        return builtin_extractor
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"extractor must be a name, a dotted path or a callable, not {spec!r}")
    name = spec.strip()
    factory = _FACTORIES.get(name.lower())
    if factory is not None:
        return factory()
    if "." not in name:
        allowed = ", ".join(EXTRACTOR_NAMES)
        raise ValueError(
            f"unknown extractor {spec!r}: use one of {allowed} or a dotted path to a callable"
        )
    module_name, _, attribute = name.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as missing:
        raise ValueError(f"cannot import {module_name!r} for extractor {spec!r}") from missing
    found = getattr(module, attribute, None)
    if not callable(found):
        raise ValueError(f"extractor {spec!r} is not a callable")
    return found
