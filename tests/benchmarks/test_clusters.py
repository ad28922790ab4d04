"""The near-duplicate clusters (``benchmarks/clusters.py``): deterministic, one article per cluster,
the pages a crawl must tell apart, and a real crawl of them scored as the benchmark scores it."""

from __future__ import annotations

import re
from itertools import combinations

import pytest
from clusters import crawl, score
from evaluation.clusters import DISTINCT_KIND, DUPLICATE_KINDS, KINDS, build_clusters
from evaluation.pairs import _CJK, _load_pages

from scrapy_simhash import extract_main_text, is_near_duplicate

PER_LANG = 3


@pytest.fixture(scope="module")
def clusters(corpora_root):
    return build_clusters(corpora_root, seed=0, per_lang=PER_LANG)


def _units(text: str, lang: str) -> list[str]:
    return _CJK.findall(text) if lang == "zh" else re.findall(r"\w+", text.lower())


def test_the_same_seed_gives_the_same_clusters_and_another_seed_others(corpora_root, clusters):
    assert build_clusters(corpora_root, seed=0, per_lang=PER_LANG) == clusters
    other = build_clusters(corpora_root, seed=1, per_lang=PER_LANG)
    assert [c.article for c in other] != [c.article for c in clusters]


def test_each_article_is_in_one_cluster_only_and_each_page_has_its_own_path(clusters):
    assert {c.lang for c in clusters} == {"en", "zh"}
    articles = [c.article for c in clusters] + [c.other for c in clusters]
    assert len(set(articles)) == len(articles)
    paths = [c.paths[kind] for c in clusters for kind in KINDS]
    assert len(set(paths)) == len(paths)


def test_the_tracking_url_serves_the_original_bytes(clusters):
    for cluster in clusters:
        assert cluster.pages["tracking"] == cluster.pages["original"]
        assert cluster.paths["tracking"].startswith(cluster.paths["original"] + "?utm_")


def test_the_print_version_holds_the_whole_article_and_no_chrome(corpora_root, clusters):
    pages = {page.uid: page for page in _load_pages(corpora_root)}
    for cluster in clusters:
        article = pages[cluster.article]
        truth = _units(" ".join(article.paragraphs), cluster.lang)
        printed = _units(extract_main_text(cluster.pages["print"], "utf-8"), cluster.lang)
        missing = set(truth) - set(printed)  # (some ground truths keep a comment box's labels)
        assert len(missing) <= 0.1 * len(set(truth)), (cluster.article, sorted(missing)[:10])
        assert len(cluster.pages["print"]) < len(cluster.pages["original"])


def test_a_clusters_distinct_article_is_judged_distinct_from_each_of_its_pages(clusters):
    for cluster in clusters:
        for kind in DUPLICATE_KINDS:
            assert not is_near_duplicate(cluster.pages[kind], cluster.pages[DISTINCT_KIND]), (
                cluster.article, kind)


def test_a_real_crawl_keeps_one_page_of_a_cluster_and_its_distinct_article(clusters):
    # The clusters whose five pages the library judges near duplicates of each other, two by
    # two: a crawl keeps exactly one of them whatever order the pages arrive in.
    whole = [
        cluster for cluster in clusters
        if all(is_near_duplicate(cluster.pages[a], cluster.pages[b])
               for a, b in combinations(DUPLICATE_KINDS, 2))
    ]
    assert len(whole) >= 2, "too few clusters the library judges whole"
    kept = crawl(whole)
    result = score(whole, kept)
    assert result == {"clusters": len(whole), "right": len(whole), "others lost": 0,
                      "clusters lost": 0, "duplicates kept": {}}, kept
