"""Fixtures for the reliability suite: the long-run switch, the demo site and crawl helpers.

``SIMHASH_LONG=1`` turns the long runs on (more hypothesis examples, hundreds of SIGKILLs);
without it the whole folder stays well under two minutes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SCRAPY_TESTS = Path(__file__).resolve().parents[1] / "scrapy"
if str(SCRAPY_TESTS) not in sys.path:  # reuse tests/crawl/crawling.py (run_crawl, DemoServer)
    sys.path.insert(0, str(SCRAPY_TESTS))

from redisfixture import redis_server  # noqa: E402, F401 - a real redis-server, or a skip
from scrapy.utils.reactor import install_reactor  # noqa: E402

# get_crawler() on Scrapy 2.13 needs the (default) asyncio reactor to be installed already.
if "twisted.internet.reactor" not in sys.modules:
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")


def long_run() -> bool:
    """True when SIMHASH_LONG=1 asks for the long fuzz and crash runs."""
    return os.environ.get("SIMHASH_LONG", "") not in ("", "0", "false", "no")


@pytest.fixture(scope="module")
def demo_site():
    """The example project's demo site on a free loopback port."""
    from crawling import DemoServer

    server = DemoServer().start()
    yield server
    server.stop()
