"""Main-text extraction: article in, chrome out, on pages written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree, html

from scrapy_simhash.extract import (
    DEFAULT_MAX_CHARS,
    article_from_tree,
    extract_main_text,
    extract_main_text_from_tree,
    parse_html,
    visible_text_from_tree,
)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def english_page() -> bytes:
    return (FIXTURES / "english_news.html").read_bytes()


@pytest.fixture(scope="module")
def chinese_page_gbk() -> bytes:
    """The Chinese fixture as a real GB2312-era site serves it: GBK bytes, meta charset gb2312."""
    return (FIXTURES / "chinese_news.html").read_text(encoding="utf-8").encode("gbk")


ENGLISH_ARTICLE = [
    "The turbines beneath the old ferry pier began turning on Monday morning",
    "The project took eleven years from the first survey to the first kilowatt.",
    "who first proposed the scheme at a council meeting in 2013.",
    "A quieter kind of engine",
    "the station is almost silent.",
    "which makes the output easy to plan around.",
]
ENGLISH_CHROME = [
    "Home",
    "Search the archive",
    "Share on Facebook",
    "Advertisement",
    "Related stories",
    "Council approves new ferry timetable",
    "Brilliant news for the town",
    "My grandfather worked on that pier",
    "Most read",
    "Sign up for our morning briefing",
    "Copyright",
    "We use cookies",
    "Hidden teaser text",
    "Please enable JavaScript",
    "tracking pixel text",
    "Tags:",
]
CHINESE_ARTICLE = [
    "老渡口码头下方的水轮机开始转动",
    "这个项目从第一次勘测到发出第一度电，整整用了十一年。",
    "潮水是这个小镇永远不会用完的东西",
    "潮汐电站几乎没有声音",
    "便于安排用电计划。",
]
CHINESE_CHROME = [
    "首页",
    "当前位置",
    "分享到",
    "相关新闻",
    "镇政府批准夏季渡轮新时刻表",
    "网友评论",
    "谁来维护这些水轮机",
    "排行榜",
    "版权所有",
    "关于我们",
    "统计代码",
]


def _lines(text: str) -> str:
    return " ".join(text.split())


def test_english_article_in_chrome_out(english_page):
    text = _lines(extract_main_text(english_page))
    for sentence in ENGLISH_ARTICLE:
        assert sentence in text
    for chrome in ENGLISH_CHROME:
        assert chrome not in text


def test_chinese_gbk_article_in_chrome_out(chinese_page_gbk):
    text = extract_main_text(chinese_page_gbk)
    for sentence in CHINESE_ARTICLE:
        assert sentence in text
    for chrome in CHINESE_CHROME:
        assert chrome not in text


def test_headline_comes_first_and_only_once(english_page, chinese_page_gbk):
    english = extract_main_text(english_page).split("\n")
    assert english[0] == "Harbour Town opens its first tidal power station"
    assert english.count(english[0]) == 1
    chinese = extract_main_text(chinese_page_gbk).split("\n")
    assert chinese[0] == "河口小镇建成首座潮汐电站"


def test_include_title_false_gives_the_body_only(english_page):
    body = extract_main_text(english_page, include_title=False)
    assert body.startswith("The turbines beneath the old ferry pier")
    assert "Harbour Town opens" not in body


def test_paragraphs_are_lines_and_br_breaks_lines():
    page = (
        "<html><body><div class='post'><p>First paragraph, long enough to count as prose for "
        "the scorer here.</p><p>Second paragraph with a break<br>inside it, also long enough "
        "to be read as an article sentence.</p></div></body></html>"
    )
    lines = extract_main_text(page, include_title=False).split("\n")
    assert lines == [
        "First paragraph, long enough to count as prose for the scorer here.",
        "Second paragraph with a break",
        "inside it, also long enough to be read as an article sentence.",
    ]


def test_source_newlines_are_spaces_not_paragraphs():
    page = "<p>One sentence that the page source\nwraps over two lines, as sources do.</p>"
    expected = "One sentence that the page source wraps over two lines, as sources do."
    assert extract_main_text(page) == expected


def test_article_from_tree_splits_headline_and_paragraphs(english_page):
    article = article_from_tree(parse_html(english_page))
    assert article.title == "Harbour Town opens its first tidal power station"
    assert article.paragraphs[0].startswith("The turbines beneath")
    assert article.text(include_title=False) == "\n".join(article.paragraphs)


def test_from_tree_matches_from_bytes(english_page):
    root = html.fromstring(english_page)
    assert extract_main_text_from_tree(root) == extract_main_text(english_page)


def test_from_tree_does_not_mutate_the_tree(english_page, chinese_page_gbk):
    for page in (english_page, chinese_page_gbk):
        root = html.document_fromstring(page)  # an lxml.html tree, as parsel builds it
        before = etree.tostring(root, encoding="unicode")
        extract_main_text_from_tree(root)
        visible_text_from_tree(root)
        assert etree.tostring(root, encoding="unicode") == before


def test_from_tree_on_a_scrapy_response_selector(english_page):
    from scrapy.http import HtmlResponse

    response = HtmlResponse("https://example.test/story", body=english_page)
    root = response.selector.root
    before = etree.tostring(root)
    assert extract_main_text_from_tree(root) == extract_main_text(english_page)
    assert etree.tostring(root) == before
    assert response.css("h1::text").get() == "Harbour Town opens its first tidal power station"


def test_comments_in_the_tree_keep_their_tails():
    root = html.fromstring(
        "<div><p>Text before a comment, <!-- a remark --> and text after it, in one sentence."
        "</p></div>"
    )
    assert "and text after it" in extract_main_text_from_tree(root)


def test_javascript_links_are_text_not_links():
    page = "<body><a href='javascript:void(0)'><p>abc, one.</p><p>def, two.</p></a></body>"
    assert extract_main_text(page) == "abc, one.\ndef, two."


def test_visible_text_keeps_chrome_but_not_scripts(english_page):
    text = visible_text_from_tree(parse_html(english_page))
    assert "Related stories" in text
    assert "Sign up for our morning briefing" in text
    assert "tracking pixel text" not in text
    assert "Hidden teaser text" not in text


def test_extraction_is_deterministic(english_page, chinese_page_gbk):
    for page in (english_page, chinese_page_gbk):
        assert len({extract_main_text(page) for _ in range(3)}) == 1


# Inputs that must return a string quickly and never raise: exactly what they hold as text.

@pytest.mark.parametrize(
    ("page", "expected"),
    [
        (b"", ""),
        ("", ""),
        ("   \n\t ", ""),
        (b"\x00\x00\x00", ""),
        ("<<<>>><<!--<div<p>>></p", None),  # libxml2's recovery here varies by version
        ("</html></body><p>", ""),
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20, ""),  # binary: no text at all
        (b"\xff\xfe\x00\x00<\x00", "\ufffd"),  # a UTF-32 BOM, then half a character
        ("<p>text with a NUL\x00 inside, and more.</p>", "text with a NUL inside, and more."),
        ("<?xml version='1.0' encoding='utf-8'?><html><body><p>XML prolog, text.</p></body></html>",
         "XML prolog, text."),
        ("plain text, no markup at all.", "plain text, no markup at all."),
    ],
)
def test_odd_inputs_return_a_string(page, expected):
    text = extract_main_text(page)
    assert isinstance(text, str) and (expected is None or text == expected)


def test_random_binary_gives_nothing():
    import random

    noise = random.Random(5).randbytes(200_000)
    assert extract_main_text(noise) == ""


@pytest.mark.parametrize("not_html", [None, 42, 3.5, ["<p>x</p>"], object()])
def test_non_html_arguments_give_empty_string(not_html):
    assert extract_main_text(not_html) == ""
    assert extract_main_text_from_tree(not_html) == ""
    assert visible_text_from_tree(not_html) == ""


@pytest.mark.parametrize("tag", ["div", "span", "b"])
def test_hundred_thousand_levels_of_nesting(tag):
    depth = 100_000
    page = f"<html><body>{f'<{tag}>' * depth}<p>Deep text, at the bottom.</p>{f'</{tag}>' * depth}"
    assert extract_main_text(page) == "Deep text, at the bottom."


def test_deepest_tree_a_huge_tree_parser_builds():
    """parsel parses with huge_tree=True: libxml2 then nests up to 2048 levels (building deeper
    trees by hand costs lxml quadratic time, so no crawl ever hands us one)."""
    depth = 100_000
    page = f"<html><body>{'<div>' * depth}<p>Deep text.</p>{'</div>' * depth}</body></html>"
    root = etree.fromstring(page.encode(), html.HTMLParser(huge_tree=True))
    assert sum(1 for _ in root.iter()) == 2048  # libxml2 stopped: no <p>, no text
    assert "".join(root.itertext()) == ""
    assert extract_main_text_from_tree(root) == ""
    shallow = f"<html><body>{'<div>' * 2000}<p>Deep text, at 2000.</p>{'</div>' * 2000}"
    root = etree.fromstring(shallow.encode(), html.HTMLParser(huge_tree=True))
    assert extract_main_text_from_tree(root) == "Deep text, at 2000."


DEEP_BODY = (
    "The council approved the new budget on Tuesday after a long debate. "
    "Members argued about schools and parks. The mayor warned about rising debt."
)


def deep_page(depth: int, inner: str = f"<p>{DEEP_BODY}</p>") -> str:
    """A page whose article sits ``depth`` wrappers deep, with head, scripts and chrome."""
    return (
        "<html><head><title>Budget news</title><style>.a{color:red}</style>"
        "<script>var tracking=1</script></head><body><nav>Home News</nav>"
        + "<div>" * depth
        + inner
        + "</div>" * depth
        + "<footer>Copyright 2024 Example. All rights reserved.</footer></body></html>"
    )


@pytest.mark.parametrize("depth", [300, 2_000, 3_000, 100_000])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_deeply_nested_pages_keep_their_main_text(depth, as_bytes):
    """Past 256 levels (libxml2's limit without huge_tree) and past 2048 (its limit with it,
    where the flat fallback takes over) the page reads as a shallow one."""
    page = deep_page(depth)
    text = extract_main_text(page.encode() if as_bytes else page)
    assert text == f"Budget news\n{DEEP_BODY}"


def test_a_page_300_levels_deep_is_parsed_whole():
    root = parse_html(deep_page(300).encode())
    paragraph = root.find(".//p")
    assert paragraph.text == DEEP_BODY
    assert sum(1 for _ in paragraph.iterancestors()) == 302  # html, body, 300 divs
    assert root.find("head/script") is not None  # the tree itself, not a flattened copy


def test_flat_fallback_drops_scripts_styles_comments_and_chrome():
    inner = (
        "<h1>Budget &amp; news</h1><!-- a comment <p>in a comment</p> -->"
        "<p>First paragraph.</p><noscript>Enable scripts</noscript>"
        "<aside>Most read</aside><p>Second <b>para</b>graph &lt;b&gt;.</p>"
        "<script>document.write('<p>written</p>')</script><select><option>Menu</select>"
        "<nav>Unclosed nav <p>Third paragraph.</p>"
    )
    page = deep_page(3_000, inner).replace("<title>Budget news", "<title>Budget &amp; news")
    root = parse_html(page + "<script>var unclosed = '<p>tail</p>")
    assert root.findtext("head/title") == "Budget & news"
    assert [p.text for p in root.iter("p")] == [
        "Budget & news",
        "First paragraph.",
        "Second paragraph <b>.",
        "Unclosed nav",
        "Third paragraph.",
    ]


def test_flat_fallback_passes_over_stray_angle_brackets():
    """A "<" with no ">" after it starts no tag: the tag pattern stops at the next "<" (a scan to
    the end of the page from every one of them took quadratic time: ~11 s for 200,000)."""
    from scrapy_simhash.extract.parsing import _TAG_RE

    assert _TAG_RE.search("a << b <i>c</i>").group() == "<i>"
    root = parse_html("<div>" * 3_000 + "<p>Some text.</p>" + "<" * 2_000)  # no ">" after
    assert [p.text for p in root.iter("p")] == ["Some text.", "<" * 2_000]


def test_tens_of_megabytes_are_cut_and_bounded():
    paragraph = "<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20 + "</p>\n"
    page = ("<html><body><div class='content'>" + paragraph * 25_000 + "</div></body></html>")
    body = page.encode("utf-8")
    assert len(body) > 25_000_000
    text = extract_main_text(body)
    assert 0 < len(text) <= DEFAULT_MAX_CHARS
    assert len(extract_main_text(body, max_bytes=100_000, max_chars=500)) <= 500


def test_a_huge_text_node_and_a_huge_attribute():
    assert len(extract_main_text(b"<p>" + b"word " * 4_000_000 + b"</p>")) == DEFAULT_MAX_CHARS
    page = '<div class="' + "x" * 2_000_000 + '"><p>Short text, but a sentence.</p></div>'
    assert extract_main_text(page) == "Short text, but a sentence."


def test_truncation_inside_a_multibyte_character():
    body = ("<p>" + "潮汐电站几乎没有声音，" * 1000 + "</p>").encode("utf-8")
    text = extract_main_text(body, max_bytes=1001)
    assert text.startswith("潮汐电站")
    assert "\ufffd" not in text[:-1]


def test_walk_stops_after_max_blocks_of_tiny_elements():
    from scrapy_simhash.extract.segment import MAX_BLOCKS, segment

    tiny = "<p>ab cd</p>" * (MAX_BLOCKS + 5_000)
    root = html.fromstring(f"<html><body>{tiny}<p>unread tail</p></body></html>")
    blocks = segment(root).block_text
    assert len(blocks) == MAX_BLOCKS
    assert "unread tail" not in extract_main_text_from_tree(root)
    assert extract_main_text_from_tree(root).startswith("ab cd")
