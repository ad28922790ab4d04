"""The labelled pair builder: deterministic, every kind present in both languages, sane labels."""

from __future__ import annotations

from collections import Counter

import pytest

from scrapy_simhash.evaluation import NEGATIVE_KINDS, POSITIVE_KINDS, build_pairs, count_kinds

PER_KIND = 6  # small: the builder's cost is parsing the corpora, not the pair count


@pytest.fixture(scope="module")
def pairs(corpora_root):
    return build_pairs(corpora_root, seed=0, per_kind=PER_KIND)


def test_same_seed_gives_identical_pairs(corpora_root, pairs):
    again = build_pairs(corpora_root, seed=0, per_kind=PER_KIND)
    assert again == pairs


def test_another_seed_gives_other_pairs(corpora_root, pairs):
    other = build_pairs(corpora_root, seed=1, per_kind=PER_KIND)
    assert [(p.a_id, p.b_id) for p in other] != [(p.a_id, p.b_id) for p in pairs]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_kind_has_pairs_in_each_language(pairs, lang):
    counts = count_kinds(pairs)
    for kind in (*POSITIVE_KINDS, *NEGATIVE_KINDS):
        if kind == "natural":
            continue  # only the pairs the corpora happen to hold
        assert counts.get((lang, kind), 0) > 0, kind


def test_labels_follow_kinds(pairs):
    for pair in pairs:
        assert pair.label == (pair.kind in POSITIVE_KINDS)


def test_documents_are_html_bytes(pairs):
    for pair in pairs:
        assert isinstance(pair.a_html, bytes) and isinstance(pair.b_html, bytes)
        assert b"<" in pair.a_html[:2000] and b"<" in pair.b_html[:2000]


def test_tracking_url_pairs_differ_only_in_url(pairs):
    tracking = [p for p in pairs if p.kind == "tracking_url"]
    assert tracking
    for pair in tracking:
        assert pair.a_html == pair.b_html
        assert pair.a_url != pair.b_url and "utm_source=" in pair.b_url


def test_transplanted_article_text_is_in_the_new_template(pairs):
    for pair in (p for p in pairs if p.kind == "same_article_template"):
        article_id = pair.b_id.split("+", 1)[1]
        assert article_id == pair.a_id
        assert pair.a_html != pair.b_html


def test_negatives_pair_different_pages(pairs):
    for pair in (p for p in pairs if not p.label):
        assert pair.a_html != pair.b_html
        assert pair.a_id != pair.b_id or pair.kind == "same_template"


def test_edits_change_about_two_percent(pairs):
    edited = [p for p in pairs if p.kind == "edited"]
    assert edited
    changed = Counter(p.a_html != p.b_html for p in edited)
    assert changed[True] == len(edited)


def test_a_charset_in_a_comment_or_content_attribute_declares_nothing():
    from scrapy_simhash.evaluation.pairs import _decode

    page = (
        '<html><head><!-- <meta charset="windows-1252"> -->'
        '<meta name="description" content="charset=windows-1252">'
        '<meta charset="utf-8"></head><body><p>café naïve</p></body></html>'
    ).encode()
    assert "café naïve" in _decode(page, None)
    assert "café naïve" in _decode(page, "UTF8")  # a corpus label is a label, not a codec name
