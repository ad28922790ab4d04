"""The built-in main-content choice: furniture inside and right after the article stays out."""

from __future__ import annotations

import pytest

from scrapy_simhash.extract import extract_main_text
from scrapy_simhash.extract.builtin import base_scores, teaser_cards
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


def test_a_dated_chinese_sentence_is_not_a_byline():
    sentence = "2017年2月17日，法院一审判处被告有期徒刑五年。"
    page = segment(parse_html(f"<html><body><p>{sentence}</p><p>来源：新华社</p></body></html>"))
    furniture: set[int] = set()
    base_scores(page, furniture)
    assert [page.block_text[index] for index in furniture] == ["来源：新华社"]


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


@pytest.mark.parametrize(
    ("class_and_id", "hint"),
    [
        ("post-body-bio has-photo", WEAK_CHROME),
        ("author-bio", CHROME),
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
