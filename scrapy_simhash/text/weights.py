"""Feature weights: term frequency, 1 + ln(tf), or tf x idf with jieba's IDF table."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

WEIGHTINGS = ("tf", "logtf", "tfidf")


def weigh(features: list[str], weighting: str, idf: Callable[[str], float] | None = None
          ) -> dict[str, float]:
    """Feature -> weight: raw term frequency, 1 + ln(tf), or tf x idf."""
    counts = Counter(features)
    if weighting == "tf":
        return dict(counts)
    if weighting == "logtf":
        return {f: 1.0 + math.log(c) for f, c in counts.items()}
    if weighting == "tfidf":
        lookup = idf or idf_weight
        return {f: c * lookup(f) for f, c in counts.items()}
    raise ValueError(f"weighting must be one of {WEIGHTINGS}, not {weighting!r}")


@lru_cache(maxsize=1)
def _idf_table() -> tuple[dict[str, float], float]:
    """jieba's IDF table (Chinese words) and its median, used for words it does not list."""
    import jieba.analyse

    path = Path(jieba.analyse.__file__).with_name("idf.txt")
    table: dict[str, float] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, _, value = line.rpartition(" ")
        if word:
            table[word] = float(value)
    values = sorted(table.values())
    return table, values[len(values) // 2]


def idf_weight(feature: str) -> float:
    """IDF of a word (or mean over a shingle's words) from jieba's table; unlisted -> median IDF.

    jieba ships IDF for Chinese only, so Latin-script words all get the median: for English text
    TF-IDF weights are TF weights times one constant, which gives the same fingerprint except
    where rounding the weights to thousandths breaks a tie differently.
    """
    table, median = _idf_table()
    if " " not in feature:
        return table.get(feature, median)
    words = feature.split(" ")
    return sum(table.get(w, median) for w in words) / len(words)
