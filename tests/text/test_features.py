"""Normalisation, tokenisation (jieba parity, mixed scripts, stop words) and weighting."""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections import Counter

import jieba
import numpy as np
import pytest
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash import Fingerprinter
from scrapy_simhash.simhash import string_hashes
from scrapy_simhash.text import chinese, hashing, normalize, tokenize, weights

jieba.setLogLevel(logging.WARNING)
JIEBA_RANGE = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FD5)


def test_normalize_folds_width_case_and_space():
    assert normalize.normalize("  ＡＢＣ\u3000Straße\n\tTEXT ") == "abc strasse text"


def test_mixed_script_tokens_in_order_without_stop_words_and_punctuation():
    tokens = tokenize.tokenize("The iPhone 15 在北京发布了，售价 5999 元! It's fast.")
    assert tokens == ["iphone", "15", "北京", "发布", "售价", "5999", "元", "fast"]


def test_unsegmented_mode_gives_one_token_per_ideograph():
    assert tokenize.tokenize("数据 crawler", segment_chinese=False) == ["数", "据", "crawler"]


def test_rare_ideographs_are_single_tokens():
    assert tokenize.tokenize("北京㐀𠀀天安门") == ["北京", "㐀", "𠀀", "天安门"]


def test_traditional_folding_uses_opencc():
    assert normalize.normalize("漢字簡體轉換", fold_traditional=True) == "汉字简体转换"


def jieba_reference(runs: list[str]) -> list[str]:
    return [token for run in runs for token in jieba.lcut(run)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=JIEBA_RANGE, min_size=1, max_size=40), min_size=1, max_size=6))
def test_segmenting_all_runs_at_once_matches_jieba_run_by_run(runs):
    assert tokenize.raw_tokens("，".join(runs)) == jieba_reference(runs)


def test_segmenter_matches_jieba_on_real_chinese_text(corpora_root):
    checked = 0
    for page in iter_pages(["chinese-web-content-extraction"], with_truth_text=True,
                           root=corpora_root):
        runs = re.findall("[\u4e00-\u9fd5]+", page.truth_text)
        assert tokenize.raw_tokens("。".join(runs)) == jieba_reference(runs), page.id
        checked += len(runs)
    assert checked > 1000


def test_words_and_chinese_keep_their_order():
    assert tokenize.raw_tokens("alpha 北京 beta_gamma “quoted” 天安门 x") == [
        "alpha", "北京", "beta", "gamma", "quoted", "天安门", "x"
    ]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_tokenize_never_raises_on_any_unicode(text):
    tokens = tokenize.tokenize(text)
    assert all(t and tokenize.is_content_token(t) for t in tokens)


def test_shingles_and_char_ngrams():
    assert tokenize.word_shingles(["a1", "b2", "c3", "d4"], 3) == ["a1 b2 c3", "b2 c3 d4"]
    assert tokenize.word_shingles(["a1"], 3) == ["a1"]
    assert tokenize.char_ngrams(["ab", "cd"], 3) == ["abc", "bcd"]


def test_weightings():
    items = ["x", "x", "x", "y"]
    assert weights.weigh(items, "tf") == {"x": 3, "y": 1}
    assert weights.weigh(items, "logtf") == {"x": 1 + math.log(3), "y": 1.0}
    tfidf = weights.weigh(["数据", "数据", "的的的的"], "tfidf")
    table, median = weights._idf_table()
    assert tfidf["数据"] == 2 * table["数据"]
    assert tfidf["的的的的"] == median
    with pytest.raises(ValueError, match="weighting must be one of"):
        weights.weigh(items, "bm25")


COUNTED = "ab 1_北京天安门数据㐀𠀀\U0002ebf0，。é'Ｆ\n"  # \U0002ebf0: CJK Extension I


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(COUNTED), max_size=80))
def test_counting_equals_counting_the_token_list(text):
    assert tokenize.count_tokens(text) == Counter(tokenize.tokenize(text))
    assert tokenize.count_tokens(text, segment_chinese=False) == Counter(
        tokenize.tokenize(text, segment_chinese=False)
    )


TRUTH_SOURCES = ("chinese-web-content-extraction", "webmainbench-samples",
                 "article-extraction-benchmark")


def truth_pages(root, sources=TRUTH_SOURCES, minimum=150):
    """The pages of ``sources`` with ground truth; fails unless every source gave some and
    there are at least ``minimum`` in all (a misspelt source must not pass vacuously)."""
    pages = list(iter_pages(list(sources), with_truth_text=True, root=root))
    assert sorted({page.source for page in pages}) == sorted(sources)
    assert len(pages) >= minimum
    return pages


