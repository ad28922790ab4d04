"""Shared fixtures: the evaluation corpora (skip with a reason, or fail under CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scrapy_simhash.corpora import CorporaMissing, corpora_required, require_corpora_dir


@pytest.fixture(scope="session")
def corpora_root() -> Path:
    """The corpora folder; skips when absent, fails when SIMHASH_REQUIRE_CORPORA=1."""
    try:
        return require_corpora_dir()
    except CorporaMissing as missing:
        if corpora_required():
            pytest.fail(f"SIMHASH_REQUIRE_CORPORA=1 but {missing}")
        pytest.skip(str(missing))
