"""Main-text extraction on real articles interrupted mid-way: token F1 with a box inserted.

The development pages hold few articles cut in two by an inline box, so the rules that carry the
article over one (those CONTINUITY_OFF turns off) move none of them. Here each full-text
ground-truth page of ../shared/corpora (those benchmarks/extraction.py scores) gets a box
inserted after the middle one of its article paragraphs (the ``<p>`` whose text is in the ground
truth, four or more of them): an advertisement, a box of related links (hinted, and bare), a
list of 40 links (a reference page's works), a figure with a long caption, an embedded post, a
newsletter signup. With ``split``, the paragraphs after the box also move into a sibling wrapper
of the same tag and class (an article body in two wrappers). The ground truth does not change:
an extractor that stops at the box loses recall, one that keeps the box loses a little
precision.

Every page is scored as served (serialised the same way, "none") and with each box; columns are
ours, ours without the continuity rules, and the peers. "cut" counts pages whose recall falls by
more than 0.2 from the unbroken page: articles lost after the box.

    .venv/bin/python benchmarks/extraction_interrupted.py [--no-peers] [--split]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
from collections.abc import Callable

from corpora import corpora_dir
from extraction import Page, _squash, load_pages, prf
from lxml import etree

from scrapy_simhash.extract import builtin, extract_main_text, get_extractor, parse_html

PEERS = ("trafilatura", "readability")
MIN_PARAGRAPHS = 4
_TEASERS = [
    "Council backs plan to reopen the harbour baths next summer",
    "Five things we learned from the budget debate on Tuesday",
    "Why the old ferry route may return after ten years away",
    "Local bakery wins national award for its rye loaf",
    "Rail works to close the coast line for two weekends",
]
_LINKS = "".join(f"<li><a href='/news/{n}'>{title}</a></li>" for n, title in enumerate(_TEASERS))
BOXES: dict[str, str] = {
    "advertisement": (
        "<div class='ad-slot'><span>Advertisement</span>"
        "<a href='https://ads.example.com/c'><img src='banner.png'></a></div>"
    ),
    "related links": f"<div class='related-stories'><h3>Related</h3><ul>{_LINKS}</ul></div>",
    "bare links": f"<div><h3>Read more</h3><ul>{_LINKS}</ul></div>",
    "long link list": "<ul>" + "".join(
        f"<li><a href='/works/{n}'>Work number {n} of the catalogue</a></li>" for n in range(40)
    ) + "</ul>",
    "figure": (
        "<figure><img src='photo.jpg'><figcaption>Swimmers wait at the gate of the harbour "
        "baths on the first warm morning of the year, before the doors open at eight. "
        "Photo: Ann Lee / Agency</figcaption></figure>"
    ),
    "embedded post": (
        "<blockquote class='twitter-tweet'><p>The baths are back! See you all in July "
        "<a href='https://social.example.com/hashtag/baths'>#baths</a></p>&mdash; Harbour "
        "Swimmers (@harbourswim) <a href='https://social.example.com/s/1'>May 1, 2020</a>"
        "</blockquote>"
    ),
    "signup": (
        "<div class='signup-box'><h3>Get the morning briefing</h3><p>The day's top stories "
        "in your inbox every morning.</p><form><input type='email' placeholder='Email'>"
        "<button>Sign up</button></form></div>"
    ),
}
CONTINUITY_OFF = {
    "BRIDGE_MAX_ITEMS": 0,
    "BRIDGE_UP_LEVELS": 0,
    "WRAPPERS_WEIGHED_TOGETHER": False,
    "UNNAMED_WRAPPERS_BRIDGED": False,
    "NAMED_WRAPPER_TEXT_MASS": False,
    "MIXED_WRAPPERS_BRIDGED": False,
    "SHORT_STRETCHES_CROSSED": False,
    "OTHER_KINDS_CROSSED": False,
}


def article_paragraphs(root, truth: str) -> list:
    """The page's ``<p>`` elements whose text (some words of it) is in the ground truth."""
    squashed = _squash(truth)
    found = []
    for element in root.iter("p"):  # plain etree elements: no text_content()
        text = _squash("".join(element.itertext()))
        if len(text) >= 40 and text[:200] in squashed:
            found.append(element)
    return found


