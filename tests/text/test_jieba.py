"""_jieba: the compiled cut gives exactly jieba's tokens (``jieba.lcut``), and so rjieba's.

jieba (the reference the literature uses) and rjieba (the fallback when the module was not
built) are run on the same text: real Chinese text of every corpus page, and generated runs of
frequent characters (dictionary words, route ties) and of arbitrary ones (the HMM's unknown
words). ``split_cut`` is checked against the regular-expression split it replaces.
"""

from __future__ import annotations

import math
import re
import sys
from unittest import mock

import jieba
import numpy as np
import pytest
import rjieba
from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st
from speedups import compiled_module, require_built

from scrapy_simhash.extract import get_extractor
from scrapy_simhash.simhash import POLY_BASE, segment_hashes
from scrapy_simhash.text import chinese, hashing, normalize, tokenize

_jieba = compiled_module("scrapy_simhash._jieba")
HAN_RUN = re.compile("([\u4e00-\u9fd5]+)")
HAN_WORD = re.compile("[\u4e00-\u9fd5]+$")
# Frequent characters: random strings of them are full of dictionary words and of ties.
FREQUENT = (
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过"
    "发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本"
    "前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很"
    "最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度"
    "门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电"
    "数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马"
)
ANY_HAN = st.characters(min_codepoint=0x4E00, max_codepoint=0x9FD5)


def _reference(text: str) -> bytes:
    return "\n".join(jieba.lcut(text)).encode()


@pytest.fixture(scope="module")
def cut():
    require_built(_jieba, "scrapy_simhash._jieba", "rjieba")
    compiled = chinese._compiled_cut()
    assert compiled is not None
    return compiled


def test_the_dictionary_is_jiebas(cut):
    """Every Han entry of jieba's own prefix dictionary, words and bare prefixes (frequency 0)."""
    jieba.initialize()
    entries = {word: frequency for word, frequency in jieba.dt.FREQ.items() if HAN_WORD.match(word)}
    assert cut.prefixes == len(entries) > 400_000  # prefixes of jieba's ~349,000 words
    for word, frequency in entries.items():
        assert cut.word_log(word) == (math.log(frequency) if frequency else None), word
    assert cut.word_log("") is None and cut.word_log("中国a") is None


def _tiny(dictionary: bytes):
    from jieba.finalseg import prob_emit, prob_start, prob_trans

    return _jieba.JiebaCut(dictionary, prob_start.P, prob_trans.P, prob_emit.P)


def test_dictionary_lines_are_read_as_jiebas_gen_pfdict_reads_them(cut):
    tiny = _tiny(
        b"  \xe4\xb8\xad\xe5\x9b\xbd 7 ns\r\n"  # 中国: padded, a tag, CRLF
        b"\xe4\xb8\xad 3\t\n"  # 中
        b"\xe5\x9b\xbd\xe5\xae\xb6 +5\n"  # 国家: int("+5")
        b"\xe5\xae\xb6 1_0\n"  # 家: int("1_0")
        b"\xe5\xa4\xa7\xe5\xad\xa6 0\n"  # 大学: listed with 0, a prefix only
        b"abc 9\n"  # no Han character: nothing to add
        b"\xe4\xb8\xad 4"  # 中 again, no final newline: the later line wins
    )
    assert tiny.word_log("中国") == math.log(7)
    assert tiny.word_log("中") == math.log(4)
    assert tiny.word_log("国家") == math.log(5)
    assert tiny.word_log("家") == math.log(10)
    assert tiny.word_log("大学") is None and tiny.word_log("大") is None
    assert tiny.word_log("国") is None  # a prefix of 国家, not a word
    assert tiny.prefixes == 7  # 中 中国 国 国家 家 大 大学
    assert tiny.joined("中国") == "中国".encode()


