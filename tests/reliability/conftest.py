"""Fixtures for the reliability suite: the long-run switch, the demo site and crawl helpers.

``SIMHASH_LONG=1`` turns the long runs on (more hypothesis examples, hundreds of SIGKILLs);
without it the whole folder stays well under two minutes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

CRAWL_TESTS = Path(__file__).resolve().parents[1] / "crawl"
if str(CRAWL_TESTS) not in sys.path:  # tests/crawl's helpers: crawling.py, crawlfixtures.py
    sys.path.insert(0, str(CRAWL_TESTS))

from crawlfixtures import (  # noqa: E402, F401
    demo_site,
    install_default_reactor,
    middleware_factory,
)
from redisfixture import redis_server  # noqa: E402, F401 - a real redis-server, or a skip

install_default_reactor()


def long_run() -> bool:
    """True when SIMHASH_LONG=1 asks for the long fuzz and crash runs."""
    return os.environ.get("SIMHASH_LONG", "") not in ("", "0", "false", "no")
