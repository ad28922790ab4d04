"""One listing met again as new entries arrive: a forum board's first page, where each new
thread pushes the oldest to page 2, and a tag page that gains an article at a time. A crawl
meets the listing under another URL (``?page=1``, ``index.php``) or, on a persistent index, in
its next run; each state links an entry the earlier ones do not, so dropping it loses that
entry's page with it (the downloader middleware drops a page before its callback)."""

from __future__ import annotations

import random

from .chrome import Site, esc, render, slug
from .news import DAYS, FIRST, LAST, TOPICS, TOWNS

Page = tuple[str, str]

BOARD = Site(
    name="Riverside Talk",
    domain="talk.riverside.example",
    tagline="The community forum of the Riverside valley",
    nav=("Forums", "Latest", "Members", "Rules", "Search"),
    related_heading="Forum statistics",
)
#: The board's first page under the URLs a crawl meets it by, one per state
BOARD_URLS = ("/forum/", "/forum/?page=1", "/forum/index.php", "/forum/?sort=latest",
              "/forum/latest", "/forum/?order=desc", "/forum/recent", "/forum/?tab=all",
              "/forum/?p=1", "/forum/threads")
PER_PAGE = 20


def _entries(count: int, seed: str) -> list[tuple[str, str, str]]:
    """``count`` distinct entries (title, teaser, day): two sentences of a local story each."""
    rng = random.Random(seed)
    entries = []
    for index in range(count):
        headlines, sentences = list(TOPICS.values())[index % len(TOPICS)]
        town = TOWNS[(index + index // len(TOWNS)) % len(TOWNS)]  # never one story twice

        def fill(template: str, town: str = town) -> str:
            return template.format(
                town=town, person=f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                n=rng.randint(3, 60), m=rng.randint(120, 950), day=rng.choice(DAYS))

        title = fill(headlines[index // len(TOPICS) % len(headlines)])
        teaser = " ".join(fill(sentence) for sentence in rng.sample(sentences, 2))
        entries.append((title, teaser, f"{index % 28 + 1} May"))
    return entries


def board_entry(number: int, href: str) -> str:
    """The ``number``-th entry of a board's listing (a linked title over a teaser), linking
    ``href``."""
    title, teaser, day = _entries(number + 1, "hardneg:entry")[number]
    return (f'<article class="entry"><h2><a href="{href}">{esc(title)}</a></h2>'
            f'<p>{esc(teaser)}</p><p class="meta">{esc(day)}</p></article>')


def _listing(entries: list[tuple[str, str, str]], base: str) -> str:
    return "".join(
        f'<article class="entry"><h2><a href="{base}{slug(title)[:60]}">{esc(title)}</a></h2>'
        f"<p>{esc(teaser)}</p><p class=\"meta\">{esc(day)}</p></article>"
        for title, teaser, day in entries)


def board_states() -> list[Page]:
    """A forum board's first page, ten times, each after one more thread: the newest twenty
    threads, newest first (the oldest one of the page before goes to page 2)."""
    threads = _entries(PER_PAGE + len(BOARD_URLS), "hardneg:board")
    pages = []
    for state, url in enumerate(BOARD_URLS):
        newest = threads[: PER_PAGE + state][::-1][:PER_PAGE]
        main = ('<div class="board"><h1>Local news and chat</h1>'
                f'{_listing(newest, "/forum/thread/")}'
                '<nav class="pager"><a href="/forum/?page=2">Older threads</a></nav></div>')
        pages.append((f"https://{BOARD.domain}{url}",
                      render(BOARD, title="Local news and chat", main=main,
                             breadcrumbs=[("Forums", "/forum/")])))
    return pages


PAPER = Site(
    name="The Riverside Courier",
    domain="www.riversidecourier.example",
    tagline="News from the valley, every day",
    nav=("News", "Sport", "Business", "Opinion", "Topics"),
)
TAG_URLS = ("/tag/valley/", "/tag/valley/?page=1", "/tags/valley", "/topics/valley/",
            "/tag/valley/index.html", "/tag/valley/?sort=new", "/tag/valley/all",
            "/topic/valley", "/tag/valley/?p=1", "/tag/valley/latest")
FIRST_ON_TAG = 14


def tag_growth() -> list[Page]:
    """A tag page, ten times, each after one more article: every article of the tag, newest
    first."""
    stories = _entries(FIRST_ON_TAG + len(TAG_URLS), "hardneg:tag")
    pages = []
    for state, url in enumerate(TAG_URLS):
        listed = stories[: FIRST_ON_TAG + state][::-1]
        main = ('<section class="tag"><h1>Valley</h1>'
                f'{_listing(listed, "/news/")}</section>')
        pages.append((f"https://{PAPER.domain}{url}",
                      render(PAPER, title="Valley", main=main,
                             breadcrumbs=[("Topics", "/topics/")])))
    return pages


BLOG = Site(
    name="Crumb & Crust",
    domain="www.crumbandcrust.example",
    tagline="Home baking, tested three times",
    nav=("Recipes", "Sourdough", "Cakes", "About", "Contact"),
)
ARCHIVE_INTRO = (
    "Welcome to the recipes archive. Here you will find every recipe published on this blog, "
    "from everyday sandwich loaves and weeknight dinners to long-fermented sourdough and "
    "celebration cakes. Each recipe has been tested at least three times in a home kitchen, with "
    "weights in grams and cups, step-by-step photos and notes on what to do when things go "
    "wrong. If you are new to baking, start with the no-knead loaf or the focaccia: both are "
    "forgiving and need no special equipment. Use the search box or the categories in the "
    "sidebar to narrow things down, and leave a comment if you try something."
)
ARCHIVE_PAGES = 10
PER_ARCHIVE_PAGE = 4


def archive_pages() -> list[Page]:
    """A category archive's ten pages (``/page/2/`` ...) under one long introduction, four post
    cards a page (a linked title, the day, one line) and two on the last, which the crawl meets
    first (its "Last" link)."""
    posts = _entries(PER_ARCHIVE_PAGE * (ARCHIVE_PAGES - 1) + 2, "hardneg:archive")
    pages = []
    for number in (ARCHIVE_PAGES, *range(1, ARCHIVE_PAGES)):
        shown = posts[(number - 1) * PER_ARCHIVE_PAGE:number * PER_ARCHIVE_PAGE]
        cards = "".join(
            f'<article class="post-card"><h2 class="entry-title"><a href="/{slug(title)[:60]}/">'
            f'{esc(title)}</a></h2><p class="meta">{esc(day)} 2026</p><p>{esc(teaser[:90])}</p>'
            "</article>" for title, teaser, day in shown)
        pager = " ".join(f'<a class="page-numbers" href="/category/recipes/page/{n}/">{n}</a>'
                         for n in range(1, ARCHIVE_PAGES + 1))
        main = (f'<header class="archive-header"><h1>Category: Recipes</h1><p>{esc(ARCHIVE_INTRO)}'
                f'</p></header>{cards}<nav class="pagination">{pager}</nav>')
        path = "/category/recipes/" if number == 1 else f"/category/recipes/page/{number}/"
        title = "Recipes" if number == 1 else f"Recipes – Page {number} of {ARCHIVE_PAGES}"
        pages.append((f"https://{BLOG.domain}{path}", render(BLOG, title=title, main=main)))
    return pages
