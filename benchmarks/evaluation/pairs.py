"""Labelled near-duplicate pairs of full HTML documents, built from the evaluation corpora.

Positives (the crawl should keep only one page of the pair):

- ``same_article_template``: article A's ground-truth text inside another site's page B (B's main
  content replaced, title set to A's), paired with the original page A;
- ``edited``: page A with about 2% of the words (English) or characters (Chinese) of its main
  content substituted, inserted or deleted;
- ``extra_block``: page A with an added block of 20-40 navigation / related links;
- ``tracking_url``: the same bytes behind a URL with tracking parameters;
- ``dynamic_template``: page A twice with a different timestamp and view counter in the template;
- ``natural``: the real same-article captures found in the corpora.

Negatives (both pages must be kept):

- ``same_template``: two different articles inside one page template;
- ``same_site``: two real pages from one site (checked for accidental same-article pairs);
- ``unrelated``: two real pages from different sites.

Everything is deterministic for a given seed: inputs are sorted and every random choice comes from
``random.Random`` seeded with a string naming the pair.
"""

from __future__ import annotations

import functools
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import lxml.html
from corpora import CorpusPage, iter_pages
from lxml import etree

from scrapy_simhash.extract.decoding import normalize_encoding, sniff_declared_encoding

POSITIVE_KINDS = (
    "same_article_template",
    "edited",
    "extra_block",
    "tracking_url",
    "dynamic_template",
    "natural",
)
NEGATIVE_KINDS = ("same_template", "same_site", "unrelated")

#: pairs per kind and language (fewer when the corpora do not have enough pages)
DEFAULT_PER_KIND = 100
EDIT_RATE = 0.02

# The natural same-article pairs of the development split (see the corpora README).
NATURAL_PAIRS = (
    (
        ("readability-test-pages", "medicalnewstoday"),
        ("trafilatura-eval", "medicalnewstoday.com.318674"),
    ),
)

