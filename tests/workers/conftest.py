"""get_crawler() on Scrapy 2.13 needs the (default) asyncio reactor to be installed already."""

from __future__ import annotations

import sys

from scrapy.utils.reactor import install_reactor

if "twisted.internet.reactor" not in sys.modules:
    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")
