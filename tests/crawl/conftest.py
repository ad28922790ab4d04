"""Fixtures for the Scrapy tests (shared with tests/reliability: see crawlfixtures.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from crawlfixtures import demo_site, install_default_reactor, middleware_factory  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks.hardneg, for the hard-negatives crawl
    sys.path.insert(0, str(REPO))

install_default_reactor()