def test_counting_equals_counting_the_token_list_on_real_text(corpora_root):
    for page in truth_pages(corpora_root, TRUTH_SOURCES[:2], minimum=40):
        assert tokenize.count_tokens(page.truth_text) == Counter(tokenize.tokenize(page.truth_text))


def hashed(counts: Counter[str]) -> dict[int, int]:
    """``count_tokens`` output keyed the way ``token_hash_counts`` keys it."""
    tokens = list(counts)
    return dict(zip(string_hashes(tokens).tolist(), counts.values(), strict=True))


def hash_counts(text: str, **options: bool) -> dict[int, int]:
    hashes, counts = hashing.token_hash_counts(text, **options)
    assert list(hashes) == sorted(hashes)
    return dict(zip(hashes.tolist(), counts.tolist(), strict=True))


MIXED = st.sampled_from(
    [*"ab Z9_-'’“”…\u00a0\u00adßİΣσς北京天安门数据㐀𠀀⼀㊀豈，。！ＡＢ１é\u0301\n\t", "\ud800",
     *"कि\u094dष\u093e\u0e31\u064e"]  # Devanagari, a virama and a vowel sign, Thai, Arabic
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(MIXED, max_size=120),
                 st.text(st.characters(exclude_categories=()), max_size=120)))
def test_hashing_words_from_bytes_equals_counting_strings(text):
    """The byte-level path gives exactly count_tokens, whatever the script or oddity."""
    for options in ({}, {"segment_chinese": False}):
        assert hash_counts(text, **options) == hashed(tokenize.count_tokens(text, **options))


@pytest.mark.parametrize("text", [
    "x" * 300 + " 北京天安门 late chinese",  # Han only after the first probe window
    "北京⼀京 kangxi radical folds into a Han run",  # NFKC creates an ideograph between runs
    "北京 " + "a" * 40 + " " + "b" * 41 + " " + "é" * 41 + " " + "é" * 30,  # length limits
    "ＴＨＥ Ｆｕｌｌｗｉｄｔｈ words and Straße in 中文 text",
])
def test_hashing_edge_cases_equal_counting_strings(text):
    assert hash_counts(text) == hashed(tokenize.count_tokens(text))
    assert hash_counts(text, fold_traditional=True) == hashed(
        tokenize.count_tokens(text, fold_traditional=True)
    )


def test_hashing_equals_counting_on_real_text(corpora_root):
    for page in truth_pages(corpora_root):
        expected = hashed(tokenize.count_tokens(page.truth_text))
        assert hash_counts(page.truth_text) == expected, page.id


def batch_counts(texts: list[str], **options: bool) -> list[dict[int, int]]:
    """token_hash_batch's occurrences, counted per text."""
    hashes, numbers = hashing.token_hash_batch(texts, **options)
    assert list(numbers) == sorted(numbers)
    out: list[Counter[int]] = [Counter() for _ in texts]
    for h, number in zip(hashes.tolist(), numbers.tolist(), strict=True):
        out[number][h] += 1
    return [dict(counts) for counts in out]


LONG_MIXED = st.lists(st.text(MIXED, max_size=120), max_size=4).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(MIXED, max_size=120), LONG_MIXED,
                          st.text(st.characters(exclude_categories=()), max_size=60)),
                max_size=8),
       st.sampled_from([{}, {"segment_chinese": False}, {"fold_traditional": True}]))
def test_batch_hashing_equals_hashing_each_text(texts, options):
    """Every text's tokens are those of token_hash_counts, whatever its neighbours hold."""
    if options.get("fold_traditional"):  # OpenCC cannot encode lone surrogates (either path)
        texts = [text.encode("utf-8", "replace").decode("utf-8") for text in texts]
    assert batch_counts(texts, **options) == [hash_counts(text, **options) for text in texts]


@pytest.mark.parametrize("text", [
    "x" * 300 + " 北京天安门 late chinese",  # the batch takes the Han-run path here too
    "Latin first. " * 30 + "⼀京北京，数据",  # ... and falls back when folding makes a Han run
    "北京 " + "a" * 40 + " " + "b" * 41 + " " + "é" * 41 + " " + "é" * 30,
    "ＴＨＥ Ｆｕｌｌｗｉｄｔｈ，words（and）Straße…in 中文 text\u00a0here\u3000now",
    "",
])
def test_batch_hashing_edge_cases(text):
    texts = [text, "filler words here", text]
    assert batch_counts(texts) == [hash_counts(t) for t in texts]
    assert batch_counts(texts, fold_traditional=True) == [
        hash_counts(t, fold_traditional=True) for t in texts
    ]


