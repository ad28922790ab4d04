"""The evidence of a batch of texts is, byte for byte, the evidence of each text alone."""

from __future__ import annotations

import random

import pytest

from scrapy_simhash import evidence as ev
from scrapy_simhash.cli import textevidence
from scrapy_simhash.cli.textevidence import text_evidence_many

from .samples import EN_HARBOUR, EN_ORCHARD, ZH_RAILWAY, ZH_TEA

ODD_TEXTS = [
    "", "   ", "!!! ??", "one", "two words", "three word text", "中", "中文", "a \ud83d b",
    "𠀀𠀁𠀂 x", "Ünïcödé ẞtraße MASSE", "ﬁne ﬂow", "a\u0301b c", "x" * 5, " ".join(["w"] * 400),
    EN_HARBOUR, EN_ORCHARD.upper(), ZH_RAILWAY, ZH_TEA + " " + EN_HARBOUR,
    "\n".join([EN_HARBOUR] * 3),
    # titled texts, long ones naming their title's words (or not) in the lines after it
    "Harbour office, Zürich ẞ\n" + " ".join([EN_HARBOUR] * 3) + " Zürich STRASSE",
    "snake_case Ａｐｐｌｅ café\n" + " ".join([EN_HARBOUR] * 3) + " snake_case apple cafe",
    "茶叶 Railway\n" + ZH_RAILWAY * 3 + ZH_TEA, "Title\n\nTitle " + " ".join([EN_ORCHARD] * 3),
    "Short title\n" + EN_ORCHARD,
]


def one_by_one(text: str) -> ev.Evidence:
    """:meth:`Detector.sign_text`'s evidence."""
    hashes, words = ev.shingle_hashes(text)
    if words < ev.SHORT_WORDS:
        return ev.of_hashes(hashes, words, True, ev.text_title(text),
                            figures=ev.item_figures(text))
    title, named = ev.text_named_title(text)
    return ev.of_hashes(hashes, words, title=title, named=named)


def assert_same(got: list[ev.Evidence], texts: list[str]) -> None:
    assert len(got) == len(texts)
    for evidence, text in zip(got, texts, strict=True):
        expected = one_by_one(text)
        assert evidence.to_bytes() == expected.to_bytes(), text[:40]
        assert (evidence.words, evidence.size, evidence.weak) == (
            expected.words, expected.size, expected.weak)


def test_odd_texts_give_the_evidence_of_each_alone() -> None:
    assert_same(text_evidence_many(ODD_TEXTS), ODD_TEXTS)
    for text in ODD_TEXTS:  # alone in a batch, and beside nothing else
        assert_same(text_evidence_many([text]), [text])
    assert text_evidence_many([]) == []


@pytest.mark.parametrize("batch_chars", [1, 50, 1 << 15])
def test_random_texts_in_batches_of_any_size(monkeypatch, batch_chars: int) -> None:
    monkeypatch.setattr(textevidence, "_BATCH_CHARS", batch_chars)
    rng = random.Random(3)
    vocabulary = ["a", "b", "中", "文", "c1", "Ⅻ", "é", "-", "!", "  ", "𠀀", "x", "\n", "É"]
    texts = [" ".join(rng.choice(vocabulary) for _ in range(rng.randrange(0, 40)))
             for _ in range(400)]
    texts += [" ".join(rng.choice(vocabulary[:6]) for _ in range(rng.randrange(200, 500)))
              for _ in range(20)]
    assert_same(text_evidence_many(texts), texts)
