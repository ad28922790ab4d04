"""SIMHASH_* settings: defaults, and bad values failing at start-up with the setting's name."""

from __future__ import annotations

import json

import pytest
from crawling import run_crawl
from scrapy import Spider
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.downloader import SimhashDownloaderMiddleware
from scrapy_simhash.crawl.pipeline import SimhashPipeline
from scrapy_simhash.crawl.settings import SimhashSettingError, load_config


def config(**settings):
    return load_config(get_crawler(Spider, settings).settings)


def test_defaults():
    loaded = config()
    assert loaded.enabled is True
    assert loaded.index_uri == "memory://"
    assert loaded.fingerprint_kwargs == {}  # the library's defaults
    assert loaded.item_fields == ("title", "body")
    assert loaded.on_index_error == "keep"
    assert loaded.report_file is None
    assert loaded.workers == "auto"
    assert loaded.worker_timeout == 60.0


def test_values_are_read():
    loaded = config(SIMHASH_BITS="128", SIMHASH_MAX_DISTANCE=6, SIMHASH_ITEM_FIELDS="title, text",
                    SIMHASH_ON_INDEX_ERROR="DROP", SIMHASH_FOLD_TRADITIONAL="true",
                    SIMHASH_INDEX_URI="sqlite:///seen.db")
    assert loaded.fingerprint_kwargs == {"bits": 128, "max_distance": 6, "fold_traditional": True}
    assert loaded.item_fields == ("title", "text")
    assert loaded.on_index_error == "drop"
    assert loaded.index_uri == "sqlite:///seen.db"
    assert config(SIMHASH_WORKERS="3", SIMHASH_WORKER_TIMEOUT="2.5").workers == 3
    assert config(SIMHASH_WORKERS=" AUTO ").workers == "auto"
    assert config(SIMHASH_WORKER_TIMEOUT="2.5").worker_timeout == 2.5


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("SIMHASH_ENABLED", "maybe", "True or False"),
        ("SIMHASH_ALGORITHM", "lsh", "'simhash', 'minhash', 'ksentence', 'exact'"),
        ("SIMHASH_ALGORITHM_OPTIONS", "not a dict", "dict"),
        ("SIMHASH_BITS", "many", "allowed values are 64 or 128"),
        ("SIMHASH_BITS", "--64", "allowed values are 64 or 128"),  # int() would refuse it
        ("SIMHASH_BITS", "\u00b2", "allowed values are 64 or 128"),  # a digit to str.isdigit
        ("SIMHASH_BITS", 64.0, "allowed values are 64 or 128"),
        ("SIMHASH_BITS", 48, "allowed values are 64 or 128"),
        ("SIMHASH_MAX_DISTANCE", -1, "integer >= 0"),
        ("SIMHASH_MIN_TOKENS", 2.5, "integer"),
        ("SIMHASH_MIN_TOKENS", 0, "integer >= 1"),
        ("SIMHASH_ALGORITHM_OPTIONS", "[1]", "dict"),  # JSON, but not an object
        ("SIMHASH_FOLD_TRADITIONAL", "sometimes", "True or False"),
        ("SIMHASH_ITEM_FIELDS", [], "list of field names"),
        ("SIMHASH_ITEM_FIELDS", '["title", body]', "JSON array"),
        ("SIMHASH_ITEM_KEY_FIELD", ["url"], "field name"),
        ("SIMHASH_ON_INDEX_ERROR", "ignore", "'keep', 'drop', 'stop'"),
        ("SIMHASH_INDEX_URI", "ftp://example.com/x", "memory://"),
        ("SIMHASH_INDEX_URI", "no_such_package.Index", "memory://"),
        ("SIMHASH_INDEX_URI", "sqlite:///seen.db?namespace=x", "may not set 'namespace'"),
        ("SIMHASH_INDEX_URI", "redis://h/0?params=x", "may not set 'params'"),
        ("SIMHASH_INDEX_OPTIONS", 3, "dict"),
        ("SIMHASH_FINGERPRINT_OPTIONS", [1], "dict"),
        ("SIMHASH_REPORT_FILE", 12, "file path"),
        ("SIMHASH_REPORT_FILE", "s3://bucket/dups.jsonl", "written locally"),
        ("SIMHASH_REPORT_FILE", "file://elsewhere/dups.jsonl", "written locally"),
        ("SIMHASH_MAX_BODY_SIZE", 0, "integer >= 1"),
        ("SIMHASH_WORKERS", "many", "'auto' or an integer >= 0"),
        ("SIMHASH_WORKERS", -1, "'auto' or an integer >= 0"),
        ("SIMHASH_WORKERS", 65, "<= 64"),
        ("SIMHASH_WORKER_TIMEOUT", 0, "seconds > 0"),
        ("SIMHASH_WORKER_TIMEOUT", "soon", "seconds > 0"),
        ("SIMHASH_WORKER_TIMEOUT", True, "seconds > 0"),
    ],
)
def test_bad_value_names_the_setting_and_what_is_allowed(name, value, allowed):
    with pytest.raises(SimhashSettingError, match=name) as raised:
        config(**{name: value})
    assert allowed in str(raised.value)
    assert raised.value.setting == name


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SIMHASH_BITS", 48),
        ("SIMHASH_MAX_DISTANCE", 65),
        ("SIMHASH_MAX_DISTANCE", 64),  # half the bits: the index could not split them
        ("SIMHASH_TOKENIZER", "letters"),
        ("SIMHASH_FEATURES", "sentences"),
        ("SIMHASH_WEIGHTING", "bm25"),
        ("SIMHASH_EXTRACTOR", "no-such-extractor"),
    ],
)
@pytest.mark.parametrize("component", [SimhashDownloaderMiddleware, SimhashPipeline])
def test_fingerprint_settings_are_checked_when_the_component_is_built(component, name, value):
    crawler = get_crawler(Spider, {name: value})
    with pytest.raises(SimhashSettingError, match=name) as raised:
        component.from_crawler(crawler)
    assert str(raised.value).startswith(f"{name}={value!r} is invalid: ")


