"""Fixtures for the Scrapy tests: the demo site served on 127.0.0.1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from crawling import DemoServer
from scrapy.utils.reactor import install_reactor

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # benchmarks.hardneg, for the hard-negatives crawl
    sys.path.insert(0, str(REPO))

# get_crawler() on Scrapy 2.13 needs the (default) asyncio reactor to be installed already.
if "twisted.internet.reactor" not in sys.modules:
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")


@pytest.fixture(scope="module")
def demo_site():
    """The demo site on a free loopback port, for the tests of one module."""
    server = DemoServer().start()
    yield server
    server.stop()
