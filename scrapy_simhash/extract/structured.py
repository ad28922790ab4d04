"""The text a page keeps outside its visible markup: data scripts and meta descriptions.

A product or listing page rendered by a JavaScript framework often ships a neutral shell whose
visible text is the same on every page, while what tells one page from another sits in
``<script id="__NEXT_DATA__">``, JSON-LD or a ``<meta name="description">``. Fingerprints of such
pages need that text.
"""

from __future__ import annotations

import json
import re

from lxml import etree

#: At most this much of a page's data scripts is read (a store's whole catalogue can be inlined).
MAX_CHARS = 100_000

_DATA_SCRIPTS = etree.XPath(
    "//script[@type='application/ld+json' or @type='application/json' or @id='__NEXT_DATA__' "
    "or @id='__NUXT_DATA__']/text()"
    " | //meta[@name='description' or @property='og:description' or @property='og:title']"
    "/@content"
)
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def structured_text(root) -> str:
    """The strings and numbers of a page's data scripts and its meta descriptions, one per line;
    never raises."""
    if root is None:
        return ""
    try:
        found = _DATA_SCRIPTS(root)
    except Exception:  # defensive: an odd tree must not stop a crawl
        return ""
    parts: list[str] = []
    size = 0
    for value in found:
        text = str(value)
        if size + len(text) > MAX_CHARS:
            text = text[: MAX_CHARS - size]
        size += len(text)
        parts.append(_values(text))
        if size >= MAX_CHARS:
            break
    return "\n".join(part for part in parts if part)


def _values(text: str) -> str:
    """The values of a JSON text (keys and syntax left out), or the text itself."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return stripped
    try:
        data = json.loads(stripped)
    except ValueError:  # cut short or not JSON: its quoted strings
        return " ".join(_JSON_STRING.findall(stripped))
    out: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, str | int | float) and not isinstance(item, bool):
            out.append(str(item))
    return " ".join(out)