@pytest.mark.parametrize(
    ("algorithm", "options"),
    [
        ("minhash", {"threshold": "0.5"}),  # the detector's own message names no setting
        ("minhash", {"num_perm": 64.0}),
        ("ksentence", {"k": "3"}),
    ],
)
def test_bad_algorithm_options_name_that_setting(algorithm, options):
    crawler = get_crawler(Spider, {"SIMHASH_ALGORITHM": algorithm,
                                   "SIMHASH_ALGORITHM_OPTIONS": options})
    with pytest.raises(SimhashSettingError) as raised:
        SimhashDownloaderMiddleware.from_crawler(crawler)
    assert raised.value.setting == "SIMHASH_ALGORITHM_OPTIONS"


@pytest.mark.parametrize(
    ("algorithm", "option", "takes"),
    [
        ("simhash", "threshold", "it takes none"),
        ("minhash", "thresh", "its options are threshold, num_perm, shingle_size"),
        ("ksentence", "threshold", "its options are k"),
    ],
)
def test_an_option_the_algorithm_does_not_take_is_named_with_the_ones_it_does(
    algorithm, option, takes
):
    crawler = get_crawler(Spider, {"SIMHASH_ALGORITHM": algorithm,
                                   "SIMHASH_ALGORITHM_OPTIONS": {option: 0.5}})
    with pytest.raises(SimhashSettingError) as raised:
        SimhashDownloaderMiddleware.from_crawler(crawler)
    assert raised.value.setting == "SIMHASH_ALGORITHM_OPTIONS"
    assert f"{option!r} is not an option of SIMHASH_ALGORITHM={algorithm!r}: {takes}" in str(
        raised.value)


def test_a_jobdir_index_is_in_the_jobdir_whatever_its_name_holds(tmp_path):
    from scrapy_simhash.index.uri import parse_index_uri

    jobdir = tmp_path / "job #1 %20 what?"
    uri = config(JOBDIR=str(jobdir)).index_uri
    assert parse_index_uri(uri).sqlite_path == jobdir / "simhash.sqlite"


def test_index_classes_are_imported_without_scrapy():
    assert config(SIMHASH_INDEX_URI="scrapy_simhash.index.MemoryIndex").index_uri == (
        "scrapy_simhash.index.MemoryIndex"
    )


def test_a_report_file_may_be_a_file_uri():
    assert config(SIMHASH_REPORT_FILE="file:///tmp/my%20dups.jsonl").report_file == (
        "/tmp/my dups.jsonl"
    )


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        # "k" (an algorithm option) is inside "tokenizer": the tokenizer's setting is to blame
        ({"SIMHASH_ALGORITHM": "ksentence", "SIMHASH_ALGORITHM_OPTIONS": {"k": 3},
          "SIMHASH_TOKENIZER": "bogus"}, "SIMHASH_TOKENIZER"),
        # given in SIMHASH_FINGERPRINT_OPTIONS, not as SIMHASH_BITS
        ({"SIMHASH_FINGERPRINT_OPTIONS": {"bits": 100}}, "SIMHASH_FINGERPRINT_OPTIONS"),
        ({"SIMHASH_BITS": 100, "SIMHASH_FINGERPRINT_OPTIONS": {"bits": 64}}, "SIMHASH_BITS"),
    ],
)
def test_an_error_names_the_setting_its_value_came_from(settings, named):
    with pytest.raises(SimhashSettingError) as raised:
        SimhashDownloaderMiddleware.from_crawler(get_crawler(Spider, settings))
    assert raised.value.setting == named


