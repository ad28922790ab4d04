"""Fuzzing: random bytes, Unicode, broken markup and lying charsets through every stage.

Nothing may raise: extraction and fingerprinting return text / an int / None, the downloader
middleware returns the response or drops it with NearDuplicatePage, the pipeline returns the item
or drops it with NearDuplicateItem. 60 examples per property normally, 1,000 with
``SIMHASH_LONG=1``, N with ``SIMHASH_FUZZ_EXAMPLES=N`` (benchmarks/fuzz.py runs them that way).
"""

from __future__ import annotations

import functools
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scrapy import Spider
from scrapy.http import Headers, Request
from scrapy.responsetypes import responsetypes
from scrapy.utils.test import get_crawler

from scrapy_simhash.crawl.downloader import NearDuplicatePage, SimhashDownloaderMiddleware
from scrapy_simhash.crawl.pipeline import NearDuplicateItem, SimhashPipeline
from scrapy_simhash.extract import decode_html, extract_main_text, get_extractor
from scrapy_simhash.fingerprint import Fingerprinter

from .conftest import long_run
from .strategies import BODIES, CHARSET_LABELS, CONTENT_TYPES, encoded_pages, html_documents

EXAMPLES = int(os.environ.get("SIMHASH_FUZZ_EXAMPLES") or (1000 if long_run() else 60))
FUZZ = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=not long_run(),  # the normal run is reproducible; the long run explores
)
LABELS = st.none() | st.sampled_from(CHARSET_LABELS) | st.text(max_size=20)
FINGERPRINTERS = (
    Fingerprinter(),
    Fingerprinter(64, 3, features="chars", tokenizer="words", min_tokens=1),
    Fingerprinter(features="shingles", weighting="tfidf", extractor="wholepage"),
)


def _check_fingerprint(fingerprinter: Fingerprinter, value: object) -> None:
    assert value is None or (isinstance(value, int) and 0 <= value < 1 << fingerprinter.bits)


@FUZZ
@given(body=BODIES, label=LABELS, which=st.sampled_from(range(len(FINGERPRINTERS))))
def test_fingerprint_html_never_raises_on_any_body(body, label, which):
    fingerprinter = FINGERPRINTERS[which]
    _check_fingerprint(fingerprinter, fingerprinter.fingerprint_html(body, label, "http://x/"))


@FUZZ
@given(text=st.text(max_size=3000) | html_documents())
def test_fingerprint_of_any_unicode_never_raises(text):
    for fingerprinter in FINGERPRINTERS:
        _check_fingerprint(fingerprinter, fingerprinter.fingerprint_html(text))
        _check_fingerprint(fingerprinter, fingerprinter.fingerprint_text(text))


@FUZZ
@given(page=encoded_pages(), max_chars=st.integers(0, 500))
def test_extraction_and_decoding_never_raise_and_respect_max_chars(page, max_chars):
    body, label = page
    assert isinstance(decode_html(body, label), str)
    text = extract_main_text(body, label, max_chars=max_chars)
    assert isinstance(text, str) and len(text) <= max_chars
    assert isinstance(get_extractor("wholepage")(body, label, None), str)


@FUZZ
@given(page=encoded_pages(), cuts=st.lists(st.floats(0, 1), min_size=1, max_size=5))
def test_every_truncation_of_a_page_fingerprints(page, cuts):
    body, label = page
    for cut in cuts:
        _check_fingerprint(FINGERPRINTERS[0],
                           FINGERPRINTERS[0].fingerprint_html(body[: int(len(body) * cut)], label))


@functools.lru_cache(maxsize=1)
def _components():
    crawler = get_crawler(Spider, {"SIMHASH_MAX_BODY_SIZE": 3000, "SIMHASH_WORKERS": 0})
    crawler.spider = crawler._create_spider("fuzz")
    middleware = SimhashDownloaderMiddleware.from_crawler(crawler)
    middleware.spider_opened()
    pipeline = SimhashPipeline.from_crawler(crawler)
    pipeline.spider_opened()
    return crawler, middleware, pipeline


@FUZZ
@given(
    body=BODIES,
    content_type=st.sampled_from(CONTENT_TYPES),
    label=st.sampled_from(CHARSET_LABELS),
    status=st.sampled_from([200, 203, 206, 301, 404, 500, 999]),
    path=st.text(max_size=20),
)
def test_middleware_keeps_or_drops_every_response(body, content_type, label, status, path):
    crawler, middleware, _ = _components()
    url = "http://fuzz.test/" + "".join(f"%{ord(c):02x}" if ord(c) < 128 else "x" for c in path)
    headers = Headers({"Content-Type": content_type.format(label).encode("latin-1", "replace")})
    response_class = responsetypes.from_args(headers=headers, url=url, body=body)
    request = Request(url)
    response = response_class(url, status=status, headers=headers, body=body, request=request)
    try:
        assert middleware.process_response(request, response) is response
    except NearDuplicatePage as dropped:
        assert dropped.duplicate_of is not None  # never dropped by an error (policy "keep")
    stats = crawler.stats.get_stats()
    assert stats.get("simhash/pages/checked", 0) == (
        stats.get("simhash/pages/kept", 0) + stats.get("simhash/pages/dropped", 0)
    )
    assert "simhash/index/errors" not in stats


FIELD_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=200)
    | st.binary(max_size=200),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


@FUZZ
@given(item=st.dictionaries(st.sampled_from(["url", "title", "body", "other"]), FIELD_VALUES))
def test_pipeline_keeps_or_drops_every_item(item):
    crawler, _, pipeline = _components()
    try:
        assert pipeline.process_item(dict(item)) is not None
    except NearDuplicateItem as dropped:
        assert dropped.duplicate_of is not None
    assert "simhash/index/errors" not in crawler.stats.get_stats()
