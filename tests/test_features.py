"""Normalisation, tokenisation (jieba parity, mixed scripts, stop words) and weighting."""

from __future__ import annotations

import logging
import math
import re
from collections import Counter

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash import features as feat
from scrapy_simhash.corpora import iter_pages
from scrapy_simhash.simhash import string_hashes

jieba.setLogLevel(logging.WARNING)
JIEBA_RANGE = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FD5)


def test_normalize_folds_width_case_and_space():
    assert feat.normalize("  ＡＢＣ\u3000Straße\n\tTEXT ") == "abc strasse text"


def test_mixed_script_tokens_in_order_without_stop_words_and_punctuation():
    tokens = feat.tokenize("The iPhone 15 在北京发布了，售价 5999 元! It's fast.")
    assert tokens == ["iphone", "15", "北京", "发布", "售价", "5999", "元", "fast"]


def test_unsegmented_mode_gives_one_token_per_ideograph():
    assert feat.tokenize("数据 crawler", segment_chinese=False) == ["数", "据", "crawler"]


def test_rare_ideographs_are_single_tokens():
    assert feat.tokenize("北京㐀𠀀天安门") == ["北京", "㐀", "𠀀", "天安门"]


def test_traditional_folding_uses_opencc():
    assert feat.normalize("漢字簡體轉換", fold_traditional=True) == "汉字简体转换"


def jieba_reference(runs: list[str]) -> list[str]:
    return [token for run in runs for token in jieba.lcut(run)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=JIEBA_RANGE, min_size=1, max_size=40), min_size=1, max_size=6))
def test_segmenting_all_runs_at_once_matches_jieba_run_by_run(runs):
    assert feat.raw_tokens("，".join(runs)) == jieba_reference(runs)


def test_segmenter_matches_jieba_on_real_chinese_text(corpora_root):
    checked = 0
    for page in iter_pages(["chinese-web-content-extraction"], with_truth_text=True,
                           root=corpora_root):
        runs = re.findall("[\u4e00-\u9fd5]+", page.truth_text)
        assert feat.raw_tokens("。".join(runs)) == jieba_reference(runs), page.id
        checked += len(runs)
    assert checked > 1000


def test_words_and_chinese_keep_their_order():
    assert feat.raw_tokens("alpha 北京 beta_gamma “quoted” 天安门 x") == [
        "alpha", "北京", "beta", "gamma", "quoted", "天安门", "x"
    ]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenize_never_raises_on_any_unicode(text):
    tokens = feat.tokenize(text)
    assert all(t and feat.is_content_token(t) for t in tokens)


def test_shingles_and_char_ngrams():
    assert feat.word_shingles(["a1", "b2", "c3", "d4"], 3) == ["a1 b2 c3", "b2 c3 d4"]
    assert feat.word_shingles(["a1"], 3) == ["a1"]
    assert feat.char_ngrams(["ab", "cd"], 3) == ["abc", "bcd"]


def test_weightings():
    items = ["x", "x", "x", "y"]
    assert feat.weigh(items, "tf") == {"x": 3, "y": 1}
    assert feat.weigh(items, "logtf") == {"x": 1 + math.log(3), "y": 1.0}
    tfidf = feat.weigh(["数据", "数据", "的的的的"], "tfidf")
    table, median = feat._idf_table()
    assert tfidf["数据"] == 2 * table["数据"]
    assert tfidf["的的的的"] == median
    with pytest.raises(ValueError, match="weighting must be one of"):
        feat.weigh(items, "bm25")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 1_北京天安门数据㐀𠀀，。é'Ｆ\n"), max_size=80))
def test_counting_equals_counting_the_token_list(text):
    assert feat.count_tokens(text) == Counter(feat.tokenize(text))
    assert feat.count_tokens(text, segment_chinese=False) == Counter(
        feat.tokenize(text, segment_chinese=False)
    )


def test_counting_equals_counting_the_token_list_on_real_text(corpora_root):
    for page in iter_pages(["chinese-web-content-extraction", "webmainbench-samples"],
                           with_truth_text=True, root=corpora_root):
        assert feat.count_tokens(page.truth_text) == Counter(feat.tokenize(page.truth_text))


def hashed(counts: Counter[str]) -> dict[int, int]:
    """``count_tokens`` output keyed the way ``token_hash_counts`` keys it."""
    tokens = list(counts)
    return dict(zip(string_hashes(tokens).tolist(), counts.values(), strict=True))


def hash_counts(text: str, **options: bool) -> dict[int, int]:
    hashes, counts = feat.token_hash_counts(text, **options)
    assert list(hashes) == sorted(hashes)
    return dict(zip(hashes.tolist(), counts.tolist(), strict=True))


MIXED = st.sampled_from(
    [*"ab Z9_-'’“”…\u00a0\u00adßİΣσς北京天安门数据㐀𠀀⼀㊀豈，。！ＡＢ１é\u0301\n\t", "\ud800"]
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(MIXED, max_size=120),
                 st.text(st.characters(exclude_categories=()), max_size=120)))
def test_hashing_words_from_bytes_equals_counting_strings(text):
    """The byte-level path gives exactly count_tokens, whatever the script or oddity."""
    for options in ({}, {"segment_chinese": False}):
        assert hash_counts(text, **options) == hashed(feat.count_tokens(text, **options))


@pytest.mark.parametrize("text", [
    "x" * 300 + " 北京天安门 late chinese",  # Han only after the first probe window
    "北京⼀京 kangxi radical folds into a Han run",  # NFKC creates an ideograph between runs
    "北京 " + "a" * 40 + " " + "b" * 41 + " " + "é" * 41 + " " + "é" * 30,  # length limits
    "ＴＨＥ Ｆｕｌｌｗｉｄｔｈ words and Straße in 中文 text",
])
def test_hashing_edge_cases_equal_counting_strings(text):
    assert hash_counts(text) == hashed(feat.count_tokens(text))
    assert hash_counts(text, fold_traditional=True) == hashed(
        feat.count_tokens(text, fold_traditional=True)
    )


def test_hashing_equals_counting_on_real_text(corpora_root):
    for page in iter_pages(["chinese-web-content-extraction", "webmainbench-samples",
                            "article-extraction-benchmark"], with_truth_text=True,
                           root=corpora_root):
        assert hash_counts(page.truth_text) == hashed(feat.count_tokens(page.truth_text)), page.id