def test_an_error_names_its_setting_by_the_parameter_it_carries_not_by_its_words():
    from scrapy_simhash.crawl.settings import setting_for_error
    from scrapy_simhash.simhash import ParameterError

    error = ParameterError("max_distance", "with bits=64, max_distance must be below 32; got 40")
    kwargs = {"bits": 64, "max_distance": 40}
    assert setting_for_error(error, kwargs) == ("SIMHASH_MAX_DISTANCE", 40)
    sources = {"bits": "SIMHASH_BITS", "max_distance": "SIMHASH_FINGERPRINT_OPTIONS"}
    assert setting_for_error(error, kwargs, sources) == (
        "SIMHASH_FINGERPRINT_OPTIONS", {"max_distance": 40}
    )
    # an error that names no parameter: every fingerprint setting given
    assert setting_for_error(ValueError("max_distance"), kwargs)[0] == (
        "SIMHASH_BITS, SIMHASH_MAX_DISTANCE"
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [("bits", 48), ("max_distance", 64), ("tokenizer", "letters"), ("features", "sentences"),
     ("weighting", "bm25"), ("min_tokens", 0), ("shingle_size", 0), ("fold_traditional", "yes")],
)
def test_fingerprinter_errors_carry_the_parameters_name(name, value):
    from scrapy_simhash.fingerprint import Fingerprinter
    from scrapy_simhash.simhash import ParameterError

    with pytest.raises(ParameterError) as raised:
        Fingerprinter(**{name: value})
    assert raised.value.name == name


def test_a_component_built_by_hand_raises_the_setting_error():
    # (outside a crawl: the library's callers and the unit tests get the exception itself)
    crawler = get_crawler(Spider, {"SIMHASH_ON_INDEX_ERROR": "maybe"})
    with pytest.raises(SimhashSettingError, match="SIMHASH_ON_INDEX_ERROR"):
        SimhashPipeline.from_crawler(crawler)


PIPELINE = "scrapy_simhash.pipeline.SimhashPipeline"
SPIDER_MIDDLEWARE = "scrapy_simhash.spidermiddleware.SimhashSpiderMiddleware"

# A crawl from a script, with settings given as Python values (argv: URL, folder, JSON); it
# exits 1 when the crawl failed, as `scrapy crawl` does.
SETTINGS_SCRIPT = """
import json, sys
from scrapy.crawler import CrawlerProcess
from scrapy.utils.project import get_project_settings
from demo.spiders.news import NewsSpider
url, out, extra = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
settings = get_project_settings()
settings.setdict({"STATS_DUMP_FILE": out + "/stats.json", **extra}, "cmdline")
process = CrawlerProcess(settings)
process.crawl(NewsSpider, start_url=url + "/")
process.start()
sys.exit(1 if process.bootstrap_failed else 0)
"""


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"SIMHASH_MAX_DISTANCE": "abc"}, "SIMHASH_MAX_DISTANCE='abc'"),  # downloader middleware
        ({"SIMHASH_ON_INDEX_ERROR": "maybe"}, "SIMHASH_ON_INDEX_ERROR='maybe'"),
        ({"SIMHASH_ENABLED": "maybe"}, "SIMHASH_ENABLED='maybe'"),
        ({"SIMHASH_ITEM_FIELDS": 5}, "SIMHASH_ITEM_FIELDS=5"),  # a Python value: by script
        ({"ADDONS": {}, "ITEM_PIPELINES": {PIPELINE: 300},  # the pipeline alone finds it
          "SIMHASH_ITEM_FIELDS": []}, "SIMHASH_ITEM_FIELDS=[]"),
        ({"ADDONS": {}, "SPIDER_MIDDLEWARES": {SPIDER_MIDDLEWARE: 950},  # the spider middleware
          "SIMHASH_URL_RULES": "sometimes"}, "SIMHASH_URL_RULES='sometimes'"),
    ],
)
def test_a_bad_value_stops_the_crawl_with_one_line_and_no_traceback(
    demo_site, tmp_path, settings, named
):
    if all(isinstance(value, str) for value in settings.values()):
        args = [arg for name, value in settings.items() for arg in ("-s", f"{name}={value}")]
        result = run_crawl(demo_site, tmp_path, *args, timeout=60)
    else:
        result = run_crawl(demo_site, tmp_path, json.dumps(settings), script=SETTINGS_SCRIPT,
                           timeout=60)
    assert result.returncode == 1, result.log[-3000:]
    assert "Traceback" not in result.log, result.log[-3000:]
    errors = [line for line in result.log.splitlines() if " ERROR: " in line]
    assert len(errors) == 1, result.log[-3000:]
    assert named in errors[0] and ("expected" in errors[0] or "allowed" in errors[0])
    assert "Spider closed (simhash_setting_error)" in result.log
    assert result.requested == [] and result.items == []  # nothing fetched, nothing passed on
