"""Scrapy add-on: one line in ``ADDONS`` enables the simhash components.

    ADDONS = {"scrapy_simhash.Addon": 0}

The defaults are set at "addon" priority, so any ``SIMHASH_*`` value in settings.py, in a
spider's ``custom_settings`` or on the command line wins. Each component is added to its
component dictionary only if that dictionary does not name it already, so
``DOWNLOADER_MIDDLEWARES = {"scrapy_simhash.SimhashDownloaderMiddleware": None}`` in settings.py
still turns the middleware off, and another priority there is kept.
"""

from __future__ import annotations

import copy

from scrapy.settings import BaseSettings

from scrapy_simhash import middleware, pipeline, spidermiddleware
from scrapy_simhash.crawl.settings import DEFAULTS

#: What the add-on turns on beyond the components' own defaults.
ADDON_DEFAULTS = {"SIMHASH_URL_RULES": True}


class Addon:
    """Adds the downloader middleware, the item pipeline, the spider middleware that frees a
    checked page's tree after its callback, and the ``SIMHASH_*`` defaults."""

    def update_settings(self, settings: BaseSettings) -> None:
        for name, value in {**DEFAULTS, **ADDON_DEFAULTS}.items():
            if value is not None:
                settings.set(name, copy.deepcopy(value), priority="addon")
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", middleware.SimhashDownloaderMiddleware, middleware.PRIORITY
        )
        settings.setdefault_in_component_priority_dict(
            "ITEM_PIPELINES", pipeline.SimhashPipeline, pipeline.PRIORITY
        )
        settings.setdefault_in_component_priority_dict(
            "SPIDER_MIDDLEWARES",
            spidermiddleware.SimhashSpiderMiddleware,
            spidermiddleware.PRIORITY,
        )
