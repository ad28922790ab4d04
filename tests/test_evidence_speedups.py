"""The evidence's fast paths read a text as its general ones do: the compiled word spans
(``_tokens.word_spans``) as the numpy pass, and the plain title expressions as the script-aware
ones, on every corpus text and on generated text full of the characters that end the fast paths
(combining marks, ideographs, kana, Thai, astral letters, connectors)."""

from __future__ import annotations

from unittest import mock

import numpy as np
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st
from speedups import compiled_module, needs, require_built

from scrapy_simhash import evidence as ev
from scrapy_simhash.extract import get_extractor, parse_html

_tokens = compiled_module("scrapy_simhash._tokens")
needs_module = needs(_tokens)

PIECES = ["A", "ß", "İ", "é", "e\u0301", "क", "\u093f", "中", "か", "ガ", "ก", "\u0e34", "ၵ",
          "𝔘", "𠀀", "\ufe0f", "😀", "1", "٣", "_", "-", ".", "/", ":", ",", " ", "\n", "+", "#",
          "to", " to ", "->", "→", "から", "至", "से", "'", "’", "Ｆ", "\u00a0"]  # fmt: skip
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=40).map("".join)


def _numpy_words(text: str) -> list[list]:
    with mock.patch.object(ev, "_compiled_word_spans", lambda: None):
        return [part.tolist() for part in ev._folded_words(text)]


def _words(text: str) -> list[list]:
    return [part.tolist() for part in ev._folded_words(text)]


def test_compiled_module_is_built():
    require_built(_tokens, "scrapy_simhash._tokens", "the numpy pass")
    assert ev._compiled_word_spans() is _tokens.word_spans


@needs_module
def test_word_spans_equal_the_numpy_pass_on_every_corpus_page(corpora_root):
    whole_page = get_extractor("wholepage")
    for page in iter_pages(root=corpora_root):
        text = whole_page(page.html, page.encoding, page.url)
        assert _words(text) == _numpy_words(text), page.id


@needs_module
@settings(max_examples=300, deadline=None)
@given(texts)
def test_word_spans_equal_the_numpy_pass_on_generated_text(text):
    assert _words(text) == _numpy_words(text)


def _script_aware(title: str) -> list[str]:
    return ev._TITLE_WORD.findall(title) + ev._TITLE_COMPOUND.findall(title)


def _script_aware_directed(plain: str) -> list[str]:
    return [">".join(filter(None, found.groups())) for found in ev._DIRECTED.finditer(plain)]


@settings(max_examples=500, deadline=None)
@given(texts)
def test_plain_title_words_equal_the_script_aware_ones(text):
    for title in (text, ev._plain_title(text)):
        assert ev._title_spellings(title) == _script_aware(title)
        assert ev._directed(title) == _script_aware_directed(title)


def test_titles_take_the_plain_way_and_keep_their_words(corpora_root):
    roots = (parse_html(page.html, page.encoding) for page in iter_pages(root=corpora_root))
    titles = [title for root in roots if root is not None and (title := root.findtext(".//title"))]
    assert len(titles) > 500
    for title in titles:
        plain = ev._plain_title(title)
        assert ev._title_spellings(plain) == _script_aware(plain), title
        assert ev._directed(plain) == _script_aware_directed(plain), title
    assert ev._directed("leeds to york") == ["leeds>york"]
    assert ev._directed("東京から大阪") == ["京>大"]
    assert ev._title_spellings("c++ 2.3.10 – café") == ["c++", "2", "3", "10", "café", "2.3.10"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=0x10FFFF), max_size=50))
def test_char_table_lookups_equal_isin(codes):
    codes = np.array(codes, dtype=np.uint32)
    for chars in (ev._JOINERS, ev._CJK_NUMERALS, ev._CJK_UNITS):
        assert ev._among_chars(codes, chars).tolist() == np.isin(codes, chars).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=60),
       st.lists(st.integers(min_value=0, max_value=2**64 - 1), max_size=10))
def test_distinct_and_union_equal_numpys(values, more):
    a, b = np.array(values, dtype=np.uint64), np.array(more, dtype=np.uint64)
    assert ev.distinct(a).tolist() == np.unique(a).tolist()
    assert ev.union(a, b).tolist() == np.union1d(a, b).tolist()
    assert ev.union(a, b).dtype == np.union1d(a, b).dtype
