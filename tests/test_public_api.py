"""The names users and independent checks import from ``scrapy_simhash`` keep working."""

from __future__ import annotations

import subprocess
import sys

import pytest

import scrapy_simhash

CONTRACT = [
    "Fingerprinter", "hamming_distance", "open_index", "Addon", "extract_main_text",
    "is_near_duplicate", "Match", "SimhashDownloaderMiddleware", "SimhashPipeline",
    "NearDuplicatePage", "NearDuplicateItem", "IndexParameterMismatch", "get_detector",
]


@pytest.mark.parametrize("name", CONTRACT)
def test_public_name_resolves(name):
    assert getattr(scrapy_simhash, name) is not None
    assert name in scrapy_simhash.__all__


def test_importing_the_engine_does_not_import_scrapy():
    code = "import sys, scrapy_simhash; print('scrapy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = scrapy_simhash.nope


def test_command_line_entry_point_answers():
    out = subprocess.run([sys.executable, "-m", "scrapy_simhash", "--help"],
                         capture_output=True, text=True, check=True)
    for command in ("dedup", "compare", "index", "report"):
        assert command in out.stdout
