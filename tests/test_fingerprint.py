"""Fingerprinter: same article -> nearby bits, other articles -> unrelated bits, no text -> None."""

from __future__ import annotations

import itertools
import random
import re
import statistics

import pytest
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash import Fingerprinter, hamming_distance
from scrapy_simhash import fingerprint as fingerprint_module
from scrapy_simhash.simhash import simhash

SIMPLIFIED = (
    "近日，国家统计局发布了最新的经济数据。数据显示，今年前三季度国内生产总值同比增长百分之五，"
    "消费市场持续恢复，服务业增加值增长较快。专家认为，随着一系列稳增长政策落地见效，"
    "经济运行总体回升向好，但外部环境依然复杂严峻，国内需求仍显不足，部分企业经营困难。"
    "下一步要继续加大宏观政策调控力度，着力扩大国内需求，推动经济实现质的有效提升和量的合理增长。"
    "与此同时，就业形势保持总体稳定，城镇调查失业率有所下降，居民收入继续增加。"
)


def long_chinese_articles(root, minimum_sentences=8):
    for page in iter_pages(["chinese-web-content-extraction"], with_truth_text=True, root=root):
        sentences = [s for s in re.split("(?<=[。！？])", page.truth_text) if s.strip()]
        if len(sentences) >= minimum_sentences:
            yield page.truth_text, sentences


def test_identical_text_gives_distance_zero():
    rebuilt = "".join(list(SIMPLIFIED))  # equal text, another object
    assert rebuilt == SIMPLIFIED and rebuilt is not SIMPLIFIED
    first = Fingerprinter().fingerprint_text(SIMPLIFIED)
    second = Fingerprinter().fingerprint_text(rebuilt)
    assert first is not None
    assert first == second
    assert hamming_distance(first, second) == 0


def test_defaults_used_by_a_crawl():
    fp = Fingerprinter()
    assert (fp.bits, fp.max_distance) == (128, 16)
    assert Fingerprinter(64, 3).bits == 64


def test_chinese_edits_stay_close_and_unrelated_articles_land_near_32(corpora_root):
    fp = Fingerprinter(bits=64)
    rng = random.Random(7)
    sentence_removed, chars_changed, fingerprints = [], [], []
    for text, sentences in long_chinese_articles(corpora_root):
        base = fp.fingerprint_text(text)
        fingerprints.append(base)
        i = rng.randrange(len(sentences))
        shorter = "".join(sentences[:i] + sentences[i + 1 :])
        sentence_removed.append(hamming_distance(base, fp.fingerprint_text(shorter)))
        chars = list(text)
        for j in rng.sample(range(len(chars)), 3):
            chars[j] = "错"
        chars_changed.append(hamming_distance(base, fp.fingerprint_text("".join(chars))))
    unrelated = [hamming_distance(a, b) for a, b in itertools.combinations(fingerprints, 2)]
    assert len(sentence_removed) >= 30
    # Typical edits stay within distance 3; the tail past 3 is why the crawl's k is measured
    # (benchmarks/quality.py), not assumed.
    assert statistics.median(sentence_removed) <= 2
    assert sum(d <= 3 for d in sentence_removed) >= 0.75 * len(sentence_removed)  # 0.79 measured
    assert statistics.median(chars_changed) <= 1
    assert sum(d <= 3 for d in chars_changed) >= 0.90 * len(chars_changed)  # 0.95 measured
    assert 28 <= statistics.median(unrelated) <= 36
    assert min(unrelated) > 8


def test_traditional_and_simplified_versions_match_only_when_folding():
    import opencc

    traditional = opencc.OpenCC("s2t").convert(SIMPLIFIED)
    assert traditional != SIMPLIFIED
    folding = Fingerprinter(fold_traditional=True)
    assert hamming_distance(
        folding.fingerprint_text(SIMPLIFIED), folding.fingerprint_text(traditional)
    ) <= 1
    plain = Fingerprinter()
    assert not plain.is_near_duplicate(
        plain.fingerprint_text(SIMPLIFIED), plain.fingerprint_text(traditional)
    )


@pytest.mark.parametrize("text", ["", "   ", "。，！", "the and of", "短文本", "word " * 15])
def test_too_little_text_gets_no_fingerprint(text):
    assert Fingerprinter().fingerprint_text(text) is None


def test_empty_pages_do_not_collide():
    fp = Fingerprinter()
    assert fp.fingerprint_html("<html><body><nav>Home</nav></body></html>") is None
    assert not fp.is_near_duplicate(None, None)


def test_min_tokens_is_a_threshold():
    text = " ".join(f"token{i}" for i in range(10))
    assert Fingerprinter(min_tokens=10).fingerprint_text(text) is not None
    assert Fingerprinter(min_tokens=11).fingerprint_text(text) is None


