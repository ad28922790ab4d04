"""Families read from the evaluation corpora at run time (nothing of them is copied here).

- ``multilang_<lang>``: real articles of many sites in German, Spanish, French and Polish
  (``multilang-pages``), the smaller languages together in ``multilang_other``; pages of one
  site follow each other.
- ``articles_other_langs``: the non-English, non-Chinese articles of ``readability-test-pages``
  and ``article-extraction-benchmark`` (Spanish, Portuguese, Russian, Korean, Japanese...).
- ``unknown_language``: real English articles (ground-truth text) with every letter replaced by
  a fixed substitution, so the words keep their natural frequencies but match no stop-word list,
  wrapped in one blog template whose words are substituted too.

Every function raises :class:`~corpora.CorporaMissing` when the corpora are absent.
"""

from __future__ import annotations

import random
import string
from collections import defaultdict
from pathlib import Path

from corpora import iter_pages, require_corpora_dir

from .chrome import Site, esc, render, slug

Page = tuple[str, str | bytes]

MULTILANG = "multilang-pages"
OWN_FAMILY_MIN = 10  # languages with fewer pages share multilang_other
OTHER_LANG_SOURCES = ("readability-test-pages", "article-extraction-benchmark")
SKIPPED_LANGS = ("en", "zh", "und")
UNKNOWN_SOURCE = "article-extraction-benchmark"
UNKNOWN_PAGES = 60  # a site has many pages: the pairs, not the pages, set the odds
UNKNOWN_WORDS = (200, 1500)  # articles of ordinary length only


def _url(page, fallback_host: str) -> str:
    return page.url or f"https://{fallback_host}/{page.source}/{page.id}"


def multilang_families(root: Path | None = None) -> dict[str, list[Page]]:
    """``multilang_<lang>`` for each language with OWN_FAMILY_MIN pages, the rest together."""
    root = root or require_corpora_dir()
    by_lang: dict[str, list] = defaultdict(list)
    for page in iter_pages([MULTILANG], root=root):
        by_lang[page.lang].append(page)
    families: dict[str, list[Page]] = {}
    rest = []
    for lang in sorted(by_lang):
        if len(by_lang[lang]) >= OWN_FAMILY_MIN:
            families[f"multilang_{lang}"] = by_lang[lang]
        else:
            rest.extend(by_lang[lang])
    if rest:
        families["multilang_other"] = rest
    return {
        name: [(_url(p, p.meta.get("site") or "example.org"), p.html)
               for p in sorted(pages, key=lambda p: (p.meta.get("site") or "", p.id))]
        for name, pages in families.items()
    }


def articles_other_langs(root: Path | None = None) -> list[Page]:
    """Articles in languages without a stop-word list, from the two ground-truth sources."""
    root = root or require_corpora_dir()
    pages = [p for p in iter_pages(OTHER_LANG_SOURCES, root=root)
             if p.lang.split("-")[0] not in SKIPPED_LANGS]
    return [(_url(p, "articles.example.org"), p.html) for p in pages]


# --------------------------------------------------------------------------- unknown_language


def cipher() -> dict[str, str]:
    """The fixed letter substitution (lower and upper case) that makes the unknown language."""
    letters = list(string.ascii_lowercase)
    random.Random("hardneg:unknown_language").shuffle(letters)
    table = dict(zip(string.ascii_lowercase, letters, strict=True))
    table.update({k.upper(): v.upper() for k, v in table.items()})
    return table


def encode(text: str, table: dict[str, str] | None = None) -> str:
    """``text`` in the unknown language."""
    return text.translate(str.maketrans(table or cipher()))


BLOG = Site(
    name="The Evening Ledger",
    domain="www.eveningledger.example",
    tagline="News and analysis from around the world",
    nav=("World", "Politics", "Business", "Technology", "Science", "Culture", "Sport", "Opinion"),
    related_heading="More stories",
)


def unknown_language(root: Path | None = None) -> list[Page]:
    """UNKNOWN_PAGES real English articles, letter-substituted, in one substituted template."""
    root = root or require_corpora_dir()
    table = cipher()
    site = BLOG.mapped(lambda text: encode(text, table))
    chosen = []
    for page in iter_pages([UNKNOWN_SOURCE], with_truth_text=True, root=root):
        if page.lang != "en":
            continue
        text = page.truth_text.strip()
        if UNKNOWN_WORDS[0] <= len(text.split()) <= UNKNOWN_WORDS[1]:
            chosen.append(text)
        if len(chosen) == UNKNOWN_PAGES:
            break
    headlines = [encode(" ".join(text.split()[:9]).rstrip(".,;:"), table) for text in chosen]
    byline = encode("By our correspondent", table)
    share = encode("Share this article", table)
    pages = []
    for index, text in enumerate(chosen):
        paragraphs = "".join(f"<p>{esc(encode(line, table))}</p>"
                             for line in text.splitlines() if line.strip())
        main = (f'<article><h1>{esc(headlines[index])}</h1><p class="byline">{esc(byline)}</p>'
                f'<div class="article-body">{paragraphs}</div>'
                f'<p class="share"><a href="#">{esc(share)}</a></p></article>')
        related = [(headlines[i], f"/story/{i + 1}") for i in range(len(chosen))
                   if i != index][index % 5:index % 5 + 4]
        pages.append((
            f"https://{BLOG.domain}/story/{index + 1}-{slug(headlines[index])[:40]}",
            render(site, title=headlines[index], main=main, related=related,
                   breadcrumbs=[(site.nav[index % len(site.nav)], "/section")]),
        ))
    return pages
