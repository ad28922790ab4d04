"""One pass over an lxml tree: visible text cut into blocks, plus per-element subtree ranges.

The tree is only read (``etree.iterwalk`` with ``skip_subtree``), never changed, so the tree a
Scrapy response caches can be shared with the spider. Text of inline elements belongs to the
nearest block-level ancestor; every block-level boundary ends a block; ``<br>`` becomes a line
break (LINE_BREAK) inside a block. Each block-level element becomes a node recording the range
of blocks under it, so later passes score subtrees with prefix sums instead of walking the tree
again.

This loop runs on every crawled page, so it is written for speed: one dict lookup classifies a
tag, and nodes and blocks are kept in parallel lists rather than objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from .hints import HINT_CACHE, NEUTRAL, TAG_HINTS, UNHINTED_TAGS, attribute_hint

# Subtrees that never hold article text (or are chrome by definition).
SKIPPED_TAGS = frozenset(
    {
        "head", "script", "style", "noscript", "template", "iframe", "frame", "frameset",
        "svg", "math", "canvas", "object", "embed", "applet", "video", "audio", "map",
        "select", "option", "optgroup", "button", "textarea", "input", "datalist",
        "nav", "aside", "footer", "menu", "dialog", "link", "meta", "base", "title",
        "figcaption",
    }
)  # fmt: skip

BLOCK_TAGS = frozenset(
    {
        "html", "body", "div", "p", "section", "article", "main", "header", "hgroup",
        "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
        "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "blockquote",
        "pre", "figure", "figcaption", "address", "center", "hr", "details", "summary",
        "fieldset", "legend", "form", "picture", "output",
    }
)  # fmt: skip

# What a <br> leaves in block text: a line break that source newlines (plain whitespace in HTML)
# cannot be mistaken for.
LINE_BREAK = "\u2028"

HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})

_INLINE, _BLOCK, _SKIP, _LINK, _BREAK = 0, 1, 2, 3, 4
_KIND = {tag: _BLOCK for tag in BLOCK_TAGS}
_KIND.update({tag: _SKIP for tag in SKIPPED_TAGS})
_KIND.update({"a": _LINK, "br": _BREAK})

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


@dataclass
class Segmented:
    """One walk's result, in parallel lists.

    Block ``i``: ``block_text[i]`` (raw, with LINE_BREAK for ``<br>``), ``block_link_chars[i]``
    (non-space characters inside ``<a>``) and ``block_owner[i]`` (index of the node whose own
    text it is). Node ``j`` (a block-level element): ``node_tag[j]``, ``node_own_hint[j]``
    (its class/id/tag hint),
    ``node_parent[j]`` (-1 for the root), ``node_depth[j]``, and its blocks are
    ``node_start[j]:node_end[j]``. Nodes are in document (pre-)order.
    """

    block_text: list[str] = field(default_factory=list)
    block_link_chars: list[int] = field(default_factory=list)
    block_owner: list[int] = field(default_factory=list)
    node_tag: list[str] = field(default_factory=list)
    node_own_hint: list[int] = field(default_factory=list)
    node_class: list[str] = field(default_factory=list)
    node_parent: list[int] = field(default_factory=list)
    node_depth: list[int] = field(default_factory=list)
    node_start: list[int] = field(default_factory=list)
    node_end: list[int] = field(default_factory=list)
    title: str = ""
    meta_title: str = ""


def _read_head(head, result: Segmented) -> None:
    for element in head.iter("title", "meta"):
        if element.tag == "title":
            if not result.title:
                result.title = " ".join((element.text or "").split())
        elif not result.meta_title:
            key = (element.get("property") or element.get("name") or "").lower()
            if key in ("og:title", "twitter:title"):
                result.meta_title = " ".join((element.get("content") or "").split())


# Real pages have a few thousand text blocks; a page built of a million tiny elements stops
# being read here, which bounds the time spent on it (the blocks read are still scored).
MAX_BLOCKS = 50_000


def segment(root, *, keep_hidden: bool = False, max_blocks: int = MAX_BLOCKS) -> Segmented:
    """Walk ``root`` once and return its visible text blocks and block-level nodes.

    The walk stops after ``max_blocks`` text blocks; nodes still open then end at the last one.
    """
    result = Segmented()
    block_text = result.block_text
    block_link_chars = result.block_link_chars
    block_owner = result.block_owner
    node_rows: list[tuple] = []  # (tag, own hint, class, parent, depth, start); transposed below
    node_end = result.node_end
    kinds = _KIND
    hidden_style = _HIDDEN_STYLE.search
    hint_cache = HINT_CACHE

    pieces: list[str] = []
    link_chars = 0
    link_depth = 0
    owner = -1  # the innermost open block-level node
    # Open block and link elements: (element, kind, owner before it).
    opened: list[tuple] = []
    top = None  # opened[-1][0], kept apart for a cheap identity test on "end"
    skipped = None

    def flush() -> None:
        nonlocal link_chars
        text = "".join(pieces)
        pieces.clear()
        if not text.isspace():
            block_text.append(text)
            block_link_chars.append(link_chars)
            block_owner.append(owner)
        link_chars = 0

    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, element in walker:
        if len(block_text) >= max_blocks:
            break
        if event == "start":
            tag = element.tag
            kind = kinds.get(tag, _INLINE)
            if kind == _SKIP or tag.__class__ is not str:
                if tag == "head":
                    _read_head(element, result)
                walker.skip_subtree()
                skipped = element
                continue
            style = element.get("style")
            if not keep_hidden and (
                (style and hidden_style(style))
                or (kind == _BLOCK and element.get("hidden") is not None)
            ):
                walker.skip_subtree()
                skipped = element
                continue
            if kind == _BLOCK:
                if pieces:
                    flush()
                element_hint = NEUTRAL
                class_and_id = element.get("class")
                if tag not in UNHINTED_TAGS:
                    identifier = element.get("id")
                    # Ids with 3+ separators are slugs of headings ("sharing-with-a-friend").
                    if identifier and identifier.count("-") + identifier.count("_") < 3:
                        class_and_id = (
                            f"{class_and_id} {identifier}" if class_and_id else identifier
                        )
                    if class_and_id:
                        element_hint = hint_cache.get(class_and_id)
                        if element_hint is None:
                            element_hint = attribute_hint(class_and_id)
                    if not element_hint and tag in TAG_HINTS:
                        element_hint = TAG_HINTS[tag]
                opened.append((element, kind, owner))
                top = element
                node_rows.append(
                    (tag, element_hint, class_and_id or "", owner, len(opened), len(block_text))
                )
                owner = len(node_end)
                node_end.append(-1)
            elif kind == _LINK:
                href = element.get("href")
                if href and not href.startswith("javascript:"):
                    opened.append((element, kind, owner))
                    top = element
                    link_depth += 1
            elif kind == _BREAK:
                pieces.append(LINE_BREAK)
            text = element.text
            if text:
                if not text.isspace():
                    pieces.append(text)
                    if link_depth:
                        link_chars += len(text.strip())
                elif pieces:  # keeps words apart; leading blank text is dropped
                    pieces.append(" ")
        elif event == "end":
            if element is skipped:
                skipped = None
            elif element is top:
                _, kind, owner_before = opened.pop()
                top = opened[-1][0] if opened else None
                if kind == _BLOCK:
                    if pieces:
                        flush()
                    node_end[owner] = len(block_text)
                    owner = owner_before
                elif kind == _LINK:
                    link_depth -= 1
            tail = element.tail
            if tail:
                if not tail.isspace():
                    pieces.append(tail)
                    if link_depth:
                        link_chars += len(tail.strip())
                elif pieces:
                    pieces.append(" ")
        else:  # a comment or processing instruction: only its tail is text
            tail = element.tail
            if tail:
                if not tail.isspace():
                    pieces.append(tail)
                    if link_depth:
                        link_chars += len(tail.strip())
                elif pieces:
                    pieces.append(" ")
    if pieces:
        flush()
    end = len(block_text)
    for index, value in enumerate(node_end):
        if value < 0:
            node_end[index] = end
    if node_rows:
        (
            result.node_tag,
            result.node_own_hint,
            result.node_class,
            result.node_parent,
            result.node_depth,
            result.node_start,
        ) = (list(column) for column in zip(*node_rows, strict=True))
    return result
