"""The text a page keeps outside its visible markup: data scripts and meta descriptions, and
the documents it embeds; and the label-value pairs its markup writes (a specification's rows).

A product or listing page rendered by a JavaScript framework often ships a neutral shell whose
visible text is the same on every page, while what tells one page from another sits in
``<script id="__NEXT_DATA__">``, JSON-LD, a state assigned in a script
(``window.__INITIAL_STATE__ = {...}``) or a ``<meta name="description">``. Fingerprints of such
pages need that text.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import NamedTuple

from lxml import etree

from .hints import CHROME, attribute_hint

#: At most this much of a page's data scripts is read (a store's whole catalogue can be inlined).
MAX_CHARS = 100_000

#: The globals a framework's server-rendered state is assigned to in an inline script
#: (``window.__INITIAL_STATE__ = {...}``): Redux, Vuex, Nuxt 2, Apollo and others.
STATE_GLOBALS = ("__INITIAL_STATE__", "__PRELOADED_STATE__", "__NUXT__", "__APOLLO_STATE__",
                 "__INITIAL_DATA__", "__REDUX_STATE__", "__SERVER_DATA__")

_DATA_SCRIPTS = etree.XPath(
    "//script[@type='application/ld+json' or @type='application/json' or @id='__NEXT_DATA__' "
    "or @id='__NUXT_DATA__' or (not(@src) and ("
    + " or ".join(f"contains(., '{name}')" for name in STATE_GLOBALS)
    + "))]/text()"
    " | //meta[@name='description' or @property='og:description' or @property='og:title']"
    "/@content"
)
_JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_DECODER = json.JSONDecoder()
# an assignment of a state global, up to the value: a bracket, or JSON.parse's string
_STATE_ASSIGNMENT = re.compile(
    r"(?:window\.|self\.|globalThis\.|var\s+|let\s+|const\s+)?(?:"
    + "|".join(STATE_GLOBALS) + r")\s*=\s*(?:JSON\.parse\(\s*(?=\")|(?=[\[{(]))"
)


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
        # (each text read up to what is left; only what it gives counts: a script that merely
        # names a state global gives nothing and takes nothing from the data after it)
        part = _values(str(value)[: 2 * (MAX_CHARS - size)])[: MAX_CHARS - size]
        if part:
            parts.append(part)
            size += len(part)
            if size >= MAX_CHARS:
                break
    return "\n".join(parts)


def _values(text: str) -> str:
    """The values of a JSON text (keys and syntax left out), or the text itself; of a script
    assigning a state global, the values of what it assigns."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        assigned = _STATE_ASSIGNMENT.search(stripped)
        if assigned is None:  # a description, or a script that only reads a state global
            return "" if any(name in stripped for name in STATE_GLOBALS) else stripped
        try:  # the JSON after "=" (a script may go on after it), or JSON.parse's string of it
            data = _DECODER.raw_decode(stripped, assigned.end())[0]
            if isinstance(data, str):
                data = json.loads(data)
        except ValueError:  # a function's call (Nuxt 2), a text cut short: its quoted strings
            return " ".join(_JSON_STRING.findall(stripped, assigned.end()))
        return _walked(data)
    try:
        data = json.loads(stripped)
    except ValueError:  # cut short or not JSON: its quoted strings
        return " ".join(_JSON_STRING.findall(stripped))
    return _walked(data)


def _walked(data: object) -> str:
    """The strings and numbers of parsed JSON, in document order."""
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


#: Where a page embeds another document (a frame, a player, a viewer): the attributes of each
#: tag that name it (a ``<source>`` of a ``<video>`` or an ``<audio>``: its ``src``).
_EMBED_ATTRIBUTES = {"iframe": ("src", "data-src"), "frame": ("src",), "embed": ("src",),
                     "object": ("data",), "video": ("src",), "audio": ("src",),
                     "source": ("src",)}
_PLAYERS = ("video", "audio")
#: At most this many of a page's embedded URLs are read.
MAX_EMBEDS = 32
_NOT_DOCUMENTS = ("about:", "javascript:", "data:", "blob:")

