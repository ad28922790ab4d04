"""_speedups: the compiled walk and block statistics give exactly what the Python code gives.

The Python versions (``segment.walk_python``, ``builtin.text_units``, ``builtin._punctuation``)
are the reference; each test runs both on the same input: every corpus page (as our parser and
as Scrapy's parsel build it), generated markup and arbitrary Unicode text.
"""

from __future__ import annotations

import dataclasses
from unittest import mock

import pytest
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree
from parsel import Selector
from speedups import compiled_module, needs, require_built

from scrapy_simhash.extract import builtin, segment
from scrapy_simhash.extract.parsing import parse_html, to_text

_speedups = compiled_module("scrapy_simhash.extract._speedups")


def test_compiled_module_is_built():
    """CI sets SIMHASH_REQUIRE_SPEEDUPS=1: a build that silently left the module out fails."""
    require_built(_speedups, "scrapy_simhash.extract._speedups", "the Python walk")
    assert segment._compiled_walk is _speedups.walk
    assert builtin._compiled_block_stats is _speedups.block_stats
    assert builtin._compiled_marker_flags is _speedups.marker_flags
    assert builtin._compiled_child_runs is _speedups.child_runs
    assert builtin._compiled_base_scores is _speedups.base_scores


needs_speedups = needs(_speedups)


def _python_segment(root, **options) -> segment.Segmented:
    with mock.patch.object(segment, "_compiled_walk", None):
        return segment.segment(root, **options)


@pytest.fixture(scope="module")
def corpus_segments(corpora_root) -> list[tuple[str, segment.Segmented]]:
    """Every corpus page our parser reads, segmented by the Python walk: (its id, its blocks)."""
    segmented = []
    for page in iter_pages(root=corpora_root):
        root = parse_html(page.html, page.encoding)
        if root is not None:
            segmented.append((page.id, _python_segment(root)))
    assert len(segmented) > 400
    return segmented


def _assert_same_segments(root, **options) -> None:
    compiled = dataclasses.asdict(segment.segment(root, **options))
    python = dataclasses.asdict(_python_segment(root, **options))
    for name, value in python.items():
        assert compiled[name] == value, name


OPTIONS = ({}, {"keep_hidden": True}, {"max_blocks": 40})


@needs_speedups
def test_walk_equals_python_walk_on_every_corpus_page(corpora_root):
    pages = 0
    for page in iter_pages(root=corpora_root):
        ours = parse_html(page.html, page.encoding)
        if ours is None:
            continue
        scrapys = Selector(text=to_text(page.html, page.encoding)).root  # keeps comments
        _assert_same_segments(scrapys)
        for options in OPTIONS:  # the options change the walk, not the tree it walks
            _assert_same_segments(ours, **options)
        pages += 1
    assert pages > 400


@needs_speedups
def test_block_stats_equal_python_on_every_corpus_block(corpus_segments):
    texts = [text for _, segmented in corpus_segments for text in segmented.block_text]
    assert len(texts) > 10_000
    units, marks = _speedups.block_stats(texts, builtin.CJK_HALF_WEIGHT)
    assert units == [builtin.text_units(text) for text in texts]
    assert marks == [builtin._punctuation(text) for text in texts]


@needs_speedups
def test_article_equals_python_article_on_every_corpus_page(corpora_root):
    pages = with_text = 0
    for page in iter_pages(root=corpora_root):
        root = parse_html(page.html, page.encoding)
        if root is None:
            continue
        compiled = builtin.article_from_tree(root, first_entry_only=False)
        with (
            mock.patch.object(segment, "_compiled_walk", None),
            mock.patch.object(builtin, "_compiled_block_stats", None),
            mock.patch.object(builtin, "_compiled_marker_flags", None),
            mock.patch.object(builtin, "_compiled_child_runs", None),
            mock.patch.object(builtin, "_compiled_base_scores", None),
        ):
            python = builtin.article_from_tree(root, first_entry_only=False)
        assert compiled == python, page.id
        pages += 1
        with_text += bool(compiled.text())
    assert pages > 400
    assert with_text > 400  # real articles compared, not empty ones


# Generated markup: the walk's corner cases (blank and split text, comments and processing
# instructions between text, links with and without href, hidden and styled elements, <br>,
# skipped subtrees with tails, CDATA-less HTML entities, deep and empty nesting).
_TAGS = ["div", "p", "span", "a", "b", "br", "h1", "li", "ul", "table", "td", "script",
         "nav", "head", "title", "section", "em"]  # fmt: skip
_ATTRIBUTES = ['', ' href="/x"', ' href="javascript:void(0)"', ' href=""', ' hidden',
               ' style="display: none"', ' style="color: red"', ' class="content main"',
               ' id="post-1"', ' class="comments" id="a-b-c-d"', ' class',
               ' class="tab-panel" hidden', ' role="tabpanel" style="display:none"',
               ' class="faq-answer menu" hidden']  # fmt: skip
_TEXTS = ["", " ", "\n  ", "word", " two words. ", "中文，句子。", "\xa0", "&amp; x", "\u3000",
          "a\u2028b", "<!-- c -->", "<?pi x?>", "...", "© 2024"]  # fmt: skip


@st.composite
def _markup(draw, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4 if depth < 4 else 1))):
        if depth < 6 and draw(st.booleans()):
            tag = draw(st.sampled_from(_TAGS))
            attributes = draw(st.sampled_from(_ATTRIBUTES))
            inner = draw(_markup(depth + 1))
            parts.append(f"<{tag}{attributes}>{inner}</{tag}>")
        parts.append(draw(st.sampled_from(_TEXTS)))
    return "".join(parts)