_SKIP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "iframe", "head", "title"}
)
_FURNITURE_NAMES = frozenset({"footer", "header", "nav", "navbar", "menu", "copyright"})
_META_TITLES = frozenset({"og:title", "twitter:title", "title"})
_BLOCK_TAGS = frozenset({"p", "pre", "td", "blockquote", "dd"})
_LOOSE_TEXT_TAGS = frozenset({"div", "section", "article", "span", "font", "center"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_MARKDOWN = re.compile(r"!\[[^\]]*\]\([^)]*\)|\[([^\]]*)\]\([^)]*\)|^#+\s*|[*_`|>]+", re.M)


@dataclass(frozen=True)
class LabelledPair:
    """Two full HTML documents and whether a crawl should treat them as near duplicates."""

    kind: str
    label: bool
    lang: str
    a_html: bytes
    b_html: bytes
    a_url: str | None
    b_url: str | None
    a_id: str
    b_id: str
    encodings: tuple[str | None, str | None] = (None, None)


@dataclass
class _Page:
    """A corpus page parsed once, with what the builder needs from it."""

    page: CorpusPage
    lang: str
    site: str
    html: bytes
    root: etree._Element
    main_path: tuple[int, ...] | None  # child indexes from the root to the main content, if found
    paragraphs: list[str]  # ground-truth paragraphs (empty when the source has none)
    title: str

    @property
    def uid(self) -> str:
        return f"{self.page.source}/{self.page.id}"

    @property
    def url(self) -> str:
        return self.page.url or f"https://{self.site}/{self.page.id}"

    def fresh_tree(self) -> tuple[etree._Element, etree._Element | None]:
        """A private copy of the tree and its main-content element (for editing)."""
        root = _parse(self.html, self.page.encoding)
        if self.main_path is None:
            return root, None
        main = root
        for index in self.main_path:
            main = main[index]
        return root, main


# --------------------------------------------------------------------------- public API


def build_pairs(
    root: Path | None = None,
    *,
    langs: Iterable[str] = ("en", "zh"),
    seed: int = 0,
    per_kind: int = DEFAULT_PER_KIND,
) -> list[LabelledPair]:
    """Labelled pairs for each language in ``langs``, deterministic for a given ``seed``.

    ``root`` is the corpora folder (default: the one :mod:`corpora` finds).
    At most ``per_kind`` pairs of each kind per language.
    """
    pages = _load_pages(root)
    pairs: list[LabelledPair] = []
    for lang in langs:
        pool = [p for p in pages if p.lang == lang]
        builder = _Builder(pool, lang, seed, per_kind)
        pairs.extend(builder.build())
    pairs.extend(_natural_pairs(pages, set(langs)))
    return pairs


def count_kinds(pairs: Iterable[LabelledPair]) -> dict[tuple[str, str], int]:
    """Number of pairs per (language, kind)."""
    return dict(sorted(Counter((p.lang, p.kind) for p in pairs).items()))


# --------------------------------------------------------------------------- loading


@functools.lru_cache(maxsize=2)  # parsing the corpora is the builder's cost; seeds share it
def _load_pages(root: Path | None) -> tuple[_Page, ...]:
    loaded = []
    for page in iter_pages(root=root):
        if page.lang not in ("en", "zh") or page.meta.get("synthetic_fixture"):
            continue
        html = page.html
        tree = _parse(html, page.encoding)
        if tree is None or tree.find("body") is None:
            continue
        truth = page.truth_text or ""
        paragraphs = _paragraphs(truth, markdown=page.source == "webmainbench-samples")
        snippets = (page.truth_snippets or {}).get("with") or []
        main = _find_main(tree, paragraphs or [_squash(s) for s in snippets], page.lang)
        loaded.append(
            _Page(
                page=page,
                lang=page.lang,
                site=_site_of(page),
                html=html,
                root=tree,
                main_path=_child_path(main) if main is not None else None,
                paragraphs=paragraphs,
                title=_title_of(tree, page),
            )
        )
    return tuple(loaded)


def _child_path(el: etree._Element) -> tuple[int, ...]:
    path = []
    while el.getparent() is not None:
        parent = el.getparent()
        path.append(parent.index(el))
        el = parent
    return tuple(reversed(path))


def _parse(html: bytes, encoding: str | None) -> etree._Element | None:
    text = _decode(html, encoding)
    try:
        return lxml.html.document_fromstring(text)
    except (etree.ParserError, ValueError):
        return None


def _decode(html: bytes, encoding: str | None) -> str:
    # the corpus's own label, else the page's declaration (the extractor's prescan: comments and
    # ``content`` attributes that are not Content-Type declare nothing)
    encoding = normalize_encoding(encoding) or sniff_declared_encoding(html)
    candidates = [encoding] if encoding else []
    candidates += ["utf-8", "gb18030", "cp1252"]
    for name in candidates:
        try:
            return html.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
    return html.decode("utf-8", errors="replace")


def _site_of(page: CorpusPage) -> str:
    if page.meta.get("site"):
        return str(page.meta["site"]).removeprefix("www.")
    if page.url:
        return (urlsplit(page.url).hostname or page.source).removeprefix("www.")
    head, _, tail = page.id.rpartition("-")
    if page.source == "readability-test-pages" and tail.isdigit():
        return f"{head}.readability"
    return f"{page.id}.{page.source}"


def _paragraphs(truth: str, *, markdown: bool) -> list[str]:
    if markdown:
        truth = _MARKDOWN.sub(lambda m: m.group(1) or "", truth)
    lines = (re.sub(r"\s+", " ", line).strip() for line in truth.splitlines())
    return [line for line in lines if line]


def _title_of(tree: etree._Element, page: CorpusPage) -> str:
    for h1 in tree.iter("h1"):
        text = _squash(h1.text_content())
        if 4 <= len(text) <= 200:
            return text
    if page.meta.get("title"):
        return str(page.meta["title"])
    title = tree.find(".//title")
    return _squash(title.text_content()) if title is not None else ""


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --------------------------------------------------------------------------- main content


def _text_blocks(root: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """Elements holding a paragraph of text, with that text."""
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS:
            continue
        if el.tag in _BLOCK_TAGS:
            yield el, _squash(el.text_content())
        elif el.tag in _LOOSE_TEXT_TAGS:
            own = _squash(" ".join([el.text or ""] + [c.tail or "" for c in el]))
            if len(own) >= 25:
                yield el, own


def _link_density(el: etree._Element) -> float:
    total = len(_squash(el.text_content())) or 1
    linked = sum(len(_squash(a.text_content())) for a in el.iter("a"))
    return linked / total


def _candidates(root: etree._Element) -> list[etree._Element]:
    """Main-content candidates, best first (a small Readability-style paragraph vote)."""
    scores: dict[etree._Element, float] = defaultdict(float)
    for el, text in _text_blocks(root):
        if len(text) < 25:
            continue
        score = 1 + len(re.findall(r"[,，、。；]", text)) + min(len(text) / 100, 3)
        parent = el.getparent()
        if parent is None:
            continue
        scores[parent] += score
        grandparent = parent.getparent()
        if grandparent is not None:
            scores[grandparent] += score / 2
    ranked = sorted(scores, key=lambda el: -scores[el] * (1 - _link_density(el)))
    return ranked[:8]


def _coverage(el: etree._Element, paragraphs: list[str]) -> float:
    """Share of the ground-truth characters whose paragraph appears in ``el``'s text."""
    text = re.sub(r"\s+", "", el.text_content())
    total = found = 0
    for para in paragraphs:
        key = re.sub(r"\s+", "", para)
        if len(key) < 12:
            continue
        total += len(key)
        probe = key[:60]
        if probe in text:
            found += len(key)
    return found / total if total else 0.0


def _find_main(root: etree._Element, anchors: list[str], lang: str) -> etree._Element | None:
    """The element whose children are the article, or None when no convincing one exists.

    ``anchors`` are ground-truth paragraphs or must-have snippets: the element must hold most of
    them. In every case emptying the element must take away most of the page's content text,
    so that a template made from the page no longer carries its own article.
    """
    minimum = _piece_minimum(lang)
    page_pieces = set(_content_pieces(root, minimum))
    page_size = sum(map(len, page_pieces)) or 1
    seen: set[etree._Element] = set()
    for candidate in _candidates(root):
        el = candidate
        for _ in range(4):  # the candidate, then its ancestors
            if el is None or el.tag in ("body", "html") or el in seen:
                break
            seen.add(el)
            if _page_furniture(el) or (anchors and _coverage(el, anchors) < 0.6):
                el = el.getparent()
                continue
            outside = set(_content_pieces(root, minimum, exclude=el))
            remaining = sum(map(len, outside)) / page_size
            if remaining <= 0.4 and _link_density(el) < 0.5:
                return el
            el = el.getparent()
    return None


def _page_furniture(el: etree._Element) -> bool:
    """Whether the element is named as the page's footer, header or navigation: never the
    article, however much text it holds (a site map in the footer can outweigh the article,
    and a "template" whose footer was replaced would still show its own article)."""
    names = f"{el.get('class') or ''} {el.get('id') or ''}".lower().replace("_", "-").split()
    return el.tag in ("footer", "nav", "header") or any(
        name.split("-")[0] in _FURNITURE_NAMES for name in names
    )


def _piece_minimum(lang: str) -> int:
    return 15 if lang == "zh" else 40


def _content_pieces(root: etree._Element, minimum: int,
                    exclude: etree._Element | None = None) -> list[str]:
    """Text pieces outside links, scripts and styles (and ``exclude``'s content) long enough to
    be content."""
    pieces: list[str] = []

    def walk(el: etree._Element) -> None:
        skip = not isinstance(el.tag, str) or el.tag in _SKIP_TAGS or el.tag == "a"
        if not skip and el is not exclude:
            if el.text:
                pieces.append(_squash(el.text))
            for child in el:
                walk(child)
        if el.tail:
            pieces.append(_squash(el.tail))

    body = root.find("body")
    if body is not None:
        walk(body)
    return [p for p in pieces if len(p) >= minimum]


def shared_content(a: etree._Element, b: etree._Element, lang: str) -> float:
    """Share of the smaller page's content text that also appears verbatim in the other page."""
    minimum = _piece_minimum(lang)
    pieces_a, pieces_b = _content_pieces(a, minimum), _content_pieces(b, minimum)
    if not pieces_a or not pieces_b:
        return 0.0
    set_a, set_b = set(pieces_a), set(pieces_b)
    shared = set_a & set_b
    size = min(sum(map(len, set_a)), sum(map(len, set_b)))
    return sum(map(len, shared)) / size if size else 0.0


# --------------------------------------------------------------------------- transformations


def _serialise(root: etree._Element) -> bytes:
    """UTF-8 bytes of a (modified) tree, with its charset declarations saying so."""
    for meta in root.iter("meta"):
        if meta.get("charset") is not None:
            meta.set("charset", "utf-8")
        elif (meta.get("http-equiv") or "").lower() == "content-type":
            meta.set("content", "text/html; charset=utf-8")
    return lxml.html.tostring(root, encoding="utf-8", doctype="<!DOCTYPE html>")


def _set_text(el: etree._Element, text: str) -> None:
    for child in list(el):
        el.remove(child)
    el.text = text


def _transplant(template: _Page, article: _Page) -> bytes:
    """``template``'s page with its main content replaced by ``article``'s ground truth."""
    root, main = template.fresh_tree()
    assert main is not None
    for child in list(main):
        main.remove(child)
    main.text = "\n"
    # The template's own headline (wherever the page repeats it) becomes the article's.
    replaced = False
    for el in root.iter("meta"):
        # the page's declared headline (extractors read og:title before any heading), whatever
        # it says: left alone, the copy would still announce the template's own article
        key = (el.get("property") or el.get("name") or "").lower()
        if key in _META_TITLES or (
            template.title and _squash(el.get("content") or "") == template.title
        ):
            el.set("content", article.title)
    if template.title:
        for el in root.iter():
            if (isinstance(el.tag, str) and el.tag not in _SKIP_TAGS and len(el) == 0
                    and _squash(el.text or "") == template.title):
                el.text = article.title
                replaced = True
    if not replaced:
        heading = etree.SubElement(main, "h1")
        heading.text = article.title
        heading.tail = "\n"
    for para in article.paragraphs:
        p = etree.SubElement(main, "p")
        p.text = para
        p.tail = "\n"
    title = root.find(".//title")
    if title is not None:
        _set_text(title, article.title)
    return _serialise(root)


def _edit_text(text: str, rng: random.Random, vocabulary: list[str], chinese: bool) -> str:
    """``text`` with about EDIT_RATE of its words (or CJK characters) changed, added or dropped."""
    units = list(text) if chinese else re.split(r"(\s+)", text)
    out: list[str] = []
    for unit in units:
        editable = _CJK.match(unit) if chinese else unit and not unit.isspace()
        if not editable or rng.random() >= EDIT_RATE:
            out.append(unit)
            continue
        operation = rng.choice(("substitute", "insert", "delete"))
        if operation == "substitute":
            out.append(rng.choice(vocabulary))
        elif operation == "insert":
            added = rng.choice(vocabulary)
            out.extend([unit, added] if chinese else [unit, " ", added])
    return "".join(out)


def _edited(page: _Page, rng: random.Random) -> bytes:
    root, main = page.fresh_tree()
    assert main is not None
    chinese = page.lang == "zh"
    source = " ".join(page.paragraphs)
    vocabulary = sorted(set(_CJK.findall(source) if chinese else source.split())) or ["the"]
    for el in main.iter():
        if not isinstance(el.tag, str) or el.tag in _SKIP_TAGS:
            continue
        if el.text:
            el.text = _edit_text(el.text, rng, vocabulary, chinese)
        if el is not main and el.tail:
            el.tail = _edit_text(el.tail, rng, vocabulary, chinese)
    return _serialise(root)


def _link_titles(donor: _Page, rng: random.Random, count: int) -> list[str]:
    words = " ".join(donor.paragraphs)
    titles = []
    for _ in range(count):
        if donor.lang == "zh":
            chars = _CJK.findall(words) or list("新闻")
            start = rng.randrange(max(1, len(chars) - 16))
            titles.append("".join(chars[start : start + rng.randint(8, 16)]))
        else:
            tokens = words.split() or ["news"]
            start = rng.randrange(max(1, len(tokens) - 9))
            titles.append(" ".join(tokens[start : start + rng.randint(5, 9)]).capitalize())
    return titles


def _with_link_block(page: _Page, donor: _Page, rng: random.Random) -> bytes:
    root, main = page.fresh_tree()
    block = etree.Element("div", {"class": "related-links"})
    heading = etree.SubElement(block, "h3")
    heading.text = "相关阅读" if page.lang == "zh" else "Related stories"
    items = etree.SubElement(block, "ul")
    for i, title in enumerate(_link_titles(donor, rng, rng.randint(20, 40))):
        href = f"/related/{i}-{rng.randrange(10**6)}"
        link = etree.SubElement(etree.SubElement(items, "li"), "a", href=href)
        link.text = title
    body = root.find("body")
    if main is not None and main.getparent() is not None and rng.random() < 0.5:
        main.addnext(block)  # a "related" box after the article
    else:
        body.insert(0, block)  # a navigation block at the top
    block.tail = "\n"
    return _serialise(root)


def _with_page_meta(page: _Page, rng: random.Random) -> bytes:
    root, _ = page.fresh_tree()
    stamp = etree.Element("div", {"class": "page-meta"})
    day, hour, minute = rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
    views = rng.randint(100, 999_999)
    if page.lang == "zh":
        stamp.text = f"更新时间：2024-05-{day:02d} {hour:02d}:{minute:02d}  阅读 {views} 次"
    else:
        stamp.text = f"Updated May {day}, 2024 {hour:02d}:{minute:02d} · {views:,} views"
    body = root.find("body")
    body.insert(0, stamp)
    stamp.tail = "\n"
    return _serialise(root)


def _tracking_url(url: str, rng: random.Random) -> str:
    sep = "&" if urlsplit(url).query else "?"
    campaign = rng.choice(("newsletter", "spring_sale", "daily_digest", "share_button"))
    return (
        f"{url}{sep}utm_source={rng.choice(('twitter', 'facebook', 'email'))}"
        f"&utm_medium=social&utm_campaign={campaign}&fbclid=IwAR{rng.randrange(16**12):012x}"
    )


# --------------------------------------------------------------------------- the builder


class _Builder:
    def __init__(self, pool: list[_Page], lang: str, seed: int, per_kind: int) -> None:
        self.pool = sorted(pool, key=lambda p: p.uid)
        self.lang = lang
        self.seed = seed
        self.per_kind = per_kind
        self.articles = [p for p in self.pool if _long_enough(p)]
        self.editable = [p for p in self.articles if p.main_path]
        self.templates = [p for p in self.pool if p.main_path]
        self.by_site: dict[str, list[_Page]] = defaultdict(list)
        for page in self.pool:
            self.by_site[page.site].append(page)

    def rng(self, *parts: object) -> random.Random:
        return random.Random(":".join(map(str, (self.seed, self.lang, *parts))))

    def pair(self, kind: str, label: bool, a: _Page, b: _Page, a_html: bytes, b_html: bytes, *,
             a_url: str | None = None, b_url: str | None = None, b_id: str | None = None,
             a_encoding: str | None = "utf-8", b_encoding: str | None = "utf-8") -> LabelledPair:
        return LabelledPair(
            kind=kind,
            label=label,
            lang=self.lang,
            a_html=a_html,
            b_html=b_html,
            a_url=a_url or a.url,
            b_url=b_url or b.url,
            a_id=a.uid,
            b_id=b_id or b.uid,
            encodings=(a_encoding, b_encoding),
        )

    def build(self) -> list[LabelledPair]:
        return [
            *self.same_article_template(),
            *self.edited(),
            *self.extra_block(),
            *self.tracking_url(),
            *self.dynamic_template(),
            *self.same_template(),
            *self.same_site(),
            *self.unrelated(),
        ]

    def _cycle(self, pages: list[_Page], kind: str) -> Iterator[tuple[int, _Page]]:
        if not pages:
            return
        order = list(pages)
        self.rng(kind, "order").shuffle(order)
        for i in range(self.per_kind):
            yield i, order[i % len(order)]

    def _template_for(self, article: _Page, rng: random.Random) -> _Page | None:
        others = [t for t in self.templates if t.site != article.site]
        return rng.choice(others) if others else None

    def same_article_template(self) -> Iterator[LabelledPair]:
        for i, article in self._cycle(self.articles, "same_article_template"):
            rng = self.rng("same_article_template", i)
            template = self._template_for(article, rng)
            if template is None:
                continue
            html = _transplant(template, article)
            url = f"https://{template.site}/syndicated/{rng.randrange(10**8)}"
            yield self.pair("same_article_template", True, article, template, article.html, html,
                            b_url=url, b_id=f"{template.uid}+{article.uid}",
                            a_encoding=article.page.encoding)

    def edited(self) -> Iterator[LabelledPair]:
        for i, page in self._cycle(self.editable, "edited"):
            html = _edited(page, self.rng("edited", i))
            yield self.pair("edited", True, page, page, page.html, html, b_url=page.url + "#v2",
                            b_id=f"{page.uid}~edited{i}", a_encoding=page.page.encoding)

    def extra_block(self) -> Iterator[LabelledPair]:
        donors = self.articles or self.pool
        for i, page in self._cycle(self.pool, "extra_block"):
            rng = self.rng("extra_block", i)
            html = _with_link_block(page, rng.choice(donors), rng)
            yield self.pair("extra_block", True, page, page, page.html, html,
                            b_url=page.url + "?view=full", b_id=f"{page.uid}~links{i}",
                            a_encoding=page.page.encoding)

    def tracking_url(self) -> Iterator[LabelledPair]:
        for i, page in self._cycle(self.pool, "tracking_url"):
            url = _tracking_url(page.url, self.rng("tracking_url", i))
            yield self.pair("tracking_url", True, page, page, page.html, page.html, b_url=url,
                            a_encoding=page.page.encoding, b_encoding=page.page.encoding)

    def dynamic_template(self) -> Iterator[LabelledPair]:
        for i, page in self._cycle(self.pool, "dynamic_template"):
            rng = self.rng("dynamic_template", i)
            yield self.pair("dynamic_template", True, page, page, _with_page_meta(page, rng),
                            _with_page_meta(page, rng), b_url=_tracking_url(page.url, rng),
                            b_id=f"{page.uid}~stamp{i}")

    def same_template(self) -> Iterator[LabelledPair]:
        for i, article in self._cycle(self.articles, "same_template"):
            rng = self.rng("same_template", i)
            template = self._template_for(article, rng)
            if template is None:
                continue
            html = _transplant(template, article)
            b_id = f"{template.uid}+{article.uid}"
            if i % 2 == 0 or len(self.articles) < 2:  # the template's own page vs another article
                if not self._distinct(template, article):
                    continue
                yield self.pair("same_template", False, template, template, template.html, html,
                                b_id=b_id, b_url=f"https://{template.site}/s/{i}",
                                a_encoding=template.page.encoding)
                continue
            other = rng.choice([a for a in self.articles if a.uid != article.uid])
            if not self._distinct(other, article):
                continue
            other_html = _transplant(template, other)
            yield self.pair("same_template", False, template, template, other_html, html, a_url=f"https://{template.site}/a/{i}",
                            b_url=f"https://{template.site}/b/{i}",
                            b_id=b_id)

    def _distinct(self, a: _Page, b: _Page) -> bool:
        return shared_content(a.root, b.root, self.lang) < 0.3 and a.title != b.title

    def same_site(self) -> Iterator[LabelledPair]:
        candidates = []
        for site in sorted(self.by_site):
            pages = self.by_site[site]
            candidates += [(a, b) for i, a in enumerate(pages) for b in pages[i + 1 :]]
        self.rng("same_site").shuffle(candidates)
        made = 0
        for a, b in candidates:
            if made >= self.per_kind:
                break
            if a.html == b.html or not self._distinct(a, b):
                continue
            made += 1
            yield self.pair("same_site", False, a, b, a.html, b.html,
                            a_encoding=a.page.encoding, b_encoding=b.page.encoding)

    def unrelated(self) -> Iterator[LabelledPair]:
        rng = self.rng("unrelated")
        made = attempts = 0
        while made < self.per_kind and attempts < self.per_kind * 10 and len(self.pool) > 1:
            attempts += 1
            a, b = rng.sample(self.pool, 2)
            if a.site == b.site or not self._distinct(a, b):
                continue
            made += 1
            yield self.pair("unrelated", False, a, b, a.html, b.html,
                            a_encoding=a.page.encoding, b_encoding=b.page.encoding)


def _long_enough(page: _Page) -> bool:
    """Articles with enough ground-truth text to be worth deduplicating (80 words / 200 chars)."""
    text = " ".join(page.paragraphs)
    if page.lang == "zh":
        return len(_CJK.findall(text)) >= 200
    return len(text.split()) >= 80


def _natural_pairs(pages: list[_Page], langs: set[str]) -> Iterator[LabelledPair]:
    by_key = {(p.page.source, p.page.id): p for p in pages}
    for key_a, key_b in NATURAL_PAIRS:
        a, b = by_key.get(key_a), by_key.get(key_b)
        if a is None or b is None or a.lang not in langs:
            continue
        yield LabelledPair("natural", True, a.lang, a.html, b.html, a.url, b.url, a.uid, b.uid,
                           (a.page.encoding, b.page.encoding))