#: Where a page's markup pairs a label with a value: a term, a table's row, a form's control
#: (the option a ``<select>`` shows selected, the radio button checked: a variant's colour).
_FIELD_TAGS = ("dt", "tr", "select", "input")
#: Words of the names of controls that choose how a page is shown, not what it shows (the same
#: items sorted, counted or laid out another way, in another language or currency), or that
#: default to what the visit brings (a delivery option before a cut-off, a gift wrap, a
#: quantity, today's date, the store a cookie chose); a name of two letters or fewer ("s",
#: "hl") is a toolbar's or a search's parameter.
_NOT_VARIANT_WORDS = frozenset((
    "sort", "sorting", "sortby", "order", "orderby", "dir", "direction", "view", "viewmode",
    "mode", "display", "limit", "count", "per", "page", "pagesize", "layout", "grid", "list",
    "currency", "lang", "language", "locale", "unit", "units", "font", "fontsize", "zoom",
    "theme", "scope", "search", "filter", "delivery", "shipping", "dispatch", "gift", "wrap",
    "wrapping", "subscribe", "subscription", "purchase", "quantity", "qty", "time", "date",
    "day", "month", "year", "hour", "minute", "store",
))
#: Where a page's controls are its furniture's (a header's search scope, a sidebar's filter).
_NOT_CONTROLS = frozenset(("nav", "footer", "header", "aside"))
_NOT_LETTERS = re.compile(r"[\W\d_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: Where a page's markup does not write its own fields: its navigation and footer.
_NOT_FIELDS = frozenset(("nav", "footer"))
#: At most this many of a page's label-value pairs are read.
MAX_FIELDS = 64
#: Asides inside these are the page's furniture (a header's promotion, a footer's box).
_NOT_ASIDES = frozenset(("header", "nav", "footer", "aside"))
#: At most this many asides, and this much of their text, are read.
MAX_ASIDES = 8
MAX_ASIDE_CHARS = 4000
# What an aside's text leaves out: links (another page's name and figures, as in a list of
# related listings), scripts and controls.
_NOT_ASIDE_TEXT = frozenset(("a", "script", "style", "button", "select", "noscript", "template"))
_COLONS = ":\uff1a "  # (a label may end with its colon: "Colour:")


def embedded_urls(root) -> list[str]:
    """The URLs (as written) of the documents a page embeds: frames (their lazy ``data-src``
    too), players, viewers (an article in an ``<iframe>``, a report's PDF in an ``<object>``, a
    video); never raises."""
    return markup_parts(root)[0]


def field_lines(root) -> list[str]:
    """A page's label-value pairs as its markup writes them, each as "label: value": a term and
    the description after it (``<dt>Colour</dt><dd>White</dd>``), a table row of a label cell
    and a value cell (``<tr><th>Region</th><td>Seoul</td></tr>``), outside its navigation and
    footer; never raises."""
    return markup_parts(root)[1]


def canonical_href(root) -> str | None:
    """The ``href`` of the first ``<link rel="canonical">`` in a page's head, as written (None:
    none); never raises."""
    with contextlib.suppress(Exception):  # defensive: an odd tree must not stop a crawl
        head = root.find("head") if root is not None else None
        for link in () if head is None else head.iter("link"):
            if "canonical" in (link.get("rel") or "").lower().split():
                href = link.get("href")
                if href and href.strip():
                    return href
    return None


class MarkupParts(NamedTuple):
    """What one walk of a page's tree finds beside its text blocks."""

    embedded: list[str]  #: :func:`embedded_urls`
    fields: list[str]  #: :func:`field_lines`
    asides: list  #: its own ``<aside>`` elements (see :func:`aside_text`)


def markup_parts(root) -> MarkupParts:
    """:func:`embedded_urls`, :func:`field_lines` and the page's asides from one walk of the
    tree (a walk costs as much as the rest of the two together); never raises."""
    urls: list[str] = []
    lines: list[str] = []
    asides: list = []
    if root is None:
        return MarkupParts(urls, lines, asides)
    with contextlib.suppress(Exception):  # defensive: an odd tree must not stop a crawl
        for element in root.iter(*_EMBED_ATTRIBUTES, *_FIELD_TAGS, "aside"):
            tag = element.tag
            if tag == "aside":
                if len(asides) < MAX_ASIDES and not any(
                        outer.tag in _NOT_ASIDES for outer in element.iterancestors()):
                    asides.append(element)
                continue
            if tag in _FIELD_TAGS:
                if len(lines) < MAX_FIELDS:
                    pair = _pair(element)
                    if pair is not None and not any(
                            outer.tag in _NOT_FIELDS for outer in element.iterancestors()):
                        lines.append(f"{pair[0]}: {pair[1]}")
                continue
            if len(urls) == MAX_EMBEDS:
                continue
            if tag == "source":
                parent = element.getparent()
                if parent is None or parent.tag not in _PLAYERS:
                    continue  # (a picture's)
            names = _EMBED_ATTRIBUTES[tag]
            for name, value in element.items():  # (in the element's order, as XPath's)
                url = value.strip() if name in names else ""
                if url and not url[:11].lower().startswith(_NOT_DOCUMENTS):
                    urls.append(url)
                    if len(urls) == MAX_EMBEDS:
                        break
    return MarkupParts(urls, lines, asides)


def aside_text(asides: list) -> str:
    """The text of asides that is not a link's, one line per text node, up to
    :data:`MAX_ASIDE_CHARS`: a listing's price and key facts in a summary box beside its
    description, which the extraction leaves out with the sidebars. An aside named as a box of
    other pages ("related", "most-read", "trending": :func:`~.hints.attribute_hint`'s chrome)
    or mostly links is left out: its counts and dates change between two fetches of one page.
    Never raises."""
    parts: list[str] = []
    size = 0
    with contextlib.suppress(Exception):  # defensive: an odd tree must not stop a crawl
        for aside in asides:
            named = " ".join(filter(None, (aside.get("class"), aside.get("id"))))
            if named and attribute_hint(named) == CHROME:
                continue
            own, linked = _unlinked_text(aside)
            if sum(map(len, own)) <= linked:
                continue
            for text in own:
                parts.append(text)
                size += len(text)
                if size > MAX_ASIDE_CHARS:
                    return "\n".join(parts)[:MAX_ASIDE_CHARS]
    return "\n".join(parts)


# A box beside the main text written without ``<aside>``: a class or id opening with "sidebar"
# (the markup before HTML5). "has-sidebar", "no-sidebar" and the like name a page's layout.
# (found through the attributes: twice as fast as testing every element's)
_SIDE_BOX_CANDIDATES = etree.XPath(
    "//@class[contains(., 'idebar')]/.. | //@id[contains(., 'idebar')]/..")
_SIDEBAR_NAME = re.compile(r"(?:^|\s)sidebar", re.IGNORECASE)
# A box holding one of these holds the page's own text: a layout's wrapper, not a sidebar.
_PAGE_PARTS = etree.XPath("boolean(.//h1 | .//main | .//article | .//*[@role='main'])")


def side_boxes(root, asides: list) -> list:
    """The page's sidebars written as ``<div class="sidebar">`` (or an id so named), to be read
    as :func:`aside_text` reads asides: not in a header, navigation, footer or aside, not inside
    another one or one of ``asides``, holding no ``<h1>``, ``<main>`` or ``<article>``; at most
    :data:`MAX_ASIDES` with ``asides``. Never raises."""
    boxes: list = []
    with contextlib.suppress(Exception):  # defensive: an odd tree must not stop a crawl
        taken = set(asides)
        for element in _SIDE_BOX_CANDIDATES(root):
            if len(asides) + len(boxes) >= MAX_ASIDES:
                break
            if element.tag == "aside" or not _SIDEBAR_NAME.search(
                    " ".join(filter(None, (element.get("class"), element.get("id"))))):
                continue
            if any(outer in taken or outer.tag in _NOT_ASIDES
                   for outer in element.iterancestors()):
                continue
            if _PAGE_PARTS(element):
                continue
            boxes.append(element)
            taken.add(element)
    return boxes

def _unlinked_text(aside) -> tuple[list[str], int]:
    """An aside's text nodes outside links, scripts and controls, and how many characters its
    links hold, read until the two hold twice :data:`MAX_ASIDE_CHARS`."""
    own: list[str] = []
    linked = read = 0
    # texts and elements still to read, the next one last: an element's text, its children
    # (each followed by its tail), then its tail (not the aside's own)
    stack: list = [aside]
    while stack and read <= 2 * MAX_ASIDE_CHARS:
        item = stack.pop()
        if isinstance(item, str):
            if not item.isspace():
                own.append(item)
                read += len(item)
            continue
        if item.tail and item is not aside:
            stack.append(item.tail)
        tag = item.tag
        if not isinstance(tag, str) or tag in _NOT_ASIDE_TEXT:
            if tag == "a":
                text = "".join(item.itertext()).strip()
                linked += len(text)
                read += len(text)
            continue
        stack.extend(reversed(item))
        if item.text:
            stack.append(item.text)
    return own, linked


def _pair(element) -> tuple[str, str] | None:
    """The label and value of a ``<dt>`` and the ``<dd>`` after it, of a table row of a label
    cell and a ``<td>``, or of a form's control (:func:`_control_pair`); None when it is no such
    pair, or either is empty."""
    if element.tag in ("select", "input"):
        return _control_pair(element)
    if element.tag == "dt":
        value = element.getnext()
        while value is not None and not isinstance(value.tag, str):
            value = value.getnext()  # (a comment between them)
        if value is None or value.tag != "dd":
            return None
        label = element
    else:
        if not 2 <= len(element) <= 4:  # (most rows: a table's, of more cells)
            return None
        cells = [cell for cell in element if isinstance(cell.tag, str)]  # (not comments)
        if len(cells) != 2 or cells[1].tag != "td":
            return None
        label, value = cells
    label_text, value_text = _cell_text(label).rstrip(_COLONS), _cell_text(value)
    return (label_text, value_text) if label_text and value_text else None


def _cell_text(element) -> str:
    """An element's text, its spaces collapsed, read up to 200 characters (no field is long: a
    layout table's cell holds a whole page)."""
    parts, size = [], 0
    for part in element.itertext():
        parts.append(part)
        size += len(part)
        if size > 200:
            break
    return " ".join("".join(parts)[:200].split())


def _control_pair(element) -> tuple[str, str] | None:
    """A ``<select>``'s name and the option marked selected, or a checked radio button's name
    and value (its label's text when its value is the default "on"); None for other controls,
    none chosen in the markup, and controls that choose no variant of the page: named for how
    it is shown or what the visit brought (:data:`_NOT_VARIANT_WORDS`), or placed in its
    furniture or a search (:func:`_variant_place`)."""
    if element.tag == "select":
        chosen = next((option for option in element.iter("option")
                       if option.get("selected") is not None), None)
        value = "" if chosen is None else _cell_text(chosen) or (chosen.get("value") or "")
    elif (element.get("type") or "").lower() == "radio" and element.get("checked") is not None:
        value = (element.get("value") or "").strip()
        if value.lower() in ("", "on"):
            value = " ".join((element.tail or "").split())
    else:
        return None
    name = element.get("aria-label") or element.get("name") or element.get("id") or ""
    # "attribute_pa_colour[]", "productListMode": words
    label = " ".join(_NOT_LETTERS.sub(" ", _CAMEL.sub(" ", name)).split())
    if (not value or len(label.replace(" ", "")) <= 2
            or not _NOT_VARIANT_WORDS.isdisjoint(label.lower().split())
            or not _variant_place(element)):
        return None
    return label, " ".join(value.split())


def _variant_place(element) -> bool:
    """Whether a control sits where a page chooses its own variant: not in its header,
    navigation, sidebar or footer, nor in a form with a text box (a search, a filter)."""
    form = None
    for outer in element.iterancestors():
        if outer.tag in _NOT_CONTROLS:
            return False
        if outer.tag == "form" and form is None:
            form = outer
    if form is None:
        return True
    return (form.get("role") or "").lower() != "search" and not any(
        (box.get("type") or "text").lower() in ("text", "search") for box in form.iter("input"))
