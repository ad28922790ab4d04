"""The text a page keeps outside its visible markup: data scripts, states and descriptions,
embedded documents, and the label-value pairs its markup writes."""

from __future__ import annotations

import json

import pytest

from scrapy_simhash.extract.parsing import parse_html
from scrapy_simhash.extract.structured import (
    MAX_ASIDE_CHARS,
    MAX_CHARS,
    MAX_FIELDS,
    aside_text,
    canonical_href,
    embedded_urls,
    field_lines,
    markup_parts,
    side_boxes,
    structured_text,
)

PRODUCT = {"name": "Oak dining table 160 cm", "price": 499, "sku": "FUR-7000", "stock": True}


def _page(body: str, head: str = "") -> object:
    return parse_html(f"<html><head>{head}</head><body><div id='app'>Loading</div>{body}"
                      "</body></html>")


def test_json_scripts_and_descriptions_give_their_values():
    blob = json.dumps({"props": {"pageProps": {"product": PRODUCT}}})
    text = structured_text(_page(
        f"<script id='__NEXT_DATA__' type='application/json'>{blob}</script>",
        "<meta name='description' content='A solid oak table.'>"))
    assert text.split("\n") == ["A solid oak table.", "Oak dining table 160 cm 499 FUR-7000"]


@pytest.mark.parametrize("script", [
    f"window.__INITIAL_STATE__ = {json.dumps({'product': PRODUCT})}; window.ready = 1;",
    f"window.__APOLLO_STATE__={json.dumps({'Product:7': PRODUCT})}",
    f"var __PRELOADED_STATE__ = {json.dumps([PRODUCT])};",
])
def test_a_state_assigned_in_a_script_gives_its_values(script):
    text = structured_text(_page(f"<script>{script}</script>"))
    assert text == "Oak dining table 160 cm 499 FUR-7000"


def test_a_state_built_by_a_function_gives_its_strings():
    script = ('window.__NUXT__=(function(a,b){return {data:[{name:a,sku:b}]}}'
              '("Oak dining table 160 cm","FUR-7000"));')
    assert structured_text(_page(f"<script>{script}</script>")) == \
        "Oak dining table 160 cm FUR-7000"


def test_other_scripts_are_not_read():
    text = structured_text(_page(
        "<script>if (window.__NUXT__) { start('Oak'); }</script>"
        "<script>var price = 499; render('Oak dining table');</script>"
        "<script src='/app.js'>window.__INITIAL_STATE__ = {\"a\": \"Oak\"}</script>"))
    assert text == ""