def test_words_not_all_of_jiebas_han_range_add_only_their_han_prefix(cut):
    tiny = _tiny(
        "一a 2\n".encode()  # Han, then Latin: the prefix 一 only
        + "\u9fd6 3\n".encode()  # just past jieba's range: nothing
        + "\u4dff 3\n".encode()  # just before it (a lead byte the range shares): nothing
        + "é 4\n".encode()  # two-byte UTF-8: nothing
        + "丁\u9fd6丁 5\n".encode()  # in, out, in: the prefix 丁 only
    )
    assert tiny.prefixes == 2
    assert tiny.word_log("一") is None and tiny.word_log("丁") is None
    with pytest.raises(UnicodeDecodeError):  # not UTF-8: refused, as jieba refuses it
        _tiny(b"\xe4\xb8 1\n")


@pytest.mark.parametrize(("dictionary", "line"), [
    (b"\xe4\xb8\xad 3\n\n\xe5\x9b\xbd 2\n", 2),  # a blank line
    (b"\xe4\xb8\xad\n", 1),  # no frequency
    (b"\xe4\xb8\xad 3\n\xe5\x9b\xbd x\n", None),  # not a number: int()'s own message
])
def test_a_line_jieba_would_refuse_raises(cut, dictionary, line):
    with pytest.raises(ValueError, match=f"line {line}:" if line else "invalid literal"):
        _tiny(dictionary)


def test_known_sentences(cut):
    for text in ("我来到北京清华大学", "他来到了网易杭研大厦", "小明硕士毕业于中国科学院计算所",
                 "永和服装饰品有限公司", "结婚的和尚未结婚的", "中\n\n国人", "人"):  # fmt: skip
        assert cut.joined(text) == _reference(text), text


def test_equals_jieba_and_rjieba_on_every_corpus_page(cut, corpora_root):
    """Each page's whole visible text (menus and footers too) and its ground-truth text."""
    whole_page = get_extractor("wholepage")
    checked = 0
    for page in iter_pages(root=corpora_root):
        for source in (whole_page(page.html, page.encoding, page.url), page.truth_text or ""):
            runs = HAN_RUN.findall(source)
            if not runs:
                continue
            text = "\n".join(runs)
            joined = cut.joined(text)
            assert joined == _reference(text), page.id
            assert joined == "\n".join(rjieba.cut(text, True)).encode(), page.id
            assert chinese._segment(runs) == rjieba.cut(text, True), page.id
            checked += len(text)
    assert checked > 500_000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=FREQUENT, min_size=1, max_size=30), min_size=1, max_size=4))
def test_equals_jieba_on_runs_of_frequent_characters(runs):
    text = "\n".join(runs)
    assert _jieba_cut().joined(text) == _reference(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=FREQUENT, max_size=30), min_size=1, max_size=4))
def test_segmenting_runs_gives_jiebas_tokens_of_the_runs_joined_by_newlines(runs):
    assert chinese._segment(runs) == jieba.lcut("\n".join(runs))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ANY_HAN, min_size=1, max_size=30))
def test_equals_jieba_on_arbitrary_han_runs(text):
    assert _jieba_cut().joined(text) == _reference(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(FREQUENT + "\n"), st.characters())))
def test_split_cut_equals_the_regular_expression_split(text):
    rest, tokens = _jieba_cut().split_cut(text)
    parts = HAN_RUN.split(text)
    assert rest == " ".join(parts[::2])
    assert tokens == _jieba_cut().joined("\n".join(parts[1::2]))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.one_of(st.sampled_from(FREQUENT + "\n"), ANY_HAN, st.characters())))
def test_split_hashes_are_the_hashes_of_split_cuts_tokens(text):
    cut = _jieba_cut()
    rest, tokens = cut.split_cut(text)
    hashed_rest, hashed = cut.split_hashes(text, POLY_BASE, tokenize.MAX_TOKEN_CHARS)
    data = np.frombuffer(tokens, dtype=np.uint8)
    starts, ends = normalize._token_bounds(data != ord("\n"))
    short = (ends - starts) // 3 <= tokenize.MAX_TOKEN_CHARS
    assert hashed_rest == rest
    assert np.frombuffer(hashed, dtype=np.uint64).tolist() == segment_hashes(
        data, starts[short], ends[short]
    ).tolist()


