"""Precision / recall / F1 bookkeeping."""

from __future__ import annotations

import pytest
from evaluation import Confusion, score_decisions


def test_counts_and_rates():
    rows = [("a", True, True), ("a", True, False), ("b", False, True), ("b", False, False)]
    overall, per_kind = score_decisions(rows)
    assert (overall.tp, overall.fn, overall.fp, overall.tn) == (1, 1, 1, 1)
    assert overall.precision == 0.5 and overall.recall == 0.5
    assert overall.f1 == pytest.approx(0.5)
    assert per_kind["a"].recall == 0.5 and per_kind["b"].fp == 1


def test_empty_confusion_is_perfect_not_a_division_error():
    empty = Confusion()
    assert empty.precision == 1.0 and empty.recall == 1.0 and empty.accuracy == 1.0


def test_no_true_positives_gives_zero_f1():
    overall, _ = score_decisions([("a", True, False), ("b", False, True)])
    assert overall.f1 == 0.0