def interrupted(root, truth: str, box: str | None, split: bool) -> str | None:
    """The page's HTML with ``box`` after its middle article paragraph (None: as served), or
    None when the page has too few article paragraphs to cut."""
    root = copy.deepcopy(root)
    paragraphs = article_paragraphs(root, truth)
    if len(paragraphs) < MIN_PARAGRAPHS:
        return None
    if box is not None:
        middle = paragraphs[len(paragraphs) // 2 - 1]
        parent = middle.getparent()
        if parent is None:
            return None
        inserted = etree.fromstring(box, etree.HTMLParser()).find(".//body")[0]
        middle.addnext(inserted)
        if split and parent.tag not in ("body", "html") and parent.getparent() is not None:
            # the article's paragraphs after the box go to the new wrapper; what follows them in
            # the old one (a footer, links) follows the new wrapper, unwrapped
            rest = etree.Element(parent.tag, {k: v for k, v in parent.attrib.items() if k != "id"})
            siblings = list(inserted.itersiblings())
            last = max((i for i, s in enumerate(siblings) if s in paragraphs), default=-1)
            for sibling in siblings[: last + 1]:
                rest.append(sibling)
            parent.remove(inserted)
            parent.addnext(inserted)
            inserted.addnext(rest)
            for sibling in reversed(siblings[last + 1 :]):
                rest.addnext(sibling)
    return etree.tostring(root, encoding="unicode", method="html")


def ours_with(settings: dict[str, object]) -> Callable[[str], str]:
    def extract(html: str) -> str:
        saved = {name: getattr(builtin, name) for name in settings}
        for name, value in settings.items():
            setattr(builtin, name, value)
        try:
            return extract_main_text(html, include_title=False)
        finally:
            for name, value in saved.items():
                setattr(builtin, name, value)

    return extract


def peer_extractors() -> dict[str, Callable[[str], str]]:
    """The peers, each called on a page's HTML alone."""
    extractors: dict[str, Callable[[str], str]] = {}
    for name in PEERS:
        peer = get_extractor(name)
        extractors[name] = lambda html, peer=peer: peer(html, None, None)
    return extractors


def compared_extractors(
    rule: str, off: dict[str, object], with_peers: bool = True
) -> dict[str, Callable[[str], str]]:
    """Ours, ours with ``rule`` off (``off``: the settings that turn it off), and the peers."""
    extractors = {"ours": ours_with({}), f"ours, no {rule}": ours_with(off)}
    if with_peers:
        extractors.update(peer_extractors())
    return extractors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-peers", action="store_true", help="only ours")
    parser.add_argument("--split", action="store_true", help="also split the wrapper at the box")
    parser.add_argument("--cuts", action="store_true", help="list the pages ours cuts")
    args = parser.parse_args(argv)
    if corpora_dir() is None:
        print("corpora not found (set SIMHASH_CORPORA)", file=sys.stderr)
        return 1

    extractors = compared_extractors("continuity", CONTINUITY_OFF, not args.no_peers)

    pages: list[tuple[Page, object]] = []
    for page in load_pages():
        if page.truth is None:
            continue
        root = parse_html(page.html, page.encoding)
        if root is not None and len(article_paragraphs(root, page.truth)) >= MIN_PARAGRAPHS:
            pages.append((page, root))
    kinds: list[str | None] = [None, *BOXES]
    scores: dict[tuple[str, str], list[tuple[float, float]]] = {}  # (kind, extractor) -> (F1, R)
    base_recall: dict[tuple[str, str], float] = {}
    for page, root in pages:
        for kind in kinds:
            html = interrupted(root, page.truth, BOXES[kind] if kind else None, args.split)
            if html is None:
                continue
            for name, extract in extractors.items():
                try:
                    output = extract(html)
                except Exception:  # a peer that fails on a page scores 0 there
                    output = ""
                _, recall, f1 = prf(output, page.truth)
                scores.setdefault((kind or "none", name), []).append((f1, recall))
                if kind is None:
                    base_recall[(page.source + page.id, name)] = recall
                elif base_recall.get((page.source + page.id, name), 0.0) - recall > 0.2:
                    scores.setdefault((kind + " cut", name), []).append((1.0, 0.0))
                    if args.cuts and name == "ours":
                        print(f"  cut: {kind}: {page.source}/{page.id}", file=sys.stderr)

    names = list(extractors)
    width = max(len(name) for name in names) + 2
    print(f"{len(pages)} pages with {MIN_PARAGRAPHS}+ article paragraphs; split={args.split}")
    print(f"{'box':<16}" + "".join(f"{name:>{width}}" for name in names) + "   (F1; cut)")
    for kind in ["none", *BOXES]:
        cells = []
        for name in names:
            values = scores.get((kind, name), [])
            cut = len(scores.get((kind + " cut", name), []))
            mean = statistics.fmean(f1 for f1, _ in values) if values else float("nan")
            cells.append(f"{mean:.3f};{cut:>3}")
        print(f"{kind:<16}" + "".join(f"{cell:>{width}}" for cell in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