def test_batch_hashing_equals_hashing_each_text_on_real_text(corpora_root):
    texts = [page.truth_text for page in truth_pages(corpora_root)]
    mixed = [a[:400] + "\n" + b[:400] for a, b in zip(texts, reversed(texts), strict=True)]
    for batch in (texts, mixed):
        assert batch_counts(batch) == [hash_counts(text) for text in batch]


QUICK_FOLD = st.sampled_from(
    [*"，（）：；？！％…\u00a0\u3000=＝<>ＡｅA\u0338\u0301\u0323\u0308¨ﬁ①ß İ北", "\ud800"]
)


@settings(max_examples=400, deadline=None)
@given(st.text(QUICK_FOLD, max_size=40), st.booleans())
def test_quick_fold_equals_fold(text, fold_traditional):
    """Replacing the common compatibility characters first never changes the folded text,
    including next to combining marks that compose with what they become (＝ + U+0338)."""
    if fold_traditional:  # OpenCC cannot encode lone surrogates (either path)
        text = text.replace("\ud800", "")
    assert normalize._fold_quick(text, fold_traditional) == normalize._fold(text, fold_traditional)


@settings(max_examples=50, deadline=None)
@given(st.sets(st.integers(0, 2**64 - 1), max_size=600),
       st.lists(st.integers(0, 2**64 - 1), max_size=50))
def test_hash_set_holds_its_members_and_nothing_else(members, others):
    table = hashing._HashSet(np.array(sorted(members), dtype=np.uint64))
    probe = np.array(sorted(members) + others + [0, 2**64 - 1], dtype=np.uint64)
    assert table.holds(probe).tolist() == [int(h) in members for h in probe.tolist()]


def test_stop_word_table_matches_the_sorted_stop_word_hashes():
    stop = hashing._stop_word_hashes()
    words = string_hashes(["the", "的", "scrapy", "北京", "and", "数据"])
    assert hashing._stop_word_table().holds(words).tolist() == np.isin(words, stop).tolist()
    assert hashing._stop_word_table().holds(stop).all()


STABLE_CHARS = [chr(c) for c in np.flatnonzero(hashing._fold_traits() & hashing._STABLE)[::97]]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(st.sampled_from(STABLE_CHARS) | MIXED | JIEBA_RANGE, max_size=60),
                min_size=1, max_size=5))
def test_texts_read_from_their_bytes_give_the_folded_texts_tokens(texts):
    """Texts of 'stable' characters skip folding (their bytes are read directly); any other
    character sends the text back to folding. Both must give token_hash_counts exactly."""
    assert batch_counts(texts) == [hash_counts(text) for text in texts]


def test_fold_traits_mark_what_folding_leaves_alone():
    traits = hashing._fold_traits()
    stable = {chr(c) for c in np.flatnonzero(traits & hashing._STABLE)}
    assert {"a", "Z", "é", "北", "，", "…", "\u00a0", "。"} <= stable
    assert not {"É", "ß", "\u0301", "ﬁ", "１", "⼀", "㐀", "Σ", "\u1161", "🙂"} & stable
    assert traits[ord("北")] & hashing._HAN and not traits[ord("é")] & hashing._HAN


def _reference_kinds() -> np.ndarray:
    """_code_point_kinds by its definition: _WORD's and _ANY_CJK's runs over every code point."""
    everything = hashing._every_code_point()
    kinds = np.zeros(0x110000, dtype=np.uint8)
    for pattern, kind in (
        (tokenize._WORD, hashing._LETTER_OR_DIGIT), (chinese._ANY_CJK_RUN, hashing._CJK)
    ):
        for match in pattern.finditer(everything):
            kinds[match.start():match.end()] = kind
    return kinds


