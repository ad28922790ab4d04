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
from collections.abc import Callable
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
# Comments, processing instructions and entity references have these factories as their tag.
_KIND.update({etree.Comment: _SKIP, etree.PI: _SKIP, etree.Entity: _SKIP})

# The second reading of a page in which the first found no article (see builtin.article_from_tree):
# structural chrome and noscript are read too. A <nav> left open by broken markup can hold the
# whole page, and some pages put their article in <noscript> for readers without scripts.
LENIENT_TAGS = frozenset({"nav", "aside", "footer", "menu", "noscript"})
_LENIENT_KIND = {**_KIND, **{tag: _BLOCK for tag in LENIENT_TAGS}}

# Only display:none hides a block. Pages that reveal their content by script serve it under
# visibility:hidden (a WeChat article's whole body: the page showed its title and account
# name alone); menus and dialogs hidden that way are chrome anyway. No corpus page moves
# but one, which gains a hidden headline line.
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


@dataclass
class Segmented:
    """One walk's result, in parallel lists.

    Block ``i``: ``block_text[i]`` (raw, with LINE_BREAK for ``<br>``), ``block_link_chars[i]``
    (non-space characters inside ``<a>``) and ``block_owner[i]`` (index of the node whose own
    text it is). Node ``j`` (a block-level element with some text in it; empty ones are left
    out): ``node_tag[j]``, ``node_own_hint[j]`` (its class/id/tag hint), ``node_class[j]``,
    ``node_parent[j]`` (-1 for the root), ``node_depth[j]``; its blocks are
    ``node_start[j]:node_end[j]`` and its descendants are the nodes ``j + 1:node_last[j]``.
    Nodes are in document (pre-)order.
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
    node_last: list[int] = field(default_factory=list)
    #: Each link's target (its ``href``, as written) and the block its text starts in
    link_href: list[str] = field(default_factory=list)
    link_block: list[int] = field(default_factory=list)
    title: str = ""
    meta_title: str = ""
    #: The text of the hidden panels the walk passed over (a closed tab's, an accordion's
    #: answer) and of its ``<noscript>``, ``<template>`` and ``<svg>``, one string each: not
    #: blocks of the page, but its content all the same
    hidden_text: list[str] = field(default_factory=list)
    #: the characters of :attr:`hidden_text` from panels and from unrendered subtrees
    panel_chars: int = 0
    unrendered_chars: int = 0


# A hidden block is a panel a reader opens (a product's other tabs, an FAQ's answers) when its
# role says so or its class or id names one, and nothing that names a menu, a dialog or another
# page's text (a site's recent posts, comments: see builtin.own_comments).
_PANEL_ROLES = frozenset({"tabpanel", "region"})
_PANEL_RE = re.compile(r"\btab(?!le)|tabpanel|tab-?pane|panel|accordion|collaps|faq|answer|"
                       r"toggle|spoiler|expand")
_NOT_PANEL_RE = re.compile(r"menu|\bnav|modal|pop-?up|drawer|off-?canvas|cookie|consent|gdpr|"
                           r"dropdown|search|cart|basket|login|sign-?in|newsletter|share|"
                           r"comment|recent|latest|popular|widget|\bads?\b|advert|video|player")
#: The most characters of hidden panels read on one page.
HIDDEN_TEXT_MAX_CHARS = 20_000
_NOT_READ = frozenset({"script", "style", "template", "noscript", "svg", "select", "option",
                       "button", "textarea"})


#: Skipped subtrees the walk hands to :func:`_read_skipped`: the ``<head>`` (its title), and
#: those whose text is the page's all the same, beside its visible text: what a page shows
#: without scripts (``<noscript>``), what its scripts show (``<template>``), a chart's labels
#: (``<svg>``). A shell that is the same on every page may hold its content there.
READ_SKIPPED_TAGS = frozenset({"head", "noscript", "template", "svg"})
#: At most this many elements of one such subtree are read (a chart of thousands of paths),
#: and this many characters of them a page (apart from the panels': many icons' titles must
#: not crowd out a closed specification tab).
SKIPPED_MAX_ELEMENTS = 5_000
UNRENDERED_MAX_CHARS = 20_000


def _read_skipped(element, result: Segmented) -> None:
    """What the walk reads of a subtree it passes over: the page's ``<head>`` (its title), and
    the text of a hidden panel or of a ``<noscript>``, ``<template>`` or ``<svg>``
    (:data:`Segmented.hidden_text`)."""
    tag = element.tag
    if tag == "head":
        _read_head(element, result)
        return
    unrendered = tag in READ_SKIPPED_TAGS
    room = (UNRENDERED_MAX_CHARS - result.unrendered_chars if unrendered
            else HIDDEN_TEXT_MAX_CHARS - result.panel_chars)
    if room <= 0:
        return
    if not unrendered:
        names = " ".join(filter(None, (element.get("class"), element.get("id")))).lower()
        if element.get("role") not in _PANEL_ROLES and element.get("hidden") != "until-found" \
                and _PANEL_RE.search(names) is None:
            return
        if _NOT_PANEL_RE.search(names) is not None:
            return
    parts = []
    for count, node in enumerate(element.iter()):
        if count == SKIPPED_MAX_ELEMENTS:
            break
        if node is not element and node.tail:
            parts.append(node.tail)
        if isinstance(node.tag, str) and (node is element or node.tag not in _NOT_READ) \
                and node.text:
            parts.append(node.text)
    text = " ".join(" ".join(parts).split())[:room]
    if text:
        result.hidden_text.append(text)
        if unrendered:
            result.unrendered_chars += len(text)
        else:
            result.panel_chars += len(text)


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


class _Enough(Exception):
    """Raised inside the walk when MAX_BLOCKS blocks have been read."""


try:  # the compiled walk, when the package was built with it (see setup.py)
    from ._speedups import walk as _compiled_walk
except ImportError:  # pragma: no cover - depends on the build
    _compiled_walk = None


def segment(
    root, *, keep_hidden: bool = False, max_blocks: int = MAX_BLOCKS, lenient: bool = False
) -> Segmented:
    """Walk ``root`` once and return its visible text blocks and block-level nodes.

    ``lenient`` also reads LENIENT_TAGS (as blocks; nav, aside, footer and menu hinted as
    chrome unless they hold most of the page, see hints.TAG_HINTS).

    The walk stops after ``max_blocks`` text blocks; nodes still open then end at the last one.
    The compiled walk (``_speedups.walk``) is used when it was built; ``walk_python`` is the
    same walk in Python.
    """
    result = Segmented()
    classes: list[str | None] = []
    ids: list[str | None] = []
    walk = _compiled_walk if _compiled_walk is not None else walk_python
    owner = walk(
        root, result, keep_hidden, max_blocks, _LENIENT_KIND if lenient else _KIND,
        _HIDDEN_STYLE.search, _read_skipped,
        classes, ids,
    )
    _close_nodes(result, owner)
    _read_hints(result, classes, ids)
    return result


def walk_python(
    root,
    result: Segmented,
    keep_hidden: bool,
    max_blocks: int,
    kinds: dict,
    hidden_style: Callable[[str], object],
    read_skipped: Callable[[object, Segmented], None],
    node_classes: list[str | None],
    node_ids: list[str | None],
) -> int:
    """The walk in Python: fill ``result``'s blocks and nodes and each node's class and id;
    return the innermost node still open (-1 when the whole tree was read)."""
    block_text = result.block_text
    block_link_chars = result.block_link_chars
    block_owner = result.block_owner
    # Node columns, filled in the walk; class and id are read after it, for the nodes kept.
    node_element: list = []
    node_tag = result.node_tag
    node_parent = result.node_parent
    node_depth = result.node_depth
    node_start = result.node_start
    node_end = result.node_end
    node_last = result.node_last
    link_href = result.link_href
    link_block = result.link_block

    pieces: list[str] = []
    link_chars = 0
    link_depth = 0
    owner = -1  # the innermost open block-level node
    # Open block and link elements: (element, owner before it), None for a link.
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
            if len(block_text) >= max_blocks:
                raise _Enough
        link_chars = 0

    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    try:
        for event, element in walker:
            if event == "start":
                tag = element.tag
                kind = kinds.get(tag, _INLINE)
                if kind == _SKIP:  # (entity references among them)
                    if tag in READ_SKIPPED_TAGS:
                        read_skipped(element, result)
                    walker.skip_subtree()
                    skipped = element
                    continue
                if not keep_hidden:
                    style = element.get("style")
                    if style and hidden_style(style):
                        if kind == _BLOCK:
                            read_skipped(element, result)
                        walker.skip_subtree()
                        skipped = element
                        continue
                if kind == _BLOCK:
                    if not keep_hidden and element.get("hidden") is not None:
                        read_skipped(element, result)
                        walker.skip_subtree()
                        skipped = element
                        continue
                    if pieces:
                        flush()
                    opened.append((element, owner))
                    top = element
                    node_element.append(element)
                    node_tag.append(tag)
                    node_parent.append(owner)
                    node_depth.append(len(opened))
                    owner = len(node_start)
                    node_start.append(len(block_text))
                elif kind == _LINK:
                    href = element.get("href")
                    if href and not href.startswith("javascript:"):
                        opened.append((element, None))
                        top = element
                        link_depth += 1
                        link_href.append(href)
                        link_block.append(len(block_text))
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
                continue
            if event == "end":
                if element is top:
                    owner_before = opened.pop()[1]
                    top = opened[-1][0] if opened else None
                    if owner_before is None:
                        link_depth -= 1
                    else:
                        if pieces:
                            flush()
                        if node_start[owner] == len(block_text):
                            # No text inside: drop the node (its descendants are empty too).
                            del node_element[owner:], node_tag[owner:], node_parent[owner:]
                            del node_depth[owner:], node_start[owner:]
                        else:
                            while len(node_end) < owner:  # descendants closed before it
                                node_end.append(-1)
                                node_last.append(-1)
                            if len(node_end) == owner:
                                node_end.append(len(block_text))
                                node_last.append(len(node_tag))
                            else:
                                node_end[owner] = len(block_text)
                                node_last[owner] = len(node_tag)
                        owner = owner_before
                elif element is skipped:
                    skipped = None
            tail = element.tail  # an element's, a comment's or a processing instruction's
            if tail:
                if not tail.isspace():
                    pieces.append(tail)
                    if link_depth:
                        link_chars += len(tail.strip())
                elif pieces:
                    pieces.append(" ")
        if pieces:
            flush()
    except _Enough:
        pass
    node_classes.extend(element.get("class") for element in node_element)
    node_ids.extend(element.get("id") for element in node_element)
    return owner


def _close_nodes(result: Segmented, owner: int) -> None:
    """End the nodes the walk left open (it stopped early) at the last block."""
    end, last = len(result.block_text), len(result.node_tag)
    node_end, node_last = result.node_end, result.node_last
    missing = last - len(node_end)
    if missing > 0:
        node_end.extend([-1] * missing)
        node_last.extend([-1] * missing)
    parents = result.node_parent
    while owner >= 0:
        node_end[owner] = end
        node_last[owner] = last
        owner = parents[owner]


def _read_hints(
    result: Segmented, node_classes: list[str | None], node_ids: list[str | None]
) -> None:
    """Each node's class/id string and the hint it gives (see hints.attribute_hint)."""
    hint_cache = HINT_CACHE
    hints = result.node_own_hint
    classes = result.node_class
    for class_and_id, identifier, tag in zip(node_classes, node_ids, result.node_tag, strict=True):
        element_hint = NEUTRAL
        if tag not in UNHINTED_TAGS:
            # Ids with 3+ separators are slugs of headings ("sharing-with-a-friend").
            if identifier and identifier.count("-") + identifier.count("_") < 3:
                class_and_id = f"{class_and_id} {identifier}" if class_and_id else identifier
            if class_and_id:
                element_hint = hint_cache.get(class_and_id)
                if element_hint is None:
                    element_hint = attribute_hint(class_and_id)
            if not element_hint and tag in TAG_HINTS:
                element_hint = TAG_HINTS[tag]
        hints.append(element_hint)
        classes.append(class_and_id or "")
