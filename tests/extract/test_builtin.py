"""The built-in main-content choice: furniture inside and right after the article stays out."""

from __future__ import annotations

import unicodedata

import pytest

from scrapy_simhash.extract import builtin, extract_main_text
from scrapy_simhash.extract.builtin import HEADLINE_MAX_CHARS, base_scores, headline, teaser_cards
from scrapy_simhash.extract.hints import CHROME, NEUTRAL, POSITIVE, WEAK_CHROME, attribute_hint
from scrapy_simhash.extract.parsing import parse_html
from scrapy_simhash.extract.segment import segment

PARAGRAPHS = [
    "The council voted on Tuesday to reopen the old harbour baths after a decade of closure, "
    "ending a long campaign by swimmers who had gathered signatures every summer.",
    "Repairs to the sea wall will start in spring, and the pools should fill again by July, "
    "the engineer in charge of the works told the meeting, to applause from the gallery.",
    "Entry will stay free for children, while adults will pay a small fee that covers the "
    "lifeguards, the cleaning of the tanks and the heating of the changing rooms in winter.",
]


def _page(inside: str = "", after: str = "") -> str:
    body = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    return (
        "<html><head><title>Harbour baths to reopen</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<div class='story'><h1>Harbour baths to reopen</h1>{inside}{body}</div>"
        f"{after}<footer>Contact us</footer></body></html>"
    )


def _teaser_grid(count: int) -> str:
    cards = "".join(
        f"<div class='card'><span class='label'>Local</span><h3>Story number {i}</h3>"
        f"<p>A short line about story {i}, told here.</p></div>"
        for i in range(count)
    )
    return f"<div class='grid'>{cards}</div>"


def test_the_article_survives_around_the_furniture():
    text = extract_main_text(_page())
    assert all(paragraph in text for paragraph in PARAGRAPHS)


def test_a_teaser_grid_after_the_article_is_left_out():
    text = extract_main_text(_page(after=_teaser_grid(6)))
    assert "Story number" not in text and "A short line" not in text
    assert PARAGRAPHS[-1] in text


def test_two_cards_are_not_a_grid():
    page = segment(parse_html(_page(after=_teaser_grid(2))))
    assert teaser_cards(page, [0.0] * (len(page.block_text) + 1)) == set()


def test_long_sections_with_headings_are_not_teaser_cards():
    sections = "".join(
        f"<div class='section'><h2>Part {i}</h2><p>{' '.join(PARAGRAPHS)}</p></div>"
        for i in range(4)
    )
    text = extract_main_text(_page(after=sections))
    assert "Part 3" in text


def test_bylines_and_datelines_inside_the_article_are_left_out():
    byline = (
        "<p>PUBLISHED: January 16, 2023 at 4:30 p.m. | UPDATED: January 17, 2023 at 3:58 a.m.</p>"
    )
    text = extract_main_text(_page(inside=byline + "<p>By Jane Doe</p>"))
    assert "PUBLISHED" not in text and "Jane Doe" not in text
    assert PARAGRAPHS[0] in text


def test_advertisement_labels_inside_the_article_are_left_out():
    labels = ["Advertisement", "ADVERTISEMENT", "Anzeige", " 广告 ",
              "Advertisement - Continue Reading Below"]
    page = segment(parse_html("<html><body>" + "".join(f"<p>{label}</p>" for label in labels)
                              + f"<p>{PARAGRAPHS[0]}</p></body></html>"))
    dropped: set[int] = set()
    base_scores(page, dropped)
    assert [page.block_text[index] for index in sorted(dropped)] == labels
    text = extract_main_text(_page(inside="".join(f"<p>{label}</p>" for label in labels)))
    assert all(label.strip() not in text for label in labels)
    # a sentence about advertisements is no label
    sentence = "<p>Advertisement revenue fell by a third this year, the publisher said.</p>"
    assert "Advertisement revenue" in extract_main_text(_page(inside=sentence))


@pytest.mark.parametrize(("line", "furniture"), [
    ("Photo: Jane Doe for The Harbour Courier / Associated Press", True),
    ("Photos by Ann Lee and Tom Field for the Harbour Courier", True),
    ("Image credit: NASA Goddard Space Flight Center and the ESA", True),
    ("Photo 3 of 10 in the gallery of the harbour festival", False),  # a slideshow's counter
    ("Image 2/5 of the new lifeboat station at Northgate quay", False),
])
def test_a_photo_credit_is_a_byline_but_a_slideshows_counter_is_not(line, furniture):
    page = segment(parse_html(f"<html><body><p>{line}</p><p>{PARAGRAPHS[0]}</p></body></html>"))
    dropped: set[int] = set()
    base_scores(page, dropped)
    assert (line in [page.block_text[index] for index in dropped]) is furniture


def test_a_dated_chinese_sentence_is_not_a_byline():
    sentence = "2017年2月17日，法院一审判处被告有期徒刑五年。"
    page = segment(parse_html(f"<html><body><p>{sentence}</p><p>来源：新华社</p></body></html>"))
    furniture: set[int] = set()
    base_scores(page, furniture)
    assert [page.block_text[index] for index in furniture] == ["来源：新华社"]


@pytest.mark.parametrize(("title", "line", "kept"), [
    ("Sunday Jazz Brunch - 2025-03-30", "Sunday 2025-03-30, 11:00 - 14:00", True),
    ("Sunday Jazz Brunch, Mar 30, 2025", "Sun, Mar 30, 2025 · 11:00-14:00", True),
    ("周日爵士早午餐 2025年3月23日", "2025年3月23日（周日）11:00 - 14:00", True),
    ("Sunday Jazz Brunch", "Sunday 2025-03-30, 11:00 - 14:00", False),  # a dateline
    ("Sunday Jazz Brunch - 2025-03-30", "Posted 2025-03-30 by Ann", False),  # a byline
    ("Sunday Jazz Brunch - 2025-3-30", "Sunday 2025-3-3, 11:00 - 14:00", False),  # another day
])
def test_a_dated_line_whose_date_the_title_holds_is_the_pages_own(title, line, kept):
    """One date of a weekly event: its page's title and first line name the day, and without
    that line its text is the series page's."""
    page = segment(parse_html(f"<html><head><title>{title}</title></head><body>"
                              f"<p>{line}</p><p>{PARAGRAPHS[0]}</p></body></html>"))
    furniture: set[int] = set()
    base_scores(page, furniture)
    assert (line not in [page.block_text[index] for index in furniture]) is kept


def test_author_bio_and_photo_caption_are_left_out():
    photo = (
        "<div class='inline-content inline-photo'><p>The empty pools, seen from the pier on a "
        "grey morning, before the works began.</p></div>"
    )
    bio = (
        "<div class='post-body-bio'><p>Jane Doe covers the city council. She previously "
        "reported on schools, transport and the port for many years.</p></div>"
    )
    story = _page(inside=photo, after="")
    story = story.replace(f"<p>{PARAGRAPHS[-1]}</p>", f"<p>{PARAGRAPHS[-1]}</p>{bio}")
    text = extract_main_text(story)
    assert "grey morning" not in text and "covers the city council" not in text
    assert all(paragraph in text for paragraph in PARAGRAPHS)


