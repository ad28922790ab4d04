"""Precision, recall and F1 of near-duplicate decisions on labelled pairs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Confusion:
    """Counts of one detector's decisions against the labels.

    A false positive is a page the crawl would lose (two distinct pages judged duplicates);
    a false negative is a duplicate that slips through.
    """

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    def add(self, label: bool, decision: bool) -> None:
        if label and decision:
            self.tp += 1
        elif label:
            self.fn += 1
        elif decision:
            self.fp += 1
        else:
            self.tn += 1

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def precision(self) -> float:
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else 1.0

    @property
    def recall(self) -> float:
        actual = self.tp + self.fn
        return self.tp / actual if actual else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.total if self.total else 1.0


def score_decisions(
    rows: Iterable[tuple[str, bool, bool]],
) -> tuple[Confusion, dict[str, Confusion]]:
    """Overall and per-kind confusion counts from ``(kind, label, decision)`` rows."""
    overall = Confusion()
    per_kind: dict[str, Confusion] = defaultdict(Confusion)
    for kind, label, decision in rows:
        overall.add(label, decision)
        per_kind[kind].add(label, decision)
    return overall, dict(sorted(per_kind.items()))
