"""segment: one read-only walk that cuts the visible text into blocks under block-level nodes."""

from __future__ import annotations

from lxml import etree, html

from scrapy_simhash.extract.hints import CHROME, NEUTRAL, POSITIVE
from scrapy_simhash.extract.parsing import parse_html
from scrapy_simhash.extract.segment import LINE_BREAK, segment

PAGE = (
    "<html><head><title>Tide power</title></head><body>"
    "<div class='wrapper'><div class='spacer'><span></span><img src='x.png'></div>"
    "<article><h1>Tide power</h1>"
    "<p>The turbines <a href='/t'>began turning</a> on Monday.<br>Quietly.</p>"
    "<div class='empty'> <i class='icon'></i> </div>"
    "<p style='display: none'>Hidden text</p><p hidden>Also hidden</p>"
    "<p>Second <b>paragraph</b> here.</p></article>"
    "<div class='comments'><p>First comment</p></div>"
    "</div></body></html>"
)


def _nodes(page) -> list[tuple[str, str]]:
    return list(zip(page.node_tag, page.node_class, strict=True))


def test_blocks_keep_inline_text_links_and_line_breaks():
    page = segment(parse_html(PAGE))
    assert page.block_text == [
        "Tide power",
        f"The turbines began turning on Monday.{LINE_BREAK}Quietly.",
        "Second paragraph here.",
        "First comment",
    ]
    assert page.block_link_chars == [0, len("began turning"), 0, 0]
    assert page.title == "Tide power"


def test_nodes_without_text_are_left_out_and_ranges_still_nest():
    page = segment(parse_html(PAGE))
    assert ("div", "spacer") not in _nodes(page)
    assert ("div", "empty") not in _nodes(page)
    for index, parent in enumerate(page.node_parent):
        # Each node's blocks and descendants lie inside its parent's.
        assert page.node_start[index] < page.node_end[index]
        assert index < page.node_last[index] <= len(page.node_tag)
        if parent >= 0:
            assert page.node_start[parent] <= page.node_start[index]
            assert page.node_end[index] <= page.node_end[parent]
            assert page.node_last[index] <= page.node_last[parent]
    for block, owner in enumerate(page.block_owner):
        assert page.node_start[owner] <= block < page.node_end[owner]


def test_node_hints_come_from_class_id_and_tag():
    page = segment(parse_html(PAGE))
    hints = dict(zip(_nodes(page), page.node_own_hint, strict=True))
    assert hints[("article", "")] == POSITIVE
    assert hints[("div", "comments")] == CHROME
    assert hints[("p", "")] == NEUTRAL


def test_the_same_blocks_from_an_lxml_html_tree_with_comments():
    # parsel's tree (lxml.html elements, comments kept) gives what the bytes path gives.
    source = PAGE.replace("Second <b>", "Second <!-- note --><b>")
    tree = html.fromstring(source)
    assert segment(tree).block_text == segment(parse_html(PAGE)).block_text


def test_entity_references_are_skipped():
    root = etree.XML(
        '<!DOCTYPE html [<!ENTITY brand "Tide">]><html><body><p>Powered by &brand; now.</p>'
        "</body></html>",
        etree.XMLParser(resolve_entities=False),
    )
    assert segment(root).block_text == ["Powered by  now."]


def test_noscript_template_and_svg_text_is_read_beside_the_blocks(monkeypatch):
    """What a page shows without scripts, through them or in a chart is its text all the same
    (an app's shell is the same on every page): read apart, never a block."""
    page = ("<html><head><title>Dashboard</title><noscript><style>.x{}</style></noscript>"
            "</head><body><p>Shell</p><noscript><p>Ferry moved to berth four</p>"
            "<img src='/pixel.gif'></noscript><template><div>Reading <b>good</b></div>"
            "<script>draw()</script></template><svg><title>Passengers</title><style>.a{}"
            "</style><text>Q1: 41,200</text></svg><script>var x = 1;</script></body></html>")
    expected = ["Ferry moved to berth four", "Reading good", "Passengers Q1: 41,200"]
    compiled = segment(parse_html(page))
    assert compiled.block_text == ["Shell"] and compiled.hidden_text == expected
    monkeypatch.setattr("scrapy_simhash.extract.segment._compiled_walk", None)
    assert segment(parse_html(page)).hidden_text == expected


def test_many_icons_do_not_crowd_out_a_closed_panel():
    """Unrendered text and closed panels each have a budget a page: a page of thousands of
    icons, their titles read, still reads the specification tab after them, and fast."""
    icons = "<svg><title>Star</title></svg>" * 30_000
    page = segment(parse_html(f"<html><body><p>Filter</p>{icons}<div role='tabpanel' hidden>"
                              "Part number CF210</div></body></html>"))
    assert page.hidden_text[-1] == "Part number CF210"
    assert page.unrendered_chars == 20_000 and page.panel_chars == len("Part number CF210")