def test_a_profile_pages_bio_is_its_text():
    """A staff profile: a card of the name, role and contact lines, then the person's bio; the
    bio is the page's text (an author's bio beside an article is not, above)."""
    page = ("<html><body><header><a href='/'>Hartley &amp; Finch</a></header><main><article "
            "class='person-profile'><div class='profile-card'><h1>Emma Clarke</h1><p>Associate "
            "Solicitor</p><ul><li>Office: Leeds</li><li>Phone: <a href='tel:0113'>0113 496 "
            "0427</a></li></ul></div><div class='profile-bio'><h2>About Emma</h2><p>Emma joined "
            "the firm in 2018 and works in our Residential Property team from the Leeds office. "
            "She advises private clients across Yorkshire and is committed to giving clear, "
            "practical advice at a fixed, transparent cost.</p><p>Outside work, Emma enjoys "
            "walking in the Dales and supports local charities through the firm's community "
            "programme.</p></div></article></main><footer>Contact us</footer></body></html>")
    text = extract_main_text(page)
    assert "Emma joined the firm in 2018" in text and "walking in the Dales" in text


@pytest.mark.parametrize(
    ("class_and_id", "hint"),
    [
        ("post-body-bio has-photo", WEAK_CHROME),
        ("author-bio", WEAK_CHROME),
        ("inline-content inline-photo", WEAK_CHROME),
        ("js_img_share_area artical", WEAK_CHROME),
        ("image-gallery", WEAK_CHROME),
        ("biology-article", POSITIVE),
        ("photographer-notes", WEAK_CHROME),
        ("plain", NEUTRAL),
    ],
)
def test_attribute_hints_for_bios_and_media(class_and_id, hint):
    assert attribute_hint(class_and_id) == hint


@pytest.mark.parametrize(
    ("class_and_id", "hint"),
    [
        ("most-read widget", CHROME),
        ("teaser-most-viewed", CHROME),
        ("popular-list", CHROME),
        ("popular-posts", WEAK_CHROME),
        ("trending-now", CHROME),
        ("recently-viewed", CHROME),
        ("most-popular-article", WEAK_CHROME),  # beside an article word: unless most of the page
        ("mostly-sunny forecast", NEUTRAL),
    ],
)
def test_attribute_hints_for_blocks_that_change_at_every_request(class_and_id, hint):
    assert attribute_hint(class_and_id) == hint


# Data tables: short unlinked cells are data, not chrome, so a long table between two sections
# of an article does not split it.


def _data_table(rows: int) -> str:
    cells = "".join(
        f"<tr><td>{1990 + row}</td><td>{row * 7}</td><td>Bay {row}</td></tr>" for row in range(rows)
    )
    return f"<table><tr><th>Year</th><th>Swimmers</th><th>Pool</th></tr>{cells}</table>"


def test_a_long_data_table_does_not_split_the_article():
    after_table = (
        "After the table, the report turns to the costs, which the council will share with "
        "the harbour trust over the next five years, as agreed in the spring."
    )
    story = _page(inside="").replace(
        "</div>", f"{_data_table(30)}<p>{after_table}</p></div>", 1
    )
    text = extract_main_text(story)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert after_table in text and "Bay 29" in text


def test_tiny_table_cells_score_zero_unless_linked_or_outside_tables():
    page = segment(
        parse_html(
            "<html><body><table><tr><td>1995</td><td><a href='/home'>Home</a></td></tr></table>"
            "<div>Label</div></body></html>"
        )
    )
    scores = dict(zip(page.block_text, base_scores(page), strict=True))
    assert scores["1995"] == 0.0
    assert scores["Home"] < 0 and scores["Label"] < 0


# A list of dated posts (a blog's front page, a forum thread): the first post is the content.

POSTS = [
    (
        "A walk to the lighthouse",
        "2023-01-16 10:02",
        "We left the village before dawn and followed the cliff path north, stopping only "
        "to watch the gannets dive into the grey water below the headland.",
    ),
    (
        "Bread, at last",
        "2023-01-12 18:40",
        "After three failed attempts the sourdough finally rose, thanks to a warmer kitchen "
        "and a starter that had been fed twice a day for a whole week.",
    ),
    (
        "Notes from the allotment",
        "2023-01-09 08:15",
        "The leeks survived the frost, the broad beans did not, and the shed roof will need "
        "new felt before the storms that are forecast for the end of the month.",
    ),
]


def _blog_front_page(posts=POSTS) -> str:
    entries = "".join(
        f"<div class='entry'><h2>{title}</h2><p>{text}</p><p>{text.upper()}</p>"
        f"<div class='meta'>Posted {date} by Ann | 3 comments</div></div>"
        for title, date, text in posts
    )
    return (
        "<html><head><title>Ann's notebook</title></head><body><h1>Ann's notebook</h1>"
        f"<div class='posts'>{entries}</div><footer>About this blog</footer></body></html>"
    )


def test_a_blog_front_page_gives_its_newest_post():
    text = extract_main_text(_blog_front_page(), include_title=False)
    assert POSTS[0][2] in text
    assert POSTS[1][2] not in text and POSTS[2][2] not in text


def test_fingerprints_see_the_whole_list_of_posts():
    """A blog's front page must not make its newest post's own page a near-duplicate."""
    from scrapy_simhash.extract import extract_main_text_from_tree, get_extractor

    page = _blog_front_page()
    for text in (extract_main_text(page, first_entry_only=False),
                 get_extractor("builtin")(page, None, None),
                 extract_main_text_from_tree(parse_html(page), first_entry_only=False)):
        assert all(body in text for _, _, body in POSTS)


_REPLIES = [
    "楼主说得有道理，我也一直这样认为，只是很少有人愿意听，大家总是更相信那些耸人听闻的说法。",
    "赞同楼主的看法，传闻不能当真，还是要看事实和证据，否则只会让误会越来越深，谁也说服不了谁。",
]


def _forum_thread(authors: list[str], length: int = 3) -> tuple[str, str, list[str]]:
    sentence = "我以往是一个最反感捕风捉影的人，每次看到有人拿传闻说事，我都会站出来讲道理。"
    opening = sentence * length
    replies = _REPLIES
    posts = "".join(
        f"<table><tr><td>回复</td></tr><tr><td><p>{text}</p><p>------</p>"
        f"<p>〓 论坛 发布时间 2005/03/{15 + index} 22:36:13 by {author} 〓</p></td></tr></table>"
        for index, (text, author) in enumerate(zip([opening, *replies], authors, strict=True))
    )
    return f"<html><body>{posts}</body></html>", opening, replies


def test_a_forum_thread_is_kept_whole():
    """Posts signed by different people are replies to the opening post: all of them are the
    page's content (a blog's front page, one author throughout, gives its newest post)."""
    html, opening, replies = _forum_thread(["duscha", "小雨", "关子"])
    text = extract_main_text(html, include_title=False)
    assert opening in text and all(reply in text for reply in replies)


def test_a_thread_whose_replies_are_a_footnote_gives_its_opening_post():
    html, opening, replies = _forum_thread(["duscha", "小雨", "关子"], length=10)
    text = extract_main_text(html, include_title=False)
    assert opening in text and all(reply not in text for reply in replies)
    whole = extract_main_text(html, include_title=False, first_entry_only=False)
    assert all(reply in whole for reply in replies)