def test_data_is_read_up_to_its_limit():
    # (a catalogue inlined whole: read as far as the limit, its strings when cut short)
    blob = json.dumps({"items": [f"item {n}" for n in range(MAX_CHARS // 5)]})
    text = structured_text(_page(f"<script type='application/ld+json'>{blob}</script>"
                                 f"<script>window.__INITIAL_STATE__ = {blob}</script>"))
    assert MAX_CHARS - 20 <= len(text) <= MAX_CHARS
    assert structured_text(None) == ""


def test_a_script_that_only_names_a_state_takes_nothing_from_the_data_after_it():
    bundle = "if (window.__INITIAL_STATE__) { hydrate(); }" + " var x = 1;" * 20_000
    product = json.dumps({"@type": "Product", **PRODUCT})
    text = structured_text(_page(f"<script>{bundle}</script>"
                                 f"<script type='application/ld+json'>{product}</script>"))
    assert text == "Product Oak dining table 160 cm 499 FUR-7000"


def test_a_state_parsed_from_a_string_gives_its_values():
    blob = json.dumps(json.dumps({"product": PRODUCT}))
    text = structured_text(_page(f"<script>window.__INITIAL_STATE__ = JSON.parse({blob});"
                                 "</script>"))
    assert text == "Oak dining table 160 cm 499 FUR-7000"


def test_embedded_documents_are_listed_as_written():
    root = _page("<iframe src=' /content/3 '></iframe><iframe src='About:blank' "
                 "data-src='/content/4'></iframe>"
                 "<object data='/reports/2024.pdf'><a href='/reports/2024.pdf'>PDF</a></object>"
                 "<video><source src='/v/a1.mp4'></video><embed src='javascript:void(0)'>"
                 "<iframe></iframe>")
    assert embedded_urls(root) == ["/content/3", "/content/4", "/reports/2024.pdf", "/v/a1.mp4"]
    assert embedded_urls(None) == []


def test_label_value_pairs_of_the_markup_are_read_as_field_lines():
    root = _page("<dl><div><dt>Colour:</dt> <dd>White</dd></div><dt>Size</dt><!-- S-XL -->"
                 "<dd> M </dd><dt>Orphan</dt></dl>"
                 "<table><tr><th>근무지역</th><td>서울 <b>강남구</b></td></tr>"
                 "<tr><td>Brand</td><!-- make --><td>Chevrolet</td></tr>"
                 "<tr><td>a</td><td>b</td><td>c</td></tr><tr><th>Year</th><th>Model</th></tr>"
                 "</table><nav><dl><dt>Menu</dt><dd>Shop</dd></dl></nav>"
                 "<footer><table><tr><td>Phone</td><td>support</td></tr></table></footer>")
    assert field_lines(root) == ["Colour: White", "Size: M", "근무지역: 서울 강남구",
                                 "Brand: Chevrolet"]
    rows = "".join(f"<dt>Label {n}</dt><dd>Value</dd>" for n in range(MAX_FIELDS + 5))
    assert len(field_lines(_page(f"<dl>{rows}</dl>"))) == MAX_FIELDS
    assert field_lines(None) == []


def test_a_forms_chosen_option_is_a_field_unless_it_only_orders_the_page():
    root = _page('<form><select name="attribute_pa_colour"><option>White</option>'
                 "<option selected>Forest Green</option></select>"
                 '<select name="orderby"><option selected>Price</option></select>'
                 '<select name="size"><option>S</option><option>M</option></select>'
                 '<label><input type="radio" name="fit" checked> Slim</label>'
                 '<input type="radio" name="shade" value="Rust" checked>'
                 '<input type="radio" name="shade" value="Cream">'
                 '<input type="checkbox" name="gift" value="Wrapped" checked>'
                 '<select name="productListMode"><option selected>Grid</option></select>'
                 '<select name="s"><option selected>In stock</option></select>'
                 '<select name="delivery_option"><option selected>Next day</option></select>'
                 "</form>")
    assert field_lines(root) == ["attribute pa colour: Forest Green", "fit: Slim", "shade: Rust"]


def test_a_forms_chosen_option_is_no_field_of_the_pages_furniture_or_a_search():
    chosen = '<select name="colour"><option selected>Teal</option></select>'
    for page in (f"<header><form>{chosen}</form></header>", f"<aside>{chosen}</aside>",
                 f'<form><input name="q" value="scarf">{chosen}</form>',
                 f'<form role="search">{chosen}</form>'):
        assert field_lines(_page(page)) == [], page
    kept = f'<form><input type="number" name="qty" value="1">{chosen}</form>'
    assert field_lines(_page(kept)) == ["colour: Teal"]


def test_the_unlinked_text_of_the_pages_own_asides_is_read():
    root = _page('<main><p>Description</p></main><aside class="summary"><p>£250,000</p>'
                 "<ul><li>4th <b>floor</b></li><li><a href='/p/2'>Flat 2, £189,000</a></li>"
                 "</ul><script>var price = 1;</script><button>Call 0161</button>"
                 "<aside>Nested 7</aside></aside>"
                 "<header><aside>Header offer 10%</aside></header>"
                 "<footer><aside>Footer 2025</aside></footer>")
    asides = markup_parts(root).asides
    assert [aside.get("class") for aside in asides] == ["summary"]
    assert aside_text(asides).split("\n") == ["£250,000", "4th ", "floor", "Nested 7"]
    assert markup_parts(None) == ([], [], [])
    assert aside_text([]) == ""


def test_asides_of_other_pages_are_left_out():
    """A "most read" box's counts and a related list's dates change between two fetches of one
    page: an aside named as such a box, or mostly links, says nothing of the page."""
    most_read = ("<aside class='most-read'><h3>Most read</h3><p>143 readers are discussing "
                 "this</p></aside>")
    related = ("<aside><h3>Related</h3><ul><li><a href='/a'>Lifeboat crew rescues two "
               "paddleboarders</a> <time>21 April</time></li><li><a href='/b'>Ferry timetable "
               "changes announced</a> <time>3 June</time></li></ul></aside>")
    summary = ("<aside class='sidebar'><p>£250,000</p><p>4th floor</p><a href='/p/2'>Flat 2"
               "</a></aside>")
    asides = markup_parts(_page(most_read + related + summary)).asides
    assert len(asides) == 3
    assert aside_text(asides).split("\n") == ["£250,000", "4th floor"]


def test_sidebars_written_without_aside_are_read_as_asides():
    """A box named "sidebar" (class or id, any case); not a layout's wrapper ("has-sidebar",
    or one holding the page's heading or article), not one in a header or footer, not one
    inside another."""
    root = _page("<div class='layout has-sidebar'><main><h1>Plot 12</h1><p>Description</p>"
                 "</main><div class='Sidebar summary'><p>£325,000</p>"
                 "<div class='sidebar-inner'>Plot 12</div></div>"
                 "<section id='sidebar2'><p>1012 sq ft</p></section>"
                 "<div id='sidebar-promo' class='most-read'><p>143 readers</p></div></div>"
                 "<div class='sidebar-wrap'><article><p>Text</p></article></div>"
                 "<header><div class='sidebar'>Header 10%</div></header>"
                 "<aside><div class='sidebar'>In an aside 3</div></aside>")
    parts = markup_parts(root)
    boxes = side_boxes(root, parts.asides)
    assert [box.get("class") or box.get("id") for box in boxes] == [
        "Sidebar summary", "sidebar2", "most-read"]
    assert aside_text(boxes).split("\n") == ["£325,000", "Plot 12", "1012 sq ft"]
    assert side_boxes(_page("<p>No sidebar</p>"), []) == []


def test_aside_text_is_read_up_to_its_limit():
    root = _page("<aside>" + "<p>Fact 12 of the listing</p>" * 1000 + "</aside>")
    assert len(aside_text(markup_parts(root).asides)) == MAX_ASIDE_CHARS


def test_the_canonical_url_declared_in_the_head_is_read_as_written():
    head = ('<link rel="stylesheet" href="/a.css"><link rel="Canonical alternate" href=" /p/1 ">'
            '<link rel="canonical" href="/p/2">')
    assert canonical_href(_page("", head)) == " /p/1 "
    assert canonical_href(_page('<link rel="canonical" href="/p/3">')) is None  # (in the body)
    assert canonical_href(_page("", '<link rel="canonical" href=" ">')) is None
    assert canonical_href(None) is None
