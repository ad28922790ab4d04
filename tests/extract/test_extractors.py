"""get_extractor: built-in, whole page, the three peers, dotted paths, and its errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scrapy_simhash.extract import EXTRACTOR_NAMES, extract_main_text, get_extractor
from scrapy_simhash.extract.extractors import EXTRAS_HINT, builtin_extractor

PAGE = (Path(__file__).parent / "fixtures" / "english_news.html").read_bytes()
ARTICLE = "The project took eleven years from the first survey to the first kilowatt."


def shout(html, encoding=None, url=None):
    """A custom extractor."""
    return "CUSTOM"


@pytest.mark.parametrize("spec", [None, "", "builtin", "BUILTIN", " builtin "])
def test_builtin_is_the_default(spec):
    extractor = get_extractor(spec)
    assert extractor is builtin_extractor
    assert extractor(PAGE, None, None) == extract_main_text(PAGE)


def test_wholepage_keeps_chrome_but_not_scripts():
    text = " ".join(get_extractor("wholepage")(PAGE, None, None).split())
    assert ARTICLE in text
    assert "Related stories" in text
    assert "Brilliant news for the town" in text
    assert "tracking pixel text" not in text


@pytest.mark.parametrize("name", ["trafilatura", "readability", "resiliparse"])
def test_peers_return_the_article(name):
    pytest.importorskip({"readability": "readability"}.get(name, name))
    text = " ".join(get_extractor(name)(PAGE, "utf-8", "https://example.test/story").split())
    assert ARTICLE in text


@pytest.mark.parametrize("page", [b"<html></html>", b"<html><body></body></html>", b"", "   "])
@pytest.mark.parametrize("name", ["trafilatura", "readability", "resiliparse"])
def test_peers_take_empty_pages(name, page):
    pytest.importorskip({"readability": "readability"}.get(name, name))
    assert get_extractor(name)(page, None, None) == ""


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("trafilatura", "trafilatura"),
        ("readability", "readability"),
        ("resiliparse", "resiliparse"),
    ],
)
def test_missing_peer_names_the_extra(monkeypatch, name, module):
    monkeypatch.setitem(sys.modules, module, None)  # makes "import module" fail
    with pytest.raises(ImportError, match=r"pip install trafilatura readability-lxml resiliparse"):
        get_extractor(name)


def test_dotted_path_to_a_callable():
    extractor = get_extractor("scrapy_simhash.extract.extractors.wholepage_extractor")
    assert ARTICLE in " ".join(extractor(PAGE, None, None).split())


def test_a_callable_is_used_as_it_is():
    assert get_extractor(shout) is shout


def test_unknown_name_lists_the_allowed_values():
    with pytest.raises(ValueError, match="unknown extractor") as raised:
        get_extractor("goose")
    for name in EXTRACTOR_NAMES:
        assert name in str(raised.value)


@pytest.mark.parametrize(
    "spec",
    [
        "scrapy_simhash.extract.extractors.EXTRAS_HINT",  # a string, not a callable
        "scrapy_simhash.extract.extractors.no_such_function",
        "no_such_package.module.func",
    ],
)
def test_bad_dotted_paths(spec):
    with pytest.raises(ValueError, match="extractor"):
        get_extractor(spec)


def test_non_string_specs_are_refused():
    with pytest.raises(ValueError):
        get_extractor(42)


def test_extras_hint_is_the_install_command():
    assert EXTRAS_HINT.startswith("pip install trafilatura readability-lxml resiliparse")