def _reference_traits(kinds: np.ndarray) -> np.ndarray:
    """_fold_traits by its definition, one character at a time."""
    seconds = set(range(0x1161, 0x1176)) | set(range(0x11A8, 0x11C3))
    for code in range(0x110000):
        decomposition = unicodedata.decomposition(chr(code))
        if decomposition and not decomposition.startswith("<"):
            parts = decomposition.split()
            if len(parts) == 2:
                seconds.add(int(parts[1], 16))

    def unchanged(char: str) -> bool:
        code = ord(char)
        return (unicodedata.normalize("NFKC", char) == char and char.casefold() == char
                and unicodedata.combining(char) == 0 and code not in seconds
                and (kinds[code] != hashing._CJK or 0x4E00 <= code <= 0x9FD5))

    traits = np.zeros(0x110000, dtype=np.uint8)
    for code in range(0x10000):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        if code < 0x80 or unchanged(char):
            traits[code] = hashing._STABLE
        elif kinds[code] == hashing._OTHER:
            image = unicodedata.normalize("NFKC", char)
            if image != char and all(
                kinds[ord(c)] == hashing._OTHER and unchanged(c) for c in image
            ):
                traits[code] = hashing._STABLE
    traits[0x4E00:0x9FD6] |= hashing._HAN
    return traits


def test_the_code_point_tables_match_their_definitions():
    """The start-up tables are built the fast way (marks apart from the regex, C calls per
    plane, NFD-unchanged ranges passed over); on this Python's Unicode data they must equal
    the straightforward per-character definitions, bit for bit."""
    kinds = _reference_kinds()
    assert np.array_equal(hashing._code_point_kinds(), kinds)
    assert np.array_equal(hashing._fold_traits(), _reference_traits(kinds))


def test_ideographs_newer_than_pythons_unicode_tables_are_tokens_everywhere():
    """CJK Extension I (Unicode 15.1) is not ``isalnum()`` on Python 3.11: still a token."""
    text = "\U0002ebf0\U0002ebf1 北京 data"
    assert tokenize.tokenize(text) == ["\U0002ebf0", "\U0002ebf1", "北京", "data"]
    assert Counter(tokenize.tokenize(text)) == tokenize.count_tokens(text)


@pytest.mark.parametrize(("text", "words"), [
    ("सरकार ने स्कूलों में शिक्षा", ["सरकार", "ने", "स्कूलों", "में", "शिक्षा"]),  # vowel signs, virama
    ("தமிழ் செய்திகள்", ["தமிழ்", "செய்திகள்"]),
    ("ข่าว วันนี้", ["ข่าว", "วันนี้"]),  # Thai tone marks (words between spaces)
    ("كَتَبَ الطَّالِبُ", ["كَتَبَ", "الطَّالِبُ"]),  # Arabic with its vowel points
])
def test_combining_marks_do_not_break_words(text, words):
    """Vowel signs, viramas and points are marks, which ``\\w`` leaves out: words of these
    scripts are whole tokens on every path, not runs of consonants."""
    assert tokenize.tokenize(text) == words
    assert tokenize.count_tokens(text) == Counter(words)
    assert hash_counts(text) == hashed(Counter(words))


def test_traditional_folding_keeps_lone_surrogates():
    """A broken JSON escape gives a lone surrogate; folding converts the text around it."""
    text = "數據 \ud83d 學習"
    assert normalize.traditional_to_simplified(text) == "数据 \ud83d 学习"
    assert tokenize.count_tokens(text, fold_traditional=True) == Counter(
        tokenize.tokenize(text, fold_traditional=True)
    ) == Counter(["数据", "学习"])


ZALGO = "\u0300\u0316"  # classes 230 and 220: out of canonical order, NFKC must sort them
NORMALIZE = unicodedata.normalize  # as it is before a test replaces it


def is_non_starter(char: str) -> bool:
    """Of non-zero combining class, or decomposing (NFKD) into such (U+FF9E: U+3099)."""
    return unicodedata.combining(NORMALIZE("NFKD", char)[0]) != 0