@pytest.mark.parametrize("features", ["words", "shingles", "chars"])
@pytest.mark.parametrize("weighting", ["tf", "logtf", "tfidf"])
def test_every_feature_and_weighting_choice_separates_edits_from_other_text(features, weighting):
    fp = Fingerprinter(features=features, weighting=weighting, bits=128)
    edited = SIMPLIFIED.replace("百分之五", "百分之五点二")
    other = (
        "华为在深圳发布了新一代折叠屏手机，搭载自研芯片，支持卫星通话，起售价为九千九百九十九元。"
    ) * 2
    near = hamming_distance(fp.fingerprint_text(SIMPLIFIED), fp.fingerprint_text(edited))
    far = hamming_distance(fp.fingerprint_text(SIMPLIFIED), fp.fingerprint_text(other))
    assert near < far
    assert far > 30


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bits": 32}, "bits must be one of"),
        ({"max_distance": -1}, "max_distance must be an integer"),
        ({"bits": 64, "max_distance": 40}, "max_distance must be an integer from 0 to 31"),
        ({"max_distance": 65}, "max_distance must be an integer from 0 to 63"),
        # half the bits: random pages lie there, and the index cannot split the bits that finely
        ({"bits": 64, "max_distance": 32}, "max_distance must be an integer from 0 to 31"),
        ({"max_distance": 64}, "max_distance must be an integer from 0 to 63"),
        ({"features": "sentences"}, "features must be one of"),
        ({"weighting": "bm25"}, "weighting must be one of"),
        ({"tokenizer": "spacy"}, "tokenizer must be one of"),
        ({"min_tokens": 0}, "min_tokens must be an integer"),
        ({"fold_traditional": "yes"}, "fold_traditional must be True or False"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Fingerprinter(**kwargs)


DEFAULT_PARAMS = {
    "fingerprint_version": fingerprint_module.FINGERPRINT_VERSION,
    "bits": 128,
    "features": "words",
    "shingle_size": None,  # recorded only for shingles
    "ngram_size": None,  # recorded only for chars
    "weighting": "tf",
    "tokenizer": "auto",
    "fold_traditional": False,
    "extractor": "builtin",
}


def _custom_extractor(html, encoding=None, url=None):
    return ""


def test_params_of_the_defaults():
    assert Fingerprinter().params == DEFAULT_PARAMS


@pytest.mark.parametrize(
    ("kwargs", "changed"),
    [
        ({"bits": 64}, {"bits": 64}),
        ({"features": "shingles"}, {"features": "shingles", "shingle_size": 3}),
        ({"features": "shingles", "shingle_size": 2}, {"features": "shingles", "shingle_size": 2}),
        ({"features": "chars"}, {"features": "chars", "ngram_size": 4}),
        ({"features": "chars", "ngram_size": 5}, {"features": "chars", "ngram_size": 5}),
        ({"weighting": "logtf"}, {"weighting": "logtf"}),
        ({"weighting": "tfidf"}, {"weighting": "tfidf"}),
        ({"tokenizer": "words"}, {"tokenizer": "words"}),
        ({"fold_traditional": True}, {"fold_traditional": True}),
        ({"extractor": "wholepage"}, {"extractor": "wholepage"}),
        ({"extractor": _custom_extractor}, {"extractor": f"{__name__}._custom_extractor"}),
    ],
)
def test_params_record_everything_that_changes_the_bits(kwargs, changed):
    assert Fingerprinter(**kwargs).params == {**DEFAULT_PARAMS, **changed}


@pytest.mark.parametrize("kwargs", [{"shingle_size": 2}, {"ngram_size": 5}])
def test_params_leave_out_the_sizes_of_features_not_in_use(kwargs):
    assert Fingerprinter(**kwargs).params == DEFAULT_PARAMS


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.sampled_from([64, 128]))
def test_arbitrary_unicode_never_raises(text, bits):
    result = Fingerprinter(bits, min_tokens=1).fingerprint_text(text)
    assert result is None or 0 <= result < 2**bits


def test_fingerprint_html_uses_the_main_text_extractor():
    fp = Fingerprinter(extractor=lambda html, encoding, url: SIMPLIFIED)
    assert fp.fingerprint_html(b"<p>ignored</p>") == Fingerprinter().fingerprint_text(SIMPLIFIED)
    article = f"<html><body><article><h1>经济数据</h1><p>{SIMPLIFIED}</p></article></body></html>"
    builtin = Fingerprinter()
    assert builtin.is_near_duplicate(
        builtin.fingerprint_html(article), builtin.fingerprint_text(SIMPLIFIED)
    )
    assert builtin.fingerprint_html(article.encode("gb18030"), encoding="gb18030") == (
        builtin.fingerprint_html(article)
    )


@pytest.mark.parametrize("bits", [64, 128])
def test_fast_path_equals_simhash_of_weighted_features(corpora_root, bits):
    """fingerprint_text hashes words from bytes; it must give simhash(weighted_features(text))."""
    fingerprinters = [Fingerprinter(bits, min_tokens=1),
                      Fingerprinter(bits, min_tokens=1, tokenizer="words")]
    checked = 0
    for page in iter_pages(["chinese-web-content-extraction", "webmainbench-samples",
                            "article-extraction-benchmark"], with_truth_text=True,
                           root=corpora_root):
        for text in (page.truth_text, page.truth_text[:200]):
            for fp in fingerprinters:
                weighted = fp.weighted_features(text)
                expected = None if weighted is None else simhash(weighted, bits)
                assert fp.fingerprint_text(text) == expected, page.id
                checked += 1
    assert checked > 400


