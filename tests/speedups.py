"""For the tests of the compiled modules: each is optional at build time, so its tests skip where
it was not built, except in CI (``SIMHASH_REQUIRE_SPEEDUPS=1``), where a build that silently left
it out fails them."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("SIMHASH_REQUIRE_SPEEDUPS") == "1"


def compiled_module(name: str) -> ModuleType | None:
    """The module if it was built, else None."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - depends on the build
        return None


def needs(module: ModuleType | None) -> pytest.MarkDecorator:
    """Marks the tests that need ``module`` (None: not built)."""
    return pytest.mark.skipif(
        module is None and not REQUIRED, reason="the compiled module was not built"
    )


def require_built(module: ModuleType | None, name: str, fallback: str) -> None:
    """Skip the calling test when ``module`` was not built (``fallback`` is used instead), or
    fail it when CI requires the compiled modules."""
    if module is None:
        if REQUIRED:
            pytest.fail(f"SIMHASH_REQUIRE_SPEEDUPS=1, but {name} is missing")
        pytest.skip(f"the compiled module was not built (no C compiler?): {fallback} in use")
