"""_tokens: word hashes read straight from a stable text equal those of the folding path.

``features.token_hash_counts`` takes the compiled path for texts whose characters folding leaves
alone (ASCII capitals aside); each test runs it with and without that path on the same text:
every corpus page's visible text and ground truth, and generated text full of the characters
that folding changes (capitals, ß, dotted I, Kelvin sign, ligatures, full-width forms, combining
marks) or that end the compiled path (CJK, characters outside the Basic Multilingual Plane).
"""

from __future__ import annotations

from unittest import mock

from corpora import iter_pages
from hypothesis import given, settings
from hypothesis import strategies as st
from speedups import compiled_module, needs, require_built

from scrapy_simhash.extract import get_extractor
from scrapy_simhash.simhash import string_hashes
from scrapy_simhash.text import hashing, tokenize

_tokens = compiled_module("scrapy_simhash._tokens")
needs_module = needs(_tokens)


def _both(text: str) -> tuple[list, list]:
    compiled = hashing.token_hash_counts(text)
    with mock.patch.object(hashing, "_compiled_word_hashes", lambda: None):
        python = hashing.token_hash_counts(text)
    return [a.tolist() for a in compiled], [a.tolist() for a in python]


def test_compiled_module_is_built():
    require_built(_tokens, "scrapy_simhash._tokens", "the folding path")
    assert hashing._compiled_word_hashes() is _tokens.word_hashes


@needs_module
def test_equals_the_folding_path_on_every_corpus_page(corpora_root):
    whole_page = get_extractor("wholepage")
    compiled_path = 0
    for page in iter_pages(root=corpora_root):
        for text in (whole_page(page.html, page.encoding, page.url), page.truth_text or ""):
            compiled, python = _both(text)
            assert compiled == python, page.id
            compiled_path += hashing._stable_word_hashes(text) is not None
    assert compiled_path > 300  # most non-Chinese pages take it


FOLDED = ["A", "Z", "ß", "İ", "K", "ﬁ", "Ａ", "１", "é", "e\u0301", "Σ", "ς", "ǅ", "ⅷ", "²",
          "\u00a0", "…", "—", "“", "中", "𝔘", "ا", "ä", "_", "-", " ", ".", "9", "x"]  # fmt: skip


@needs_module
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FOLDED), st.text(max_size=3)), max_size=30))
def test_equals_the_folding_path_on_generated_text(pieces):
    compiled, python = _both("".join(pieces))
    assert compiled == python


@needs_module
def test_long_words_and_single_letters_are_left_out():
    text = "a " + "x" * 41 + " " + "y" * 40 + " é ab"
    hashed = hashing._stable_word_hashes(text)
    assert hashed is not None
    # "a" and the 41 x's are out; 40 characters is the limit; "é" is one letter but two bytes
    assert tokenize.MAX_TOKEN_CHARS == 40
    assert hashed.tolist() == string_hashes(["y" * 40, "é", "ab"]).tolist()


@needs_module
def test_texts_folding_would_change_are_left_to_the_folding_path():
    assert hashing._stable_word_hashes("straße") is None  # casefold: "strasse"
    assert hashing._stable_word_hashes("ﬁne") is None  # NFKC: "fine"
    assert hashing._stable_word_hashes("北京 news") is None  # CJK: the Chinese path
    hashed = hashing._stable_word_hashes("Café NEWS")  # only ASCII capitals to fold
    assert hashed is not None
    assert hashed.tolist() == string_hashes(["café", "news"]).tolist()
