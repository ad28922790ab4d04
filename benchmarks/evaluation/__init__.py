"""Detection quality: labelled near-duplicate pairs built from the corpora, and their metrics.

``build_pairs`` makes positive and negative pairs of full HTML documents (see :mod:`.pairs`);
``score_decisions`` in :mod:`.metrics` turns a detector's decisions into precision, recall and F1
per pair kind. ``benchmarks/quality.py`` runs every detector over them.
"""

from __future__ import annotations

from .metrics import Confusion, score_decisions
from .pairs import (
    NEGATIVE_KINDS,
    POSITIVE_KINDS,
    LabelledPair,
    build_pairs,
    count_kinds,
)

__all__ = [
    "NEGATIVE_KINDS",
    "POSITIVE_KINDS",
    "Confusion",
    "LabelledPair",
    "build_pairs",
    "count_kinds",
    "score_decisions",
]
