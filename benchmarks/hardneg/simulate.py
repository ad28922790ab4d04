"""What a crawl of a family loses, and what a reader sees of a page."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from lxml import etree

from scrapy_simhash.extract.parsing import parse_html

INVISIBLE = ("script", "style", "noscript", "template")
# what a reader sees without scripts (<noscript>) or through them (<template>) too
_UNRENDERED = ("script", "style")


def lost_in_order(signatures: Sequence[Any], duplicate: Callable[[Any, Any], bool]) -> list[int]:
    """Indexes of the pages a crawl in this order drops: each page is compared with every page
    kept before it; the first page, and a page without a signature, are always kept."""
    kept: list[Any] = []
    lost = []
    for index, signature in enumerate(signatures):
        if signature is None:
            continue
        if any(duplicate(signature, other) for other in kept):
            lost.append(index)
        else:
            kept.append(signature)
    return lost


# a state a client-side app renders from, assigned in a script: window.__INITIAL_STATE__ = ...
_STATE = re.compile(r"\s*window\.__\w+__\s*=")


def _body(html: str | bytes):
    root = parse_html(html, None)
    if root is None:
        return None, []
    data = [script.text or "" for script in root.iter("script")
            if (script.get("type") or "").lower() == "application/json"
            or _STATE.match(script.text or "")]
    body = root.find("body")
    return (body if body is not None else root), data


def _visible(body, invisible: tuple[str, ...] = INVISIBLE) -> str:
    parts: list[str] = []
    hidden = 0  # depth inside invisible elements (comments count as invisible)
    for event, element in etree.iterwalk(body, events=("start", "end")):
        unseen = not isinstance(element.tag, str) or element.tag in invisible
        if event == "start":
            hidden += unseen
            if not hidden and element.text:
                parts.append(element.text)
        else:
            hidden -= unseen
            if not hidden and element.tail and element is not body:
                parts.append(element.tail)
    return " ".join(" ".join(parts).split())


def visible_text(html: str | bytes) -> str:
    """All the text a browser shows: the body's text, chrome included (header, navigation,
    sidebars, footer); scripts, styles, ``noscript`` and templates left out."""
    body, _ = _body(html)
    return "" if body is None else _visible(body)


def rendered_text(html: str | bytes) -> str:
    """What a reader sees: :func:`visible_text` with the text of ``<noscript>`` and
    ``<template>``, the data a client-side app renders from
    ``<script type="application/json">`` (a Next.js page's ``__NEXT_DATA__``) or a state a
    script assigns (``window.__INITIAL_STATE__ = ...``), and the options its forms show chosen."""
    body, data = _body(html)
    if body is None:
        return "\n".join(data)
    chosen = [f"chosen: {element.text or element.get('value')}" for element in body.iter()
              if (element.tag == "option" and element.get("selected") is not None)
              or (element.tag == "input" and element.get("checked") is not None)]
    return "\n".join([_visible(body, _UNRENDERED), *data, *chosen])