def test_tokens_longer_than_max_chars_are_left_out(cut):
    text = "我来到北京清华大学，他来到了网易杭研大厦"
    tokens = [token for token in jieba.lcut(text) if token != "，"]
    for max_chars in (1, 2, 3, 40):
        _, hashed = cut.split_hashes(text, POLY_BASE, max_chars)
        assert len(hashed) // 8 == sum(1 for token in tokens if len(token) <= max_chars)


def test_fingerprint_counts_do_not_depend_on_the_build(cut, corpora_root):
    """token_hash_counts with the compiled cut equals the rjieba path on every Chinese page."""
    checked = 0
    for page in iter_pages(root=corpora_root, with_truth_text=True):
        text = page.truth_text or ""
        if not HAN_RUN.search(text):
            continue
        compiled = hashing.token_hash_counts(text)
        with mock.patch.object(chinese, "_compiled_cut", lambda: None):
            fallback = hashing.token_hash_counts(text)
        assert compiled[0].tolist() == fallback[0].tolist(), page.id
        assert compiled[1].tolist() == fallback[1].tolist(), page.id
        checked += 1
    assert checked > 50


def test_refuses_what_is_not_a_han_run(cut):
    with pytest.raises(ValueError, match="U\\+0041"):
        cut.joined("中A")


def _jieba_cut():
    require_built(_jieba, "scrapy_simhash._jieba", "rjieba")
    return chinese._compiled_cut()


def test_a_projects_own_jieba_dictionary_does_not_change_the_cut(tmp_path):
    """A spider may call jieba.set_dictionary for its own use; our tokens stay jieba's defaults
    (the crawl's workers never see that call, so following it would split one crawl's bits)."""
    require_built(_jieba, "scrapy_simhash._jieba", "rjieba")
    text = "北京是中华人民共和国的首都，也是全国的政治中心和文化中心。"
    expected = tokenize.tokenize(text)
    own = tmp_path / "own_dict.txt"
    own.write_text("中华人民共和国的首 100 n\n全国的政 100 n\n", encoding="utf-8")
    previous = jieba.dt.dictionary
    chinese._compiled_cut.cache_clear()
    try:
        jieba.set_dictionary(str(own))
        assert tokenize.tokenize(text) == expected
    finally:
        jieba.dt.dictionary = previous
        chinese._compiled_cut.cache_clear()



def test_the_tables_are_read_from_jiebas_files_without_importing_it(monkeypatch):
    from jieba.finalseg import prob_emit, prob_start, prob_trans

    with jieba.get_module_res(jieba.DEFAULT_DICT_NAME) as dictionary:
        expected = (dictionary.read(), prob_start.P, prob_trans.P, prob_emit.P)
    read = []
    module_from_file = chinese._module_from_file
    monkeypatch.setattr(chinese, "_module_from_file",
                        lambda path: read.append(path.name) or module_from_file(path))
    monkeypatch.delitem(sys.modules, "jieba")  # as in a crawl's or a worker's own process
    assert chinese._jieba_tables() == expected
    assert read == ["prob_start.py", "prob_trans.py", "prob_emit.py"]
    assert "jieba" not in sys.modules  # (its pkg_resources import: ~0.15 s of a start-up)


def test_the_tables_come_from_jieba_itself_when_its_files_cannot_be_found(monkeypatch):
    expected = chinese._jieba_tables()
    monkeypatch.delitem(sys.modules, "jieba")
    monkeypatch.setattr(chinese.importlib.util, "find_spec", lambda name: None)
    assert chinese._jieba_tables() == expected
    assert "jieba" in sys.modules  # imported after all