def non_starter_run(text: str) -> int:
    """The longest run of non-starters in ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if is_non_starter(char) else 0
        longest = max(longest, run)
    return longest


def with_joiners(run: str) -> str:
    """UAX #15's rule: U+034F COMBINING GRAPHEME JOINER after every 30 non-starters of a run
    that more follow."""
    return "\u034f".join(run[i : i + 30] for i in range(0, len(run), 30))


@pytest.mark.parametrize("marks", [31, 61, 100_000])
def test_long_runs_of_marks_are_cut_by_grapheme_joiners(marks):
    """Stream-Safe Text Format: folding normalises ``a`` + 100,000 marks as if a joiner came
    after every 30th, on every path, deterministically. The Zalgo word stays one token (the
    joiner is a mark too), over-long and dropped as before: the fingerprint is that of the
    text without it."""
    run = (ZALGO * marks)[:marks]
    text = f"Some words here. a{run} more words."
    joined = f"Some words here. a{with_joiners(run)} more words."
    assert normalize._stream_safe(text) == joined
    fold = normalize._fold
    assert fold(text, False) == fold(joined, False) == fold(text, False)
    assert normalize._fold_quick(text, False) == normalize._fold(text, False)
    assert non_starter_run(normalize._fold(text, False)) <= 30
    assert normalize.normalize(text) == unicodedata.normalize("NFKC", joined).casefold()
    words = tokenize.tokenize(text)
    assert words == tokenize.tokenize(joined) == tokenize.tokenize(text)
    assert tokenize.count_tokens(text) == Counter(words)
    assert hash_counts(text) == hashed(Counter(words))
    assert batch_counts([text, "filler words", text]) == [
        hash_counts(t) for t in (text, "filler words", text)
    ]
    fingerprint = Fingerprinter(min_tokens=1).fingerprint_text
    assert fingerprint(text) == fingerprint(joined) == fingerprint(text)
    without = "Some words here. more words."
    if marks > 40:  # an over-long token, as without the joiners
        assert words == tokenize.tokenize(without) == ["words", "words"]
        assert fingerprint(text) == fingerprint(without)
    else:
        assert words == ["words", normalize._fold(f"a{run}", False), "words"]


@pytest.mark.parametrize("text", [
    "Some words here. a" + ZALGO * 5_000 + " more words.",
    "北京天安门 a" + ZALGO * 2_000 + " 數據 " + "\U0001d165\u0316" * 2_000,  # Han runs between
    "ｶ" + "\uff9e\u0316" * 2_000 + " text " + "\u0f73\u0316" * 2_000,  # class 0, NFKD marks
])
def test_nfkc_never_sees_more_than_thirty_non_starters(text, monkeypatch):
    """NFKC sorts a run of marks in quadratic time: no path hands ``unicodedata.normalize``
    a run of more than 30 non-starters (checked without timing any)."""
    seen = []

    def bounded(form: str, text: str) -> str:
        seen.append(non_starter_run(text))
        assert seen[-1] <= 30, f"NFKC given a run of {seen[-1]} non-starters"
        return NORMALIZE(form, text)

    monkeypatch.setattr(normalize.unicodedata, "normalize", bounded)
    for options in ({}, {"segment_chinese": False}, {"fold_traditional": True}):
        tokenize.tokenize(text, **options)
        tokenize.count_tokens(text, **options)
        hashing.token_hash_counts(text, **options)
        hashing.token_hash_batch([text, "filler words", text], **options)
    for fold_traditional in (False, True):
        normalize.normalize(text, fold_traditional=fold_traditional)
    for tokenizer in ("auto", "words"):
        Fingerprinter(tokenizer=tokenizer).fingerprint_text(text)
        Fingerprinter(tokenizer=tokenizer).fingerprint_many([text, "filler words"])
    assert max(seen) > 20  # the runs were cut, not avoided


def test_text_without_long_runs_of_non_starters_is_left_alone():
    """Texts with no run of more than 30 non-starters are folded exactly as before."""
    for text in ("plain ascii", "कि\u094dष\u093e" * 50, "a" + ZALGO * 15 + " b",
                 "a" + "\u0300" * 30 + "b" + "\u0316" * 30, "🙂" * 100 + " 𠀀" * 50,
                 "\U0001d165" * 30 + "x" + "\U0001d165" * 30, "\uff9e" * 30):
        assert normalize._stream_safe(text) is text
    assert normalize._stream_safe("\uff9e" * 31) == "\uff9e" * 30 + "\u034f\uff9e"
    assert normalize._stream_safe("x" + "\U0001d165" * 65) == "x" + with_joiners("\U0001d165" * 65)
    marks = "\u0300" * 31
    assert normalize._stream_safe("\ud800a" + marks) == "\ud800a" + with_joiners(marks)
    non_starters = [c for c in range(0x20000) if is_non_starter(chr(c))]
    one, table = normalize._non_starters()
    assert np.flatnonzero(table).tolist() == non_starters
    assert [c for c in range(0x10000) if one.match(chr(c))] == [c for c in non_starters
                                                                if c < 0x10000]
    assert not (hashing._fold_traits()[non_starters] & hashing._STABLE).any()  # never read as bytes
