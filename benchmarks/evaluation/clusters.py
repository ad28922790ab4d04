"""Near-duplicate clusters of full pages built from the evaluation corpora, for real crawls.

A cluster is one corpus article served five ways, with a distinct article beside it:

- ``original``: the page itself (re-serialised as UTF-8, so that one loopback server serves all);
- ``print``: its print version: the headline over the whole article (its ground-truth text);
- ``tracking``: the original's bytes at its URL with tracking parameters added;
- ``navigation``: the original with an added block of 20-40 links (a menu or a "related" box);
- ``edited``: the original with about 2% of its article's words (Chinese: characters) changed;
- ``other``: a different article inside the same page template.

A crawl should receive exactly one of the first five and always the sixth. Everything is
deterministic for a seed, as the labelled pairs are (:mod:`.pairs`, whose page edits these are).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import lxml.html
from lxml import etree

from .pairs import (
    _Builder,
    _edited,
    _load_pages,
    _Page,
    _serialise,
    _tracking_url,
    _transplant,
    _with_link_block,
)

DUPLICATE_KINDS = ("original", "print", "tracking", "navigation", "edited")
DISTINCT_KIND = "other"
KINDS = (*DUPLICATE_KINDS, DISTINCT_KIND)


@dataclass(frozen=True)
class Cluster:
    """One article's pages: ``paths[kind]`` is where ``pages[kind]`` (UTF-8 HTML) is served."""

    lang: str
    article: str  # the corpus page's source/id
    other: str  # the distinct article's source/id
    paths: dict[str, str]
    pages: dict[str, bytes]


def build_clusters(root: Path | None = None, *, langs: tuple[str, ...] = ("en", "zh"),
                   seed: int = 0, per_lang: int = 40) -> list[Cluster]:
    """At most ``per_lang`` clusters per language, numbered in order from 0 across languages."""
    pages = _load_pages(root)
    clusters: list[Cluster] = []
    for lang in langs:
        builder = _Builder([p for p in pages if p.lang == lang], lang, seed, per_lang)
        articles = list(builder.editable)  # long enough, with their main content found
        rng = builder.rng("clusters")
        rng.shuffle(articles)
        # Every article is in one cluster only, as its article or as its distinct one: an article
        # in two clusters would make them one.
        chosen = articles[:min(per_lang, len(articles) // 2)]
        used = {article.uid for article in chosen}
        for article in chosen:
            number = len(clusters)
            pick = builder.rng("clusters", number)
            candidates = [a for a in builder.articles if a.uid not in used]
            pick.shuffle(candidates)
            other = next((a for a in candidates if builder._distinct(a, article)), None)
            if other is None:
                continue
            used.add(other.uid)
            clusters.append(_cluster(number, article, other, pick, builder))
    return clusters


def _cluster(number: int, article: _Page, other: _Page, rng: random.Random,
             builder: _Builder) -> Cluster:
    story = f"/{number}/story"
    original = _serialise(article.fresh_tree()[0])
    donor = rng.choice(builder.articles or builder.pool)
    paths = {
        "original": story,
        "print": f"{story}/print",
        "tracking": _tracking_url(story, rng),
        "navigation": f"{story}?view=full",
        "edited": f"/{number}/story-updated",
        "other": f"/{number}/another-story",
    }
    pages = {
        "original": original,
        "print": print_version(article),
        "tracking": original,
        "navigation": _with_link_block(article, donor, rng),
        "edited": _edited(article, rng),
        "other": _transplant(article, other),
    }
    return Cluster(article.lang, article.uid, other.uid, paths, pages)


def print_version(page: _Page) -> bytes:
    """The page as its site prints it: the page's title, the headline and the whole article (its
    ground-truth paragraphs), and a line saying where it was printed from; no navigation,
    sidebars, comments or footer."""
    document = lxml.html.document_fromstring(
        "<html><head><meta charset='utf-8'><title></title></head><body></body></html>"
    )
    title = page.root.find(".//title")
    document.find(".//title").text = (
        title.text_content() if title is not None else "") or page.title
    body = document.find("body")
    etree.SubElement(body, "h1").text = page.title
    article = etree.SubElement(body, "div", {"class": "print-article"})
    for paragraph in page.paragraphs:
        etree.SubElement(article, "p").text = paragraph
    etree.SubElement(body, "p", {"class": "printed-from"}).text = f"Printed from {page.site}"
    return _serialise(document)