def test_posts_of_one_author_are_a_front_page_whatever_their_dates():
    html, opening, replies = _forum_thread(["ann", "ann", "ann"])
    text = extract_main_text(html, include_title=False)
    assert opening in text
    assert all(reply not in text for reply in replies)


def test_a_blog_front_page_posted_on_different_weekdays_is_one_voice():
    posts = [
        (title, f"Posted on {day}, {date}", text)
        for (title, date, text), day in zip(POSTS, ["Monday", "Thursday", "Sunday"], strict=True)
    ]
    text = extract_main_text(_blog_front_page(posts), include_title=False)
    assert POSTS[0][2] in text and POSTS[1][2] not in text


def test_two_dated_posts_are_not_a_list():
    text = extract_main_text(_blog_front_page(POSTS[:2]), include_title=False)
    assert POSTS[0][2] in text and POSTS[1][2] in text


def test_sections_without_their_own_dates_stay_one_article():
    sections = "".join(
        f"<div class='section'><h2>{title}</h2><p>{text}</p><p>{text.upper()}</p></div>"
        for title, _, text in POSTS
    )
    page = f"<html><body><p>Posted 2023-01-16 by Ann</p>{sections}</body></html>"
    text = extract_main_text(page, include_title=False)
    assert all(post[2] in text for post in POSTS)


def test_dated_sentences_are_not_post_dates():
    paragraphs = "".join(
        f"<div><p>On 2023-01-{10 + index} the council met.</p><p>{text}</p></div>"
        for index, (_, _, text) in enumerate(POSTS)
    )
    text = extract_main_text(f"<html><body>{paragraphs}</body></html>", include_title=False)
    assert all(post[2] in text for post in POSTS)


WORDS = "harbour council swimmer summer engineer spring wall pool gallery tank winter fee".split()


