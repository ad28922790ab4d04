"""The add-on: its components at add-on priority; settings.py and custom_settings still win."""

from __future__ import annotations

from typing import ClassVar

from scrapy import Spider
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.addon import Addon
from scrapy_simhash.crawl.downloader import PRIORITY, SimhashDownloaderMiddleware
from scrapy_simhash.crawl.pipeline import SimhashPipeline
from scrapy_simhash.crawl.spider import SimhashSpiderMiddleware

ADDONS = {"ADDONS": {Addon: 0}}


def component_dict(crawler, name):
    from scrapy.utils.misc import load_object

    return {load_object(k) if isinstance(k, str) else k: v
            for k, v in crawler.settings.getdict(name).items()}


def test_addon_enables_the_components():
    crawler = get_crawler(Spider, ADDONS)
    assert component_dict(crawler, "DOWNLOADER_MIDDLEWARES")[SimhashDownloaderMiddleware] == (
        PRIORITY
    )
    assert SimhashPipeline in component_dict(crawler, "ITEM_PIPELINES")
    assert SimhashSpiderMiddleware in component_dict(crawler, "SPIDER_MIDDLEWARES")
    assert crawler.settings["SIMHASH_INDEX_URI"] == "memory://"


def test_project_settings_win_over_addon_defaults():
    crawler = get_crawler(Spider, {
        **ADDONS,
        "SIMHASH_INDEX_URI": "sqlite:///seen.db",
        "DOWNLOADER_MIDDLEWARES": {"scrapy_simhash.middleware.SimhashDownloaderMiddleware": None},
        "ITEM_PIPELINES": {"scrapy_simhash.pipeline.SimhashPipeline": 800},
    })
    assert crawler.settings["SIMHASH_INDEX_URI"] == "sqlite:///seen.db"
    assert component_dict(crawler, "DOWNLOADER_MIDDLEWARES")[SimhashDownloaderMiddleware] is None
    assert component_dict(crawler, "ITEM_PIPELINES")[SimhashPipeline] == 800


class QuietSpider(Spider):
    name = "quiet"
    custom_settings: ClassVar[dict] = {"SIMHASH_MAX_DISTANCE": 5, "SIMHASH_ITEM_FIELDS": ["text"]}


def test_custom_settings_reach_the_components():
    crawler = get_crawler(QuietSpider, ADDONS)
    pipeline = SimhashPipeline.from_crawler(crawler)
    assert pipeline.dedup.detector.max_distance == 5
    assert pipeline.fields == ("text",)


def test_update_settings_does_not_override_higher_priorities():
    settings = Settings({"SIMHASH_ON_INDEX_ERROR": "stop"}, priority="project")
    Addon().update_settings(settings)
    assert settings["SIMHASH_ON_INDEX_ERROR"] == "stop"
    assert settings.getpriority("SIMHASH_REPORT_FILE") is None  # None defaults are not set