def test_warm_up_changes_nothing_but_when_the_loading_happens():
    fp = Fingerprinter()
    before = fp.fingerprint_text(SIMPLIFIED)
    fp.warm_up()
    assert fp.fingerprint_text(SIMPLIFIED) == before


BATCH_TEXT = st.lists(
    st.sampled_from(["北京天安门", "数据显示，", "经济增长。", "the", "Market", "prices",
                     "rose", "café", "ＡＢ", "㐀", "⼀", " ", "\n", "…", "(1)", "x" * 41]),
    max_size=200,
).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(BATCH_TEXT, st.text(max_size=300)), max_size=10),
    st.sampled_from([
        {}, {"bits": 64}, {"tokenizer": "words"}, {"min_tokens": 1}, {"min_tokens": 5},
        {"features": "shingles"}, {"weighting": "logtf", "bits": 64},
    ]),
)
def test_fingerprint_many_equals_one_by_one(texts, options):
    fp = Fingerprinter(**options)
    assert fp.fingerprint_many(texts) == [fp.fingerprint_text(text) for text in texts]


@pytest.mark.parametrize("options", [
    {}, {"bits": 64}, {"tokenizer": "words"}, {"fold_traditional": True}, {"min_tokens": 1},
])
def test_fingerprint_many_equals_one_by_one_on_real_text(corpora_root, options, monkeypatch):
    """Every page, alone and glued to another (Han runs far from the start), in a call that
    spans several internal batches."""
    monkeypatch.setattr(fingerprint_module, "_BATCH_TEXTS", 128)
    texts = [page.truth_text for page in iter_pages(
        ["chinese-web-content-extraction", "webmainbench-samples",
         "article-extraction-benchmark"], with_truth_text=True, root=corpora_root)]
    texts += [a[:500] + "\n" + b[:300] for a, b in zip(texts, reversed(texts), strict=True)]
    texts += [text[:120] for text in texts[:200]]  # near the min_tokens threshold
    assert len(texts) > 500
    fp = Fingerprinter(**options)
    assert fp.fingerprint_many(texts) == [fp.fingerprint_text(text) for text in texts]


def test_fingerprint_many_batches_by_characters_and_takes_a_huge_text_alone(monkeypatch):
    """A batch holds every word occurrence, so it is bounded in characters too: a 26 MB text
    took 1.5 GB in one batch, and goes through fingerprint_text (one entry per distinct word)."""
    from scrapy_simhash.fingerprint import _batches

    monkeypatch.setattr(fingerprint_module, "_BATCH_CHARS", 100)
    texts = ["a" * 40, "b" * 40, "c" * 40, "d" * 500, "e" * 10, "f" * 10]
    assert [[t[0] for t in batch] for batch in _batches(texts)] == [
        ["a", "b"], ["c"], ["d"], ["e", "f"]
    ]
    fp = Fingerprinter()
    words = [f"word{n % 300} " * 3 for n in range(300)]
    texts = ["".join(words[:40]), "".join(words), "".join(words[40:80]), "".join(words[5:30])]
    assert fp.fingerprint_many(texts) == [fp.fingerprint_text(text) for text in texts]


def test_fingerprint_many_takes_any_iterable_and_leaves_short_texts_unfingerprinted():
    fp = Fingerprinter()
    assert fp.fingerprint_many([]) == []
    result = fp.fingerprint_many(iter([SIMPLIFIED, "", "word " * 15, "word " * 16]))
    assert result[0] == fp.fingerprint_text(SIMPLIFIED) is not None
    assert result[1:3] == [None, None] and result[3] is not None


def test_is_near_duplicate_refuses_fingerprints_wider_than_its_bits():
    narrow = Fingerprinter(bits=64, max_distance=3)
    assert narrow.is_near_duplicate(5, 7) and not narrow.is_near_duplicate(5, None)
    for a, b in ((5, 5 | 1 << 100), ((1 << 64) | 5, 5), (-1, 0), (True, False)):
        with pytest.raises((ValueError, TypeError), match="fingerprint must be"):
            narrow.is_near_duplicate(a, b)
    with pytest.raises(ValueError, match="bits"):
        Fingerprinter(bits=64.0)


@pytest.mark.parametrize("value", [None, 42, ["text"]])
def test_fingerprinting_something_other_than_text_names_the_type(value):
    with pytest.raises(TypeError, match=f"must be a str, got {type(value).__name__}"):
        Fingerprinter().fingerprint_text(value)
    with pytest.raises(TypeError, match=f"must be str or bytes, got {type(value).__name__}"):
        Fingerprinter().fingerprint_html(value)