def _sentences(count: int, offset: int = 0) -> list[str]:
    """``count`` distinct 20-word sentences, the same on every run."""
    return [
        " ".join(WORDS[(n * 7 + i * 5 + n // len(WORDS)) % len(WORDS)] for i in range(20))
        + f" number {n}."
        for n in range(offset, offset + count)
    ]


def _counting(monkeypatch, name: str) -> list[int]:
    """Wrap builtin.<name> (a one-string function) and record the length of every input."""
    lengths: list[int] = []
    original = getattr(builtin, name)

    def wrapper(text: str, *args):
        lengths.append(len(text))
        return original(text, *args)

    monkeypatch.setattr(builtin, name, wrapper)
    return lengths


def test_nested_unclosed_headings_are_read_once(monkeypatch):
    """1,000 unclosed <h2>s each hold the rest of the page; the headline must not re-read it
    per heading (quadratic: seconds on this 150 KB page, minutes on a few MB)."""
    sentences = _sentences(1000)
    body = "<html><head><title>Qqq Xxx</title></head><body>" + "".join(
        f"<h2><div><p>{sentence}</p>" for sentence in sentences
    )
    text = extract_main_text(body)
    assert text.startswith("Qqq Xxx\n")  # no heading is the title: it stands in for them
    assert all(sentence in text for sentence in sentences)

    page = segment(parse_html(body))
    assert sum(tag == "h2" for tag in page.node_tag) == 1000
    normalized = _counting(monkeypatch, "_normalize")
    compared = _counting(monkeypatch, "_token_set")
    assert headline(page) == "Qqq Xxx"
    # Each block is normalised at most once, whatever the nesting, and no heading longer than
    # HEADLINE_MAX_CHARS reaches the comparison with the title.
    assert sum(normalized) <= sum(len(block) for block in page.block_text)
    assert max(compared, default=0) <= HEADLINE_MAX_CHARS


def test_a_heading_longer_than_a_headline_is_skipped():
    long = " ".join(_sentences(40))  # a section in heading markup, well over the cap
    assert len(long) > HEADLINE_MAX_CHARS
    # The heading matches the title but is too long for a headline: the title stands.
    html = f"<html><head><title>{long}</title></head><body><h1>{long} And more.</h1></body>"
    assert headline(segment(parse_html(html))) == long
    short = " ".join(_sentences(2))
    html = f"<html><head><title>{short}</title></head><body><h1>{short} And more.</h1></body>"
    assert headline(segment(parse_html(html))) == f"{short} And more."  # a short one wins


def test_a_huge_title_is_read_once_not_per_heading(monkeypatch):
    title = " ".join(_sentences(600))  # about 90 KB
    names = [f"Appendix {n} of the report" for n in range(300)]  # none matches the title
    headings = "".join(f"<h1>{name}</h1><p>Text.</p>" for name in names)
    page = segment(parse_html(f"<html><head><title>{title}</title></head><body>{headings}</body>"))
    compared = _counting(monkeypatch, "_token_set")
    assert headline(page) == title  # no heading matches: the title stands
    # The title (and og:title) is tokenised once, cut to HEADLINE_MAX_CHARS, not per heading;
    # each heading once per title it is compared with.
    assert sum(compared) <= 2 * (HEADLINE_MAX_CHARS + sum(len(name) for name in names))


def _links(count: int) -> str:
    return "".join(
        f"<li><a href='/s{n}'>Another story, number {n}, on the council's budget</a></li>"
        for n in range(count)
    )


@pytest.mark.parametrize(
    "interruption",
    [
        f"<div class='inline-list'><h3>More news</h3><ul>{_links(10)}</ul></div>",
        f"<div class='inline-ad'><span>Advertisement</span><ul>{_links(8)}</ul></div>",
        "<blockquote class='embedded-post'>"
        + "".join(
            f"<p><a href='/p/{n}'>A post shared by someone on May {n}</a></p>" for n in range(9)
        )
        + "</blockquote>",
    ],
)
@pytest.mark.parametrize("split", [1, 2])
def test_an_inline_block_does_not_cut_the_article_short(interruption, split):
    """A link list, an advertisement or an embedded post heavier than one half of the article
    no longer ends it: the paragraphs on both sides are kept, the interruption is not."""
    before = "".join(f"<p>{text}</p>" for text in PARAGRAPHS[:split])
    after = "".join(f"<p>{text}</p>" for text in PARAGRAPHS[split:])
    page = (
        "<html><body><nav><a href='/'>Home</a></nav>"
        f"<article><h1>Harbour baths</h1>{before}{interruption}{after}</article>"
        "<footer>Contact us</footer></body></html>"
    )
    text = extract_main_text(page, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Another story" not in text and "A post shared" not in text


def test_a_closing_line_after_an_inline_block_is_not_carried_over():
    """Too little text after the interruption: it is the page's furniture, not the article's
    second half."""
    page = (
        f"<html><body><article>{''.join(f'<p>{text}</p>' for text in PARAGRAPHS)}"
        f"<ul class='more'>{_links(10)}</ul><p>Have a tip? Write to us.</p></article></body></html>"
    )
    text = extract_main_text(page, include_title=False)
    assert PARAGRAPHS[-1] in text and "Have a tip" not in text


def _article(paragraphs=PARAGRAPHS) -> str:
    return "".join(f"<p>{text}</p>" for text in paragraphs)


@pytest.mark.parametrize(
    "body",
    [
        # a page-wide wrapper whose class names a chrome vendor
        f"<div class='theme-recommend-widgets'><h1>Harbour baths</h1>{_article()}</div>",
        # broken markup: a <nav> never closed holds the whole page
        f"<nav><a href='/'>Home</a> <a href='/news'>News</a><div class='page'>{_article()}</div>",
        # the article only in <noscript> (the scripted copy is not HTML)
        "<script type='text/template'>&lt;p&gt;scripted copy&lt;/p&gt;</script>"
        f"<noscript>{_article()}</noscript>",
    ],
)
def test_a_page_read_as_empty_gets_a_second_lenient_reading(body):
    html = f"<html><head><title>Harbour baths</title></head><body>{body}</body></html>"
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert extraction.is_article and 0 < extraction.confidence <= 1
    assert PARAGRAPHS[0] in extraction.text


def test_a_hub_whose_only_sentences_are_its_cookie_notice_and_footer_has_no_main_text():
    """The lenient reading takes what chrome holds only when it holds most of the page: a hub
    of links is no article (its fingerprint would drop it, and the links behind it)."""
    links = "".join(f"<li><a href='/story/{n}'>Story number {n} of the day</a></li>"
                    for n in range(12))
    html = (
        "<html><body><div class='cookie-banner'><p>We use cookies and similar technologies to "
        "remember your preferences and measure how our site is used. Accept all or choose.</p>"
        f"</div><main><h1>Latest</h1><ul>{links}</ul></main><footer><p>Copyright 2025 The Paper "
        "Ltd. All rights reserved. 14 Harbour Street, Bristol. Registered in England and Wales, "
        "company number 08812345.</p></footer></body></html>"
    )
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert extraction.fallback and not extraction.is_article


def test_the_lenient_reading_still_leaves_out_chrome_beside_the_article():
    html = (
        "<html><body><div class='comments-wrapper'>"
        f"<nav>{''.join(f'<a href=/{n}>Section {n}</a> ' for n in range(20))}</nav>"
        f"<div class='text'>{_article()}</div><footer><p>About the site, and how to reach "
        "the people who write it, in a line long enough to count.</p></footer></div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Section 3" not in text and "About the site" not in text


def test_a_thread_interrupted_by_an_advertisement_keeps_the_posts_after_it():
    posts = [f"<div class='message'><p>{text}</p></div>" for text in PARAGRAPHS]
    ad = f"<div class='sponsor-box'><ul>{_links(12)}</ul></div>"
    html = f"<html><body><div class='thread'>{posts[0]}{ad}{''.join(posts[1:])}</div></body></html>"
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)


@pytest.mark.parametrize("wrapper", ["section", "div"])
def test_a_reference_page_keeps_its_sections_past_a_long_list_of_links(wrapper):
    """An encyclopedia-style page: an infobox, headed sections, and one section that is mostly
    a long list of linked works. The sections after that list are still the article's."""
    texts = _sentences(6)
    works = "".join(f"<li><a href='/w/{n}'>Work {n} of the catalogue</a></li>" for n in range(40))
    infobox = "<table class='infobox'>" + "".join(
        f"<tr><th>Label {n}</th><td><a href='/v/{n}'>Value {n}</a></td></tr>" for n in range(25)
    ) + "</table>"
    sections = [
        f"<{wrapper}><p>{texts[0]}</p><p>{texts[1]}</p></{wrapper}>",
        f"<{wrapper}><h2>History</h2><p>{texts[2]}</p></{wrapper}>",
        f"<{wrapper}><h2>Works</h2><p>{texts[3]}</p><ul>{works}</ul></{wrapper}>",
        f"<{wrapper}><h2>Geography</h2><p>{texts[4]}</p><h3>Climate</h3><p>{texts[5]}</p></{wrapper}>",
    ]
    html = f"<html><body><main><h1>Island</h1>{infobox}{''.join(sections)}</main></body></html>"
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert "Geography" in text and "Work 3 of" not in text


@pytest.mark.parametrize("split", [1, 2])
def test_an_article_body_cut_into_two_wrappers_keeps_both(split):
    """A heavy box of links between two wrappers of one class (the body cut by an
    advertisement slot): the half after it is still the article's, the box is not."""
    box = f"<div class='related'><h3>Read more</h3><ul>{_links(15)}</ul></div>"
    html = (
        "<html><body><nav><a href='/'>Home</a></nav><main><h1>Harbour baths</h1>"
        f"<div class='article-body'>{_article(PARAGRAPHS[:split])}</div>{box}"
        f"<div class='article-body'>{_article(PARAGRAPHS[split:])}</div></main>"
        f"<div class='sidebar'><ul>{_links(10)}</ul></div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Another story" not in text and "Read more" not in text


def test_wrappers_of_another_class_after_a_box_are_not_carried_over():
    box = f"<div class='related'><ul>{_links(15)}</ul></div>"
    promo = "<div class='promo-text'><p>" + PARAGRAPHS[0].upper() + "</p></div>"
    html = (
        f"<html><body><main><div class='article-body'>{_article()}</div>{box}{promo}</main>"
        "</body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert PARAGRAPHS[0].upper() not in text


def test_text_is_given_in_composed_unicode():
    """Pages that spell a letter as a base and a combining mark read as those that do not."""
    sentence = "Le conseil a vote\u0301 le budget de l'e\u0301te\u0301 apre\u0300s un de\u0301bat. "
    decomposed = sentence * 4
    html = f"<html><body><article><p>{decomposed}</p><p>{PARAGRAPHS[0]}</p></article></body></html>"
    text = extract_main_text(html, include_title=False)
    assert "vot\u00e9 le budget de l'\u00e9t\u00e9" in text and "\u0301" not in text
    assert unicodedata.is_normalized("NFC", text)


@pytest.mark.parametrize(
    "body",
    [
        "<div class='cookie-notice'><p>We use cookies to run this site.</p></div>",
        "<div class='wrap'><a href='/a'>Menu one</a> <a href='/b'>Menu two</a></div>",
        "<div style='display:none'><p>正文在脚本运行后显示，这里是文章的全部内容。</p></div>",
        "<p>Copyright 2024 Harbour Times. All rights reserved.</p>",
    ],
)
def test_a_page_that_shows_text_never_gives_an_empty_one(body):
    html = f"<html><head><title>T</title></head><body>{body}</body></html>"
    text = extract_main_text(html, include_title=False)
    assert text.strip()
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert not extraction.is_article and extraction.text.strip()


def test_text_a_script_reveals_by_visibility_is_the_article():
    """A WeChat article is served under visibility:hidden until a script shows it; the page
    around it shows only its title, the account's name and a few buttons."""
    body = "".join(f"<p>{paragraph}</p>" for paragraph in PARAGRAPHS)
    html = (
        "<html><head><title>Tide power</title></head><body><div id='js_article'>"
        "<h1 class='rich_media_title'>Tide power</h1>"
        "<div class='rich_media_meta_list'><a href='#'>Harbour Times</a> <em>2024-05-01</em></div>"
        f"<div class='rich_media_content' id='js_content' style='visibility: hidden;'>{body}</div>"
        "<div class='rich_media_tool'><a href='#'>Read more</a> <span>Like</span></div>"
        "</div><div style='display: none'><p>Scan the code to follow the account.</p></div>"
        "</body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Scan the code" not in text


def test_an_empty_page_stays_empty():
    assert extract_main_text("<html><body><div> </div><script>x = 1</script></body></html>") == ""


def _message_board(replies: list[str]) -> str:
    """A thread as message boards lay it out: each post an <article> of one class, the
    author's name in a heading of its own, the dated line naming no one."""
    opening = " ".join(PARAGRAPHS)
    posts = "".join(
        f"<article class='message'><div class='user'><h4><a href='/m/{n}'>member{n}</a></h4>"
        f"</div><div class='main'><div class='when'>Mar {n + 1}, 2019 #{n + 1}</div>"
        f"<div class='body'>{text}</div></div></article>"
        for n, text in enumerate([opening, *replies])
    )
    return f"<html><body><h1>Harbour baths</h1><div class='posts'>{posts}</div></body></html>"


@pytest.mark.parametrize("reply_sentences", [1, 4])
def test_short_replies_beside_an_opening_post_are_not_a_teaser_grid(reply_sentences):
    replies = [" ".join(_sentences(reply_sentences, offset=10 * n)) for n in range(1, 5)]
    text = extract_main_text(_message_board(replies), include_title=False)
    assert PARAGRAPHS[0] in text
    assert all(reply in text for reply in replies)


def _works_table(rows: int = 40) -> str:
    return (
        "<table class='wikitable'>"
        + "".join(
            f"<tr><td>19{50 + n}</td><td><a href='/w/{n}'>Title of work {n}</a></td>"
            f"<td><a href='/l/{n}'>Label {n} Records</a></td></tr>"
            for n in range(rows)
        )
        + "</table>"
    )


def test_a_reference_page_keeps_its_sections_after_sections_of_tables():
    """Several sections in a row that are only tables of linked works, then prose again:
    the prose is still the article's, and the tables' unlinked data stays with it."""
    texts = _sentences(6)
    sections = (
        f"<p>{texts[0]}</p><p>{texts[1]}</p><h2>Works</h2><p>{texts[2]}</p>{_works_table()}"
        f"<h2>Later works</h2>{_works_table()}<h3>Singles</h3>{_works_table()}"
        f"<h3>Films</h3>{_works_table()}<h2>Legacy</h2><p>{texts[3]}</p><p>{texts[4]}</p>"
        f"<h2>Places</h2><p>{texts[5]}</p>"
    )
    navbox = "".join(f"<a href='/n/{n}'>Portal {n}</a> " for n in range(50))
    html = (
        f"<html><body><div class='page'><h1>Island</h1>{sections}</div>"
        f"<div class='navbox'>{navbox}</div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert "1975" in text and "Portal 3" not in text


def test_sections_after_a_box_of_chrome_are_not_carried_over():
    texts = _sentences(3)
    comments = f"<div class='comments'><ul>{_links(30)}</ul></div>"
    html = (
        f"<html><body><div class='page'><p>{texts[0]}</p><p>{texts[1]}</p>{comments}"
        f"<h2>Readers write</h2><p>{texts[2]}</p></div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert texts[0] in text and texts[2] not in text


_RELATED_BOX = f"<div class='related'><h3>Read more</h3><ul>{_links(15)}</ul></div>"
_INLINE_RUN = (  # four inline blocks in a row: an ad, share links, related links, a signup
    "<div class='ad-slot'>Advertisement</div><div class='social-share'><a href='/f'>Share</a> "
    "<a href='/t'>Tweet</a></div>" + _RELATED_BOX + "<div class='newsletter'><p>Sign up for our "
    "newsletter to get the top stories in your inbox, every morning.</p></div>"
)


@pytest.mark.parametrize(
    "body",
    [
        # the rest of the body wrapped apart after the box
        f"<div class='body'>{_article(PARAGRAPHS[:1])}{_RELATED_BOX}"
        f"<div class='body-rest'>{_article(PARAGRAPHS[1:])}</div></div>",
        # two wrappers named alike, not the same
        f"<div class='story-body story-body--top'>{_article(PARAGRAPHS[:1])}</div>{_RELATED_BOX}"
        f"<div class='story-body story-body--bottom'>{_article(PARAGRAPHS[1:])}</div>",
        # several inline blocks in a row
        f"<div class='body'>{_article(PARAGRAPHS[:1])}{_INLINE_RUN}{_article(PARAGRAPHS[1:])}"
        "</div>",
    ],
)
def test_the_half_of_an_article_after_inline_blocks_is_kept(body):
    html = f"<html><body><main><h1>Harbour baths</h1>{body}</main></body></html>"
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Another story" not in text and "Sign up" not in text


def test_an_author_box_after_the_article_is_not_its_second_half():
    bio = "<div class='author'><span>Ann Lee</span><p>" + PARAGRAPHS[0].upper() + "</p></div>"
    html = (
        f"<html><body><main><div class='body'>{_article()}{_RELATED_BOX}{bio}</div></main>"
        "</body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert PARAGRAPHS[-1] in text and PARAGRAPHS[0].upper() not in text


def test_the_lead_before_the_first_paragraph_is_kept():
    """A subtitle in heading markup and a standfirst without a full stop open the article;
    the headline, a linked line and a byline before them do not."""
    subtitle = "Swimmers celebrate as the council backs a plan ten years in the making"
    standfirst = "Repairs start in spring and the pools should fill again by July"
    html = (
        "<html><head><title>Harbour baths to reopen</title></head><body><main>"
        "<div class='story'><h1>Harbour baths to reopen</h1>"
        "<p><a href='/local'>More local news from the harbour district and the old town</a></p>"
        f"<div class='byline'>By Ann Lee</div><h2>{subtitle}</h2><p class='standfirst'>"
        f"{standfirst}</p>{_article()}</div></main></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert subtitle in text and standfirst in text
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Harbour baths to reopen" not in text and "More local news" not in text
    assert "Ann Lee" not in text


def test_the_rest_of_an_article_wrapped_apart_after_a_box_is_kept():
    """The longer half first, the rest (two paragraphs or more) wrapped in a box of its own
    after an inline box of links: the wrapper of paragraphs is the article's."""
    texts = _sentences(5)
    html = (
        f"<html><body><main><div class='body'>{_article(texts[:3])}{_RELATED_BOX}"
        f"<div class='body-rest'>{_article(texts[3:])}</div></div></main></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert "Another story" not in text


def test_an_infobox_keeps_its_linked_values_inside_the_article():
    infobox = (
        "<table class='infobox'><tr><th>Capital</th><td><a href='/w/port'>Port Town</a></td></tr>"
        "<tr><th>Languages</th><td><a href='/w/en'>English</a>, <a href='/w/mi'>Maori</a></td>"
        "</tr></table>"
    )
    menu = "<table class='layout'><tr>" + "".join(
        f"<td><a href='/s/{n}'>Section {n}</a></td>" for n in range(8)
    ) + "</tr></table>"
    html = (
        f"<html><body>{menu}<div class='page'><h1>Island</h1><p>{PARAGRAPHS[0]}</p>{infobox}"
        f"{_article(PARAGRAPHS[1:])}</div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert "Port Town" in text and "English, Maori" in text
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Section 3" not in text


def test_linked_teaser_headings_inside_the_article_are_left_out():
    more = "<h4>More:</h4>" + "".join(
        f"<ul><li><h4><a href='/s/{n}'>Another story about the harbour, number {n}</a></h4></li>"
        "</ul>"
        for n in range(3)
    )
    html = (
        "<html><head><title>Harbour baths</title></head><body><article><h1>Harbour baths</h1>"
        f"<div class='body'>{_article(PARAGRAPHS[:2])}{more}"
        f"{_article(PARAGRAPHS[2:])}<h2>What comes next</h2>{_article(_sentences(2))}</div>"
        "</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(paragraph in text for paragraph in PARAGRAPHS)
    assert "Another story" not in text and "What comes next" in text


def test_label_lines_inside_the_article_are_left_out():
    """"Author:", "Publish date:" are furniture's labels; a sentence that ends with a colon
    and a table's labels are not."""
    intro = "Here is what the council decided when it met on Tuesday evening:"
    table = "<table><tr><td>Cost:</td><td>four million pounds</td></tr></table>"
    html = (
        f"<html><body><article><p>{intro}</p>{_article(PARAGRAPHS[:1])}<div>Author:</div>"
        f"<div>Publish date:</div>{_article(PARAGRAPHS[1:])}{table}"
        f"{_article(_sentences(2))}</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert "Author:" not in text and "Publish date:" not in text
    assert intro in text and "Cost:" in text


def test_calls_to_sign_up_inside_the_article_are_left_out():
    """A newsletter box in the article's flow is furniture; a sentence of the article that
    reports on people signing up, or a long paragraph naming a newsletter, is not."""
    report = (
        "More than two thousand swimmers signed up for the opening week, the council said, "
        "and the list for the summer season is already full."
    )
    html = (
        f"<html><body><article>{_article(PARAGRAPHS[:2])}"
        "<h3>Never miss the latest news by signing up to our newsletter today!</h3>"
        "<p>Subscribe now to our weekly edition for the full story.</p>"
        f"<p>{report}</p>{_article(PARAGRAPHS[2:])}</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert "newsletter" not in text and "Subscribe now" not in text
    assert report in text and all(paragraph in text for paragraph in PARAGRAPHS)


def test_a_call_to_action_is_a_short_line_that_asks_to_sign_up():
    assert builtin._is_call_to_action("Sign up for our newsletter")
    assert builtin._is_call_to_action("订阅我们的每日简报")
    assert builtin._is_call_to_action("Follow The Harbour Gazette on Twitter and Facebook.")
    assert builtin._is_call_to_action("Download the Gazette app for iOS and Android.")
    assert builtin._is_call_to_action("Get the latest news straight to your phone.")
    assert builtin._is_call_to_action("Submit a letter to the editor.")
    assert not builtin._is_call_to_action("Follow him on Twitter.")  # an author's line
    assert not builtin._is_call_to_action("Signals from the harbour were clear.")
    assert not builtin._is_call_to_action("Investors subscribed for the shares.")


def _side_text(count: int) -> str:
    """A sidebar of prose (``count`` paragraphs) beside the article: text the article's
    wrappers do not hold."""
    return f"<div class='widget-area'>{_article(_sentences(count, offset=50))}</div>"


def test_an_article_body_in_two_chrome_named_wrappers_is_weighed_whole(monkeypatch):
    """Two wrappers of one class with a chrome word in it ("pagination"), cut by an ad: each
    holds under half of the page's text, together more, so neither is chrome."""
    texts = _sentences(6)
    html = (
        "<html><body><main><h1>Harbour baths</h1>"
        f"<div class='article-body pagination-first'>{_article(texts[:3])}</div>"
        "<div class='ad-slot'>Advertisement</div>"
        f"<div class='article-body pagination-first'>{_article(texts[3:])}</div></main>"
        f"{_side_text(4)}</body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    monkeypatch.setattr(builtin, "WRAPPERS_WEIGHED_TOGETHER", False)
    assert not all(sentence in extract_main_text(html, include_title=False) for sentence in texts)


def test_an_article_body_in_two_bare_cells_keeps_both(monkeypatch):
    """A layout table: the body in two cells no class names, a box of links between them."""
    texts = _sentences(5)
    html = (
        "<html><body><table><tr>"
        f"<td>{_article(texts[:2])}</td><td>{_RELATED_BOX}</td><td>{_article(texts[2:])}</td>"
        f"</tr></table><div class='footer-links'><ul>{_links(10)}</ul></div></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert "Another story" not in text
    monkeypatch.setattr(builtin, "UNNAMED_WRAPPERS_BRIDGED", False)
    assert texts[0] not in extract_main_text(html, include_title=False)


def test_a_wrapper_named_like_the_body_is_weighed_by_its_paragraphs(monkeypatch):
    """The first wrapper opens with a gallery's long caption (chrome) before its one
    paragraph: its paragraphs, not its total, say it is the article's first half."""
    texts = _sentences(4)
    captions = f"<div class='caption'>{_sentences(1, offset=20)[0]}</div>"
    html = (
        "<html><body><main><h1>Harbour baths</h1>"
        f"<div class='article-body'><div class='gallery'>{captions}</div>"
        f"{_article(texts[:1])}</div>{_RELATED_BOX}"
        f"<div class='article-body'>{_article(texts[1:])}</div></main></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert _sentences(1, offset=20)[0] not in text
    monkeypatch.setattr(builtin, "NAMED_WRAPPER_TEXT_MASS", False)
    assert texts[0] not in extract_main_text(html, include_title=False)


def test_a_section_whose_list_of_links_outweighs_its_paragraphs_is_kept(monkeypatch):
    """A reference page's first section: paragraphs around a long list of linked works, the
    list heavier than they are; the next section follows a heading. Both sections are the
    article's, the list's links are not."""
    texts = _sentences(5)
    works = "".join(f"<li><a href='/w/{n}'>Work {n} of the catalogue</a></li>" for n in range(40))
    html = (
        "<html><body><article><h1>Island</h1>"
        f"<section>{_article(texts[:2])}<ul>{works}</ul>{_article(texts[2:3])}</section>"
        f"<h2>Geography</h2><section>{_article(texts[3:])}</section></article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts)
    assert "Work 3 of" not in text
    monkeypatch.setattr(builtin, "MIXED_WRAPPERS_BRIDGED", False)
    assert texts[0] not in extract_main_text(html, include_title=False)


_WORKS = "".join(f"<li><a href='/w/{n}'>Work {n} of the catalogue</a></li>" for n in range(40))


def test_a_short_paragraph_between_two_interruptions_is_crossed(monkeypatch):
    """After a long list of links, one short paragraph, then a box of links, then the rest of
    the article: the short paragraph is no reason to stop."""
    texts = _sentences(6)
    short = "The list goes on."
    html = (
        f"<html><body><article>{_article(texts[:3])}<ul>{_WORKS}</ul><p>{short}</p>"
        f"{_RELATED_BOX}{_article(texts[3:])}</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts) and short in text
    assert "Work 3 of" not in text and "Another story" not in text
    monkeypatch.setattr(builtin, "SHORT_STRETCHES_CROSSED", False)
    assert not all(sentence in extract_main_text(html, include_title=False) for sentence in texts)


def test_a_quotation_inside_the_article_does_not_end_it(monkeypatch):
    """A blockquote between the article's paragraphs, right after a long list of links: the
    article goes on after the quotation, which is kept."""
    texts = _sentences(8)
    quote = _sentences(1, offset=30)[0]
    html = (
        f"<html><body><article>{_article(texts[:5])}<ul>{_WORKS}</ul>{_article(texts[5:6])}"
        f"<blockquote>{quote}</blockquote>{_article(texts[6:])}</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert all(sentence in text for sentence in texts) and quote in text
    monkeypatch.setattr(builtin, "OTHER_KINDS_CROSSED", False)
    assert not all(sentence in extract_main_text(html, include_title=False) for sentence in texts)


def test_a_blogs_front_page_is_found_wrappers_down_from_the_run(monkeypatch):
    """The run is the page's <article> (its posts and the author's box beside them); the posts,
    one author's, sit two wrappers down: the main text is still the newest post."""
    texts = _sentences(6)
    posts = "".join(
        f"<div class='post'><div class='meta'>Posted by Ann on 2019-05-0{n + 1} 10:2{n}</div>"
        f"{_article(texts[2 * n : 2 * n + 2])}</div>"
        for n in range(3)
    )
    bio = f"<div class='about'><p>{_sentences(1, offset=40)[0]}</p></div>"
    html = (
        "<html><body><article class='page'><div class='entry'><div class='inner'>"
        f"{posts}</div></div>{bio}</article></body></html>"
    )
    text = extract_main_text(html, include_title=False)
    assert texts[0] in text and texts[1] in text
    assert not any(sentence in text for sentence in texts[2:])
    monkeypatch.setattr(builtin, "ENTRY_LEVELS_DOWN", 0)
    assert texts[5] in extract_main_text(html, include_title=False)


def test_reprint_and_infringement_notices_are_furniture_and_prose_about_them_is_not():
    article = [
        "河口小镇的潮汐电站昨天正式并网发电，老渡口码头下方的水轮机随着涨潮开始转动。",
        "法院认定被告的网站构成侵权，判令其赔偿原告经济损失五万元并公开道歉。",
        "这个项目从第一次勘测到发出第一度电，整整用了十一年，镇上的居民都来到了江边。",
    ]
    notices = [
        "本文为潮声网授权本站发布，转载请注明出处。",
        "如有侵权，请联系我们删除。",
        "反侵权公告：侵权必究。",
    ]
    body = "".join(f"<p>{line}</p>" for line in [*article, *notices])
    html = (f"<html><head><title>潮汐电站并网</title></head><body><div class='content'>{body}"
            "</div></body></html>")
    text = extract_main_text(html, include_title=False)
    for line in article:
        assert line in text
    for line in notices:
        assert line not in text


def test_rest_lines_are_the_content_beside_the_main_text():
    facts = ("<dl class='facts'><dt>Opening</dt><dd>July 2025</dd><dt>Entry</dt><dd>Free for "
             "children</dd></dl>")
    html = ("<html><body><header class='site-header'><a href='/'>Harbour Times</a></header>"
            "<div class='story'><h1>Harbour baths to reopen</h1>"
            + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + f"</div><div class='details'>{facts}</div>"
            "<footer class='site-footer'><p>© Harbour Times. All rights reserved.</p></footer>"
            "</body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    rest = extraction.rest_lines()
    assert {"July 2025", "Free for children"} <= set(rest)
    assert not set(rest) & set(extraction.text.split("\n"))  # the main text's lines are its own
    assert not any("rights reserved" in line for line in rest)  # legal lines and chrome are not
    assert set(rest) <= set(extraction.content_text().split("\n"))
    assert builtin.Extraction("only text", True).rest_lines() == []


def test_dated_furniture_is_the_contents_dated_lines_its_text_leaves_out():
    html = ("<html><body><header class='site-header'><a href='/'>Harbour Times</a></header>"
            "<div class='story'><h1>Harbour baths to reopen</h1>"
            "<p class='when'>Date: March 14, 2025 at 7:30pm</p><p>By Jane Doe</p>"
            "<p>Published March 2, 2025</p><p>Last updated: March 3, 2025 10:22</p>"
            "<p>更新时间：2025-03-03 10:22</p><p>Prices last checked: March 3, 2025</p>"
            + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + "</div><aside class='sidebar'><p>Most read</p><p>Updated March 2, 2025</p></aside>"
            "<footer class='site-footer'><p>© 2025 Harbour Times.</p></footer></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    for line in ("March 14", "March 2", "March 3", "2025-03-03"):
        assert line not in extraction.text, line  # (a dateline's shape: furniture)
    # its own content's dated lines; not a sidebar's, a byline's or a stamp of its writing
    assert extraction.dated_furniture() == ["Date: March 14, 2025 at 7:30pm"]
    assert builtin.Extraction("only text", True).dated_furniture() == []


def test_entry_links_are_a_listings_entries_and_the_links_in_prose():
    entries = "".join(
        f"<article class='teaser'><h2><a href='/t/{n}'>Thread number {n} about the harbour</a>"
        f"</h2><p>{PARAGRAPHS[n % len(PARAGRAPHS)][:120]}</p></article>" for n in range(6))
    html = ("<html><body><header class='site-header'><a href='/'>Harbour Times</a> "
            "<a href='/login'>Log in</a></header>"
            f"<main><h1>Forum</h1>{entries}"
            "<div class='more'><h3>More</h3><ul>"
            + "".join(f"<li><a href='/more/{n}'>Another thread {n}</a></li>" for n in range(8))
            + "</ul></div><div class='comments'><p>Nice thread, read the "
            "<a href='/c/1'>rules</a> before you post anything here please.</p></div>"
            "<p>Read the <a href='/rules'>forum rules</a> before posting, and be kind to each "
            "other.</p></main></body></html>")
    links, near = builtin.extraction_from_tree(parse_html(html)).entry_links()
    assert [f"/t/{n}" for n in range(6)] == [link for link in links if link.startswith("/t/")]
    assert "/rules" in links  # a link in a paragraph
    # bare links (a list, a menu) have no entry; chrome's (comments) are not the page's
    assert not {"/more/0", "/more/7", "/c/1"} & set(links)
    assert set(links) <= set(near) and not {"/c/1", "/more/0"} & set(near)
    assert builtin.Extraction("only text", True).entry_links() == ([], [])


def test_entry_links_are_a_grids_cards_and_a_tables_rows():
    # little text beside each link, but cards alike with something beside it: a price, counters
    cards = "".join(f"<div class='card product'><a href='/p/{n}'>Blue mug number {n}</a>"
                    f"<span class='price'>£{n}.50</span></div>" for n in range(5))
    rows = "".join(f"<tr class='topic-list-item category-{n % 2}'><td><a href='/t/{n}'>Topic "
                   f"{n} about the harbour</a></td><td>{n * 7 + 10}</td></tr>" for n in range(5))
    bare = "".join(f"<li class=' '><a href='/more/{n}'>Another mug {n}</a></li>"
                   for n in range(5))  # (a class of spaces alone names no class)
    html = (f"<html><body><main><h1>Mugs</h1><div class='grid'>{cards}</div>"
            f"<table><tbody>{rows}</tbody></table><ul>{bare}</ul></main></body></html>")
    links, near = builtin.extraction_from_tree(parse_html(html)).entry_links()
    assert {f"/p/{n}" for n in range(5)} | {f"/t/{n}" for n in range(5)} <= set(links)
    assert not {f"/more/{n}" for n in range(5)} & set(near)


def test_rest_lines_stop_at_their_size():
    rows = "".join(f"<tr><td>Row {n}</td><td>{n * 7}</td></tr>" for n in range(2000))
    html = ("<html><body><div class='story'><h1>Harbour baths to reopen</h1>"
            + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + f"</div><div class='details'><table>{rows}</table></div></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert len(extraction.rest_lines()) > 1000
    few = extraction.rest_lines(max_chars=100)
    assert 0 < sum(len(line) for line in few) < 120


def test_a_headed_title_adds_the_first_h1_to_the_declared_title():
    html = ("<html><head><title>社会招聘_星河科技有限公司</title></head><body>"
            "<header><a class='logo'>星河科技</a></header><div class='job'><h1>招聘 会计</h1>"
            "<p>招聘岗位：会计。任职要求：高中及以上学历。</p><h1>Second</h1></div></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert extraction.declared_title == "社会招聘_星河科技有限公司"
    assert extraction.headed_title == "社会招聘_星河科技有限公司\n招聘 会计"
    no_heading = builtin.extraction_from_tree(parse_html(html.replace("h1>", "h2>")))
    assert no_heading.headed_title == no_heading.declared_title
    # a heading of nested blocks is read as one line, and no longer than a heading may be
    nested = html.replace("招聘 会计", "<span>招聘</span> <b>会计</b>")
    assert builtin.extraction_from_tree(parse_html(nested)).headed_title.endswith("\n招聘 会计")
    long = html.replace("招聘 会计", "招聘" + "很" * (HEADLINE_MAX_CHARS + 5))
    assert builtin.first_heading(builtin.extraction_from_tree(parse_html(long)).page) == ""


def test_captions_are_the_pages_content_but_not_its_main_text():
    captions = [f"Volunteers clear the beach at dawn on day {n} of the spring clean-up."
                for n in range(1, 6)]
    figures = "".join(f"<figure class='wp-block-image'><img src='/{n}.jpg' alt=''>"
                      f"<figcaption class='wp-element-caption'>{caption}</figcaption></figure>"
                      for n, caption in enumerate(captions))
    teaser = ("<div class='related'><figure><img src='/t.jpg' alt=''><figcaption>Another "
              "gallery: the harbour at night.</figcaption></figure></div>")
    html = ("<html><head><title>Photos of the week</title></head><body>"
            "<header class='site-header'><a href='/'>Harbour Times</a></header>"
            "<article class='gallery-post'><h1>Photos of the week</h1>"
            f"<p>{PARAGRAPHS[0]}</p><figure class='wp-block-gallery'>{figures}</figure>"
            f"<p>{PARAGRAPHS[1]}</p>{teaser}</article></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    # the article's text runs over the photos, without their captions (as article
    # benchmarks count it) ...
    assert PARAGRAPHS[0] in extraction.text and PARAGRAPHS[1] in extraction.text
    assert not any(caption in extraction.text for caption in captions)
    # ... but the captions are the page's content beside it: what tells one gallery from
    # another; a related teaser's caption is chrome
    assert captions == [line for line in extraction.rest_lines() if "Volunteers" in line]
    assert "Another gallery" not in extraction.content_text()
    assert "Another gallery" in extraction.page_text()


def test_hidden_panels_are_the_pages_content_but_not_its_main_text():
    panels = ("<div class='tab__panel' role='tabpanel' hidden><dl><dt>Part number</dt>"
              "<dd>CF210</dd><dt>Diameter</dt><dd>210 mm</dd></dl></div>"
              "<div class='accordion-collapse faq-answer' style='display: none'><p>Parcels to "
              "Ireland need a customs form.</p><script>track()</script></div>"
              "<div class='mega-menu' hidden><a href='/a'>Kettles</a></div>"
              "<div class='modal' role='region' hidden><p>Sign in to continue</p></div>")
    html = ("<html><body><article><h1>Carbon filter</h1>"
            + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + f"{panels}</article></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    assert extraction.page.hidden_text == [
        "Part number CF210 Diameter 210 mm", "Parcels to Ireland need a customs form."]
    assert "CF210" not in extraction.text
    for text in (extraction.content_text(), extraction.page_text(), "\n".join(
            extraction.rest_lines())):
        assert "CF210" in text and "customs form" in text
        assert "Kettles" not in text and "Sign in" not in text and "track()" not in text


def test_a_menu_of_dishes_is_the_pages_content_but_a_menu_of_links_is_not():
    dishes = "".join(f"<li class='menu-item'><span class='dish'>{dish}</span> <span "
                     f"class='price'>{price}</span></li>"
                     for dish, price in (("Pea soup", "4.50"), ("Fish pie", "9.80")))
    html = ("<html><body><div class='menu'><a href='/'>Home</a> <a href='/food'>Food</a></div>"
            "<article><h1>Lunch menu</h1>" + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + f"<ul class='menu'>{dishes}</ul><div class='sidebar'><ul class='menu'>"
            "<li class='menu-item'>Opening hours vary</li></ul></div>"
            "<div class='menu-item'><div class='share-count'>Shared 12 times</div></div>"
            "</article></body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    content = extraction.content_text()
    assert "Pea soup 4.50" in content and "Fish pie 9.80" in extraction.rest_lines()
    assert "Pea soup" not in extraction.text  # not the main text
    # a site's menu of links, a menu inside chrome and chrome inside a menu stay chrome
    assert "Home" not in content and "Opening hours" not in content and "Shared" not in content
    # a menu of the week's days (links) around each day's dishes: the dishes are content
    days = "".join(f"<a href='/menu/{day}'>{day.title()}day</a> " for day in ("mon", "tues"))
    week = html.replace(f"<ul class='menu'>{dishes}</ul>",
                        f"<div class='restaurant-menu'><p>{days}</p><ul>{dishes}</ul></div>")
    assert "Pea soup 4.50" in builtin.extraction_from_tree(parse_html(week)).content_text()


def test_comment_text_is_the_pages_own_comments():
    comments = "".join(f"<li class='comment'><div class='comment-content'><p>Comment number "
                       f"{n} on the harbour baths.</p></div><div class='advert'>Buy a kettle"
                       f"</div></li>" for n in range(3))
    html = ("<html><body><article><h1>Harbour baths to reopen</h1>"
            + "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
            + f"</article><div id='comments' class='comments-area'><ol>{comments}</ol></div>"
            "<div class='sidebar'><div class='comments'><p>Someone on another post.</p></div>"
            "</div><div class='widget_recent_comments'><p>Ann on Bagels.</p></div>"
            "</body></html>")
    extraction = builtin.extraction_from_tree(parse_html(html))
    text = extraction.comment_text()
    assert [f"Comment number {n} on the harbour baths." for n in range(3)] == text.split("\n")
    assert "Comment number" not in extraction.text  # not the main text
    assert builtin.extraction_from_tree(parse_html(
        "<html><body><article><p>No comments here.</p></article></body></html>"
    )).comment_text() == ""
