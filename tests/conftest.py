"""Shared fixtures: the evaluation corpora (skip with a reason, or fail under CI).

The corpora and the evaluation harness live in ``benchmarks/``, outside the installed package:
that folder goes on ``sys.path`` here (``corpora``, ``evaluation``, ``hardneg``, as the benchmark
scripts import them), and the checkout's root too (``benchmarks.<module>``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "benchmarks", REPO):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from corpora import CorporaMissing, corpora_required, require_corpora_dir  # noqa: E402


@pytest.fixture(scope="session")
def corpora_root() -> Path:
    """The corpora folder; skips when absent, fails when SIMHASH_REQUIRE_CORPORA=1."""
    try:
        return require_corpora_dir()
    except CorporaMissing as missing:
        if corpora_required():
            pytest.fail(f"SIMHASH_REQUIRE_CORPORA=1 but {missing}")
        pytest.skip(str(missing))
