"""benchmarks/hardneg: families of distinct same-template pages, and the crawl-order simulation."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from corpora import CorporaMissing

from benchmarks.hardneg import corpus, news
from benchmarks.hardneg.families import (
    GENERATED,
    OPEN,
    corpus_families,
    generated_families,
    open_families,
)
from benchmarks.hardneg.simulate import lost_in_order, rendered_text, visible_text

REPO = Path(__file__).resolve().parents[2]

CHROME = ('id="cookie-consent"', '<header class="site-header"', '<nav class="main-nav"',
          "<footer")


@pytest.fixture(scope="module")
def generated():
    return generated_families()


def _assert_distinct(name: str, family) -> None:
    urls = [url for url, _ in family]
    assert len(set(urls)) == len(urls), f"{name}: a URL twice"
    texts = Counter(rendered_text(html) for _, html in family)
    same = [text[:80] for text, n in texts.items() if n > 1]
    assert not same, f"{name}: pages with the same text: {same}"


def test_every_promised_family_is_generated():
    assert set(GENERATED) == {
        "listing", "stock_table", "weather", "jobs", "next_data", "scores", "product_variants",
        "reference", "job_locations", "job_ads_long", "product_finishes_long",
        "vacancies_one_title", "category_pages", "daily_rates", "notices_ja",
        "notices_ko", "entity_books", "entity_films", "entity_restaurants",
        "entity_universities", "api_methods", "release_notes", "recipe_variants", "recipe_swaps",
        "regional_terms", "agency_listings", "versioned_install", "job_ads_zh",
        "forecasts_zh", "spec_variants", "docs_releases", "garments_hi", "dolls_th",
        "board_states", "tag_growth", "photo_galleries", "photo_galleries_zh",
        "episode_series", "development_units", "comment_pages", "product_tabs", "faq_answers",
        "recurring_events", "series_dates", "series_dates_zh", "restaurant_menus",
        "state_scripts", "unrendered_shells", "url_selections", "photo_slides",
        "advisories_ko", "manuals_pt", "branches_en", "job_regions_ko", "tee_colours",
        "variant_controls", "compilers", "protectors_plus", "districts_vi", "short_data_shells",
        "routes_reversed", "results_reversed", "event_date_lines", "event_date_lines_ja",
        "summary_asides", "tyre_sizes_de", "archive_pages", "status_regions",
        "warning_regions", "terms_per_country", "sidebar_plots", "frame_sizes_fr",
        "terms_without_canonical", "delivery_per_country_de", "branch_hours",
        "terms_per_country_sites",
    }


def _digest(families) -> str:
    return hashlib.sha256(repr(sorted(families.items())).encode()).hexdigest()


def test_generated_families_are_deterministic(generated):
    assert generated_families() == generated
    # and across processes, whatever their string hashing
    script = ("from benchmarks.hardneg.families import generated_families as g; import hashlib;"
              "print(hashlib.sha256(repr(sorted(g().items())).encode()).hexdigest())")
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed,
               "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "benchmarks"),
                                          os.environ.get("PYTHONPATH", "")])}
        done = subprocess.run([sys.executable, "-c", script], env=env, cwd=REPO,
                              capture_output=True, text=True, check=True)
        assert done.stdout.strip() == _digest(generated)


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_a_generated_family_has_10_to_20_pages(generated, name):
    assert 10 <= len(generated[name]) <= 20


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_pages_of_a_generated_family_are_distinct(generated, name):
    _assert_distinct(name, generated[name])


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_every_generated_page_has_the_site_chrome(generated, name):
    for url, html in generated[name]:
        assert url.startswith("https://")
        assert isinstance(html, str) and html.startswith("<!DOCTYPE html>")
        missing = [part for part in CHROME if part not in html]
        assert not missing, f"{url} lacks {missing}"


def test_open_families_are_apart_from_the_generated_and_built_alike(generated):
    """Families of shapes still lost: reported beside the others, built as they are."""
    assert OPEN and not set(OPEN) & set(generated)
    opened = open_families()
    assert _digest(opened) == _digest(open_families())
    for name, family in opened.items():
        assert 10 <= len(family) <= 20, name
        _assert_distinct(name, family)
        for url, html in family:
            assert url.startswith("https://") and html.startswith("<!DOCTYPE html>")
            assert not [part for part in CHROME if part not in html], url


def test_listing_pages_share_the_intro_but_not_the_products(generated):
    pages = [html for url, html in generated["listing"] if "/hiking-boots?" in url]
    assert len(pages) == 8
    intro = re.search(r'class="category-intro"><p>(.*?)</p>', pages[0]).group(1)
    assert all(intro in html for html in pages)
    grids = [set(re.findall(r'class="product-name">(.*?)</h3>', html)) for html in pages]
    assert all(len(grid) == 12 for grid in grids)
    assert len(set().union(*grids)) == 8 * 12


def test_next_data_products_are_only_in_the_json(generated):
    for url, html in generated["next_data"]:
        name = re.search(r'"name": "(.*?)"', html).group(1)
        assert name not in visible_text(html)
        assert name in rendered_text(html), url


@pytest.mark.parametrize("name, script", [("notices_ja", r"[\u3040-\u30ff]"),
                                           ("notices_ko", r"[\uac00-\ud7a3]")])
def test_notices_are_written_in_their_language(generated, name, script):
    for _, html in generated[name]:
        body = html.split('<main id="main">')[1].split("</main>")[0]
        assert len(re.findall(script, body)) > 50


def test_ban_articles_are_distinct_and_the_interstitial_is_one_page():
    family = news.articles(30)
    assert len(family) == 30
    _assert_distinct("articles", family)
    assert news.interstitial() == news.interstitial()
    assert "verify you are human" in news.interstitial()


def test_lost_in_order_compares_with_kept_pages_only():
    def same_letter(a: str, b: str) -> bool:
        return a[0] == b[0]

    # "ab" is lost to "aa"; "ba" is kept; "bb" is lost to "ba"; None is never compared
    assert lost_in_order(["aa", "ab", None, "ba", "bb"], same_letter) == [1, 4]
    assert lost_in_order([], same_letter) == []


# --------------------------------------------------------------------------- corpus families


def test_corpus_families_say_what_is_missing_without_the_corpora(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMHASH_CORPORA", str(tmp_path / "absent"))
    with pytest.raises(CorporaMissing, match="SIMHASH_CORPORA"):
        corpus_families()


@pytest.fixture(scope="module")
def from_corpora(request):
    root = request.getfixturevalue("corpora_root")  # skips, or fails under REQUIRE_CORPORA
    return corpus_families(root)


def test_corpus_families_are_deterministic(from_corpora, corpora_root):
    assert corpus_families(corpora_root) == from_corpora


def test_corpus_families_by_language(from_corpora):
    assert {"multilang_de", "multilang_es", "multilang_fr", "unknown_language",
            "articles_other_langs"} <= set(from_corpora)
    for name, family in from_corpora.items():
        assert len(family) >= corpus.OWN_FAMILY_MIN, name
    assert len(from_corpora["unknown_language"]) == corpus.UNKNOWN_PAGES


def test_pages_of_a_corpus_family_are_distinct(from_corpora):
    for name, family in from_corpora.items():
        _assert_distinct(name, family)


def test_unknown_language_keeps_word_shapes_but_no_english_word(from_corpora):
    table = corpus.cipher()
    assert sorted(table.values()) == sorted(table)  # a permutation of the letters
    _, html = from_corpora["unknown_language"][0]
    words = Counter(re.findall(r"[A-Za-z]+", rendered_text(html).lower()))
    assert not {"the", "and", "of", "to"} & set(words)
    assert words[corpus.encode("the")] > 5  # the commonest word keeps its frequency


def test_visible_text_is_the_whole_body_without_scripts():
    html = ("<html><head><title>Tab</title><style>p{}</style></head><body><nav>Menu</nav>"
            "<p>One<!-- note --> two<script>var x;</script></p><noscript>Enable JS</noscript>"
            "<footer>Imprint</footer></body></html>")
    assert visible_text(html) == "Menu One two Imprint"