@needs_speedups
@settings(max_examples=300, deadline=None)
@given(_markup())
def test_walk_equals_python_walk_on_generated_markup(body):
    document = f"<html><head><title>t</title></head><body>{body}</body></html>"
    for parser in (
        etree.HTMLParser(remove_comments=True, remove_pis=True),
        etree.HTMLParser(),  # comments and processing instructions stay in the tree
    ):
        root = etree.fromstring(document, parser)
        for options in OPTIONS:
            _assert_same_segments(root, **options)
        _assert_same_segments(root[-1])  # a subtree: the walk stays inside it


@needs_speedups
@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(exclude_categories=()), max_size=40), max_size=8))
def test_block_stats_equal_python_on_arbitrary_text(texts):
    units, marks = _speedups.block_stats(texts, builtin.CJK_HALF_WEIGHT)
    assert units == [builtin.text_units(text) for text in texts]
    assert marks == [builtin._punctuation(text) for text in texts]


@needs_speedups
def test_block_stats_corner_cases():
    texts = ["", " ", "a.b", "end.", "x.\u3000y", "引号”。", "a,\u201d", "\ud800.", "𝔘 x.",
             "\x1c\x1d", "é, è", "2022.01.20", "(a.)"]  # fmt: skip
    units, marks = _speedups.block_stats(texts, builtin.CJK_HALF_WEIGHT)
    assert units == [builtin.text_units(text) for text in texts]
    assert marks == [builtin._punctuation(text) for text in texts]


def _python_markers(text: str) -> int:
    """The bits marker_flags must set: those whose markers builtin's checks find."""
    ascii_text = text.isascii()
    calls = builtin._CALL_TO_ACTION_MARKERS if ascii_text else builtin._CALL_TO_ACTION_MARKERS_WIDE
    legal = builtin._LEGAL_MARKERS_ASCII if ascii_text else builtin._LEGAL_MARKERS
    return (any(marker in text for marker in calls)
            | 2 * any(marker in text for marker in legal))


def _assert_markers_flagged(texts: list[str]) -> None:
    for text, flags in zip(texts, _speedups.marker_flags(texts), strict=True):
        needed = _python_markers(text)
        assert flags & needed == needed, text


@needs_speedups
def test_marker_flags_flag_every_corpus_block_with_a_marker(corpus_segments):
    texts = [text for _, segmented in corpus_segments for text in segmented.block_text]
    _assert_markers_flagged(texts)
    flags = _speedups.marker_flags(texts)
    assert sum(map(bool, flags)) < len(texts) / 5  # (the point: most blocks are not flagged)


_MARKER_TEXT = st.text(alphabet=st.sampled_from(
    list("ewsletrignubcdomyoEWSLTRIGNUBCDOMYPp ©版权许可转载未经举报侵订阅关注扫x")), max_size=30)


@needs_speedups
@settings(max_examples=500, deadline=None)
@given(st.lists(_MARKER_TEXT, max_size=8))
def test_marker_flags_flag_every_text_with_a_marker(texts):
    _assert_markers_flagged(texts)


@needs_speedups
def test_marker_flags_corner_cases():
    texts = ["Sign up to our NEWSLETTER", "hello world", "© 2025", "版权所有", "关注我们",
             "All Rights ReServed", "", "ICP备", "you", "SUBMIT", "x your", "ewsletter"]
    assert _speedups.marker_flags(texts) == [1, 0, 2, 2, 1, 2, 0, 2, 0, 1, 1, 1]


@needs_speedups
def test_child_runs_equal_python_on_every_corpus_page(corpus_segments):
    for page_id, segmented in corpus_segments:
        scores = builtin.base_scores(segmented)
        for weights in (scores, [-score for score in scores], [0.0] * len(scores)):
            nodes = (weights, segmented.node_start, segmented.node_end, segmented.node_parent,
                     segmented.block_owner)
            assert _speedups.child_runs(*nodes) == builtin.child_runs_python(*nodes), page_id


@needs_speedups
def test_child_runs_of_no_blocks_or_nodes():
    assert _speedups.child_runs([], [], [], [], []) == ([], [], [])
    assert _speedups.child_runs([], [0], [0], [-1], []) == ([0.0], [0], [0])
    nodes = ([1.5, -2.0, 3.0], [0, 0], [3, 2], [-1, 0], [0, 1, 0])
    assert _speedups.child_runs(*nodes) == builtin.child_runs_python(*nodes)


def _python_scores(segmented, captions) -> tuple[list[float], set[int]]:
    boilerplate: set[int] = set()
    with mock.patch.object(builtin, "_compiled_base_scores", None):
        return builtin.base_scores(segmented, boilerplate, captions), boilerplate


@needs_speedups
def test_base_scores_equal_python_on_every_corpus_page(corpus_segments):
    for page_id, segmented in corpus_segments:
        for captions in (None, builtin.in_captions(segmented)):
            boilerplate: set[int] = set()
            scores = builtin.base_scores(segmented, boilerplate, captions)
            assert (scores, boilerplate) == _python_scores(segmented, captions), page_id


@needs_speedups
@settings(max_examples=300, deadline=None)
@given(_markup())
def test_base_scores_equal_python_on_generated_markup(body):
    document = f"<html><head><title>t 2024-01-02</title></head><body>{body}</body></html>"
    segmented = _python_segment(etree.fromstring(document, etree.HTMLParser()))
    boilerplate: set[int] = set()
    scores = builtin.base_scores(segmented, boilerplate)
    assert (scores, boilerplate) == _python_scores(segmented, None)
