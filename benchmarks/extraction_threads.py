"""Main-text extraction on real articles made into a thread or a blog's front page.

The development pages hold two forum threads and no blog front page, so the rule that tells
them apart (``builtin.THREADS_KEPT_WHOLE``: dated lines naming several people are a thread,
kept whole; one name throughout is a blog's front page, whose main text is its newest post)
moves none of them. Here each full-text ground-truth page of ../shared/corpora with six or more
article paragraphs in one wrapper (the ``<p>`` whose text is in the ground truth, as
benchmarks/extraction_interrupted.py finds them) has them regrouped into posts of two, each a
``<div class="post">`` opened by a dated line ("Posted by Ann on 2019-05-01 10:21"), in the
page's own template:

- thread: each post signed by someone else; the main text is every post (the page's truth);
- blog: every post signed by one author; the main text is the newest (first) post alone.

Token F1 against that main text (the dated lines count against precision), mean over pages, and
"whole": pages with recall 0.8 or more. Columns: ours, ours with ``THREADS_KEPT_WHOLE`` off (every
list of posts read as a blog's), and the peers, which have no such rule.

    .venv/bin/python benchmarks/extraction_threads.py [--no-peers]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys

from corpora import corpora_dir
from extraction import load_pages, prf
from extraction_interrupted import article_paragraphs, compared_extractors
from lxml import etree

from scrapy_simhash.extract import parse_html

MIN_PARAGRAPHS = 6
POST_PARAGRAPHS = 2
NAMES = ("Ann", "Bob", "Chen", "Dara", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea")


def as_posts(root, truth: str, one_author: bool) -> tuple[str, str] | None:
    """(HTML, main text) of the page with its article paragraphs regrouped into posts, or None
    when they are too few or not siblings of one wrapper."""
    root = copy.deepcopy(root)
    paragraphs = article_paragraphs(root, truth)
    if len(paragraphs) < MIN_PARAGRAPHS:
        return None
    parent = paragraphs[0].getparent()
    if parent is None or any(p.getparent() is not parent for p in paragraphs):
        return None
    first_post = []
    for number, index in enumerate(range(0, len(paragraphs), POST_PARAGRAPHS)):
        group = paragraphs[index : index + POST_PARAGRAPHS]
        post = etree.Element("div", {"class": "post"})
        name = NAMES[0] if one_author else NAMES[number % len(NAMES)]
        meta = etree.SubElement(post, "div", {"class": "post-meta"})
        meta.text = f"Posted by {name} on 2019-05-{number + 1:02d} 10:{20 + number % 40:02d}"
        group[0].addprevious(post)
        for paragraph in group:
            paragraph.tail = None
            post.append(paragraph)
        if number == 0:
            first_post = ["".join(p.itertext()) for p in group]
    html = etree.tostring(root, encoding="unicode", method="html")
    return html, (truth if not one_author else "\n".join(first_post))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-peers", action="store_true", help="only ours")
    args = parser.parse_args(argv)
    if corpora_dir() is None:
        print("corpora not found (set SIMHASH_CORPORA)", file=sys.stderr)
        return 1
    extractors = compared_extractors(
        "thread rule", {"THREADS_KEPT_WHOLE": False}, not args.no_peers
    )

    scores: dict[tuple[str, str], list[tuple[float, float]]] = {}
    pages = 0
    for page in load_pages():
        if page.truth is None:
            continue
        root = parse_html(page.html, page.encoding)
        if root is None:
            continue
        built = {kind: as_posts(root, page.truth, kind == "blog") for kind in ("thread", "blog")}
        if any(value is None for value in built.values()):
            continue
        pages += 1
        for kind, (html, main_text) in built.items():
            for name, extract in extractors.items():
                try:
                    output = extract(html)
                except Exception:  # a peer that fails on a page scores 0 there
                    output = ""
                _, recall, f1 = prf(output, main_text)
                scores.setdefault((kind, name), []).append((f1, recall))

    names = list(extractors)
    width = max(len(name) for name in names) + 2
    print(f"{pages} pages with {MIN_PARAGRAPHS}+ article paragraphs in one wrapper")
    print(f"{'page':<8}" + "".join(f"{name:>{width}}" for name in names) + "   (F1; whole)")
    for kind in ("thread", "blog"):
        cells = []
        for name in names:
            values = scores.get((kind, name), [])
            whole = sum(recall >= 0.8 for _, recall in values)
            mean = statistics.fmean(f1 for f1, _ in values) if values else float("nan")
            cells.append(f"{mean:.3f};{whole:>4}")
        print(f"{kind:<8}" + "".join(f"{cell:>{width}}" for cell in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
