"""A page's layout marks: the elements its template opens with."""

from __future__ import annotations

from scrapy_simhash.extract import parse_html
from scrapy_simhash.extract.page_layout import LAYOUT_MOST, NO_LAYOUT, layout_marks

PAGE = """<html><body><!-- a comment -->
<header class="site top" id="head"><nav><a href="/">Home</a></nav></header>
<div class="layout"><main><article><h1>Title</h1><p>Text</p></article></main></div>
<footer><p>© Site</p></footer></body></html>"""


def test_marks_are_the_top_levels_of_the_body_with_ids_and_classes():
    marks = layout_marks(parse_html(PAGE))
    assert marks == [
        "/header#head.site.top", "/header#head.site.top/nav", "/div.layout", "/div.layout/main",
        "/footer", "/footer/p",
    ]
    # classes in any order, text and deeper elements aside: the same layout
    other = PAGE.replace('class="site top"', 'class="top  site"').replace("Title", "Other")
    other = other.replace("<p>Text</p>", "<p>More</p><p>text</p>")
    assert layout_marks(parse_html(other)) == marks


def test_a_page_without_a_body_or_with_many_elements():
    assert layout_marks(None) == []
    assert layout_marks(parse_html("")) == []
    assert layout_marks(parse_html(PAGE.replace("<body>", f"<body {NO_LAYOUT}>"))) == []
    many = "<html><body>" + "<div><p>x</p></div>" * 500 + "</body></html>"
    assert len(layout_marks(parse_html(many))) == LAYOUT_MOST
