"""The demo site: pages generated at run time from ``articles.py``, with near-duplicate clusters.

Every page is keyed by its path and query string, so links are relative and the site runs on any
port. :data:`EXPECTED` says what a crawl with the default settings must do with each URL:

- ``kept``: originals, and distinct articles that share one template;
- ``dropped``: tracking-parameter variants, print versions, the same article in a partner
  template, an edited revision, a short link redirecting to a variant;
- ``skipped/<reason>``: a PDF (``not_html``), a 404 and an always-failing 503 (``status``), a
  near-empty tag page (``too_short``);
- ``unreached``: a page linked only from a near-duplicate, so it is never requested when its
  parent is dropped before its links are followed.

Each variant is linked only from its original, so the original is always fetched first and is
the survivor of its cluster, whatever the crawl's concurrency.
"""

from __future__ import annotations

import gzip
import html
from dataclasses import dataclass

from demosite.articles import CHINESE, ENGLISH, Article, edited

EN_SITE = "The Harbour Courier"
ZH_SITE = "城市晚报"


@dataclass(frozen=True)
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    location: str | None = None  # for redirects
    cluster: str | None = None  # the original's path for every member of a near-duplicate cluster


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _paragraphs(article: Article) -> str:
    return "\n".join(f"      <p>{_esc(p)}</p>" for p in article.paragraphs)


def newspaper_page(article: Article, *, related: list[Article], extra_links: list[tuple[str, str]],
                   request_id: str) -> str:
    """Template A: the site's own article page (nav, article, related stories, footer)."""
    en = article.lang == "en"
    site = EN_SITE if en else ZH_SITE
    sections = ["Home", "City", "Business", "Culture", "Sport", "Weather", "Opinion"] if en else [
        "首页", "本地", "财经", "文化", "体育", "天气", "评论"]
    nav = "".join(f'<li><a href="/#{i}">{_esc(s)}</a></li>' for i, s in enumerate(sections))
    related_html = "".join(
        f'<li><a href="/{r.lang}/{r.slug}">{_esc(r.title)}</a></li>' for r in related
    )
    extras = "".join(f'<li><a href="{_esc(href)}">{_esc(label)}</a></li>'
                     for href, label in extra_links)
    byline = "By our city desk" if en else "本报记者"
    related_title = "More stories" if en else "相关阅读"
    tools_title = "Share and save" if en else "分享与打印"
    footer = ("Copyright The Harbour Courier. All rights reserved. Contact the newsroom."
              if en else "城市晚报版权所有，未经授权不得转载。")
    return f"""<!DOCTYPE html>
<html lang="{article.lang}"><head><meta charset="utf-8">
<title>{_esc(article.title)} | {_esc(site)}</title>
<style>body {{ font-family: serif; }} .nav li {{ display: inline; }}</style>
<script>window.analytics = {{"request": "{request_id}"}};</script>
</head><body>
  <header><div class="logo"><a href="/">{_esc(site)}</a></div>
    <ul class="nav">{nav}</ul></header>
  <main>
    <article class="story">
      <h1>{_esc(article.title)}</h1>
      <div class="byline">{byline}</div>
{_paragraphs(article)}
    </article>
    <aside class="tools"><h3>{tools_title}</h3><ul>{extras}</ul></aside>
    <aside class="related"><h3>{related_title}</h3><ul>{related_html}</ul></aside>
  </main>
  <footer><p class="legal">{_esc(footer)}</p><span class="rid">request {request_id}</span></footer>
</body></html>
"""


def print_page(article: Article) -> str:
    """The printer-friendly version: headline and body only."""
    site = EN_SITE if article.lang == "en" else ZH_SITE
    return f"""<html><head><meta charset="utf-8"><title>{_esc(article.title)} (print)</title></head>
<body onload="window.print()">
<h1>{_esc(article.title)}</h1>
{_paragraphs(article)}
<hr><small>{_esc(site)}</small>
</body></html>
"""


def partner_page(article: Article, *, exclusive_href: str) -> str:
    """Template B: the same article syndicated on a partner portal with its own chrome."""
    en = article.lang == "en"
    portal = "Weekend Digest" if en else "今日快讯"
    most_read = (
        ["Ten walks along the coast", "How to fix a dripping tap", "Local bakery wins award",
         "Weekend weather: sun at last", "The best cheap lunches in town"]
        if en else ["周末天气晴好适合出游", "本市新开三条公交线路", "教你挑选新鲜蔬菜",
                    "老城区改造进展顺利", "暑期游泳安全提示"]
    )
    most_read_html = "".join(f'<div class="mr-item"><a href="/#mr{i}">{_esc(t)}</a></div>'
                             for i, t in enumerate(most_read))
    source = "Originally published by The Harbour Courier." if en else "来源：城市晚报"
    exclusive = "Partner exclusive: subscriber offers" if en else "合作伙伴专享优惠"
    comments = (["Great news, finally!", "I used to take this every day."] if en
                else ["终于等到了！", "支持一下。"])
    comments_html = "".join(f'<div class="comment"><span class="user">reader{i}</span>'
                            f'<div class="comment-text">{_esc(c)}</div></div>'
                            for i, c in enumerate(comments))
    return f"""<!DOCTYPE html>
<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<title>{_esc(portal)} - {_esc(article.title)}</title></head>
<body>
<div id="top-bar"><span class="brand">{_esc(portal)}</span>
  <a href="/#login">Log in</a> <a href="/#subscribe">Subscribe</a></div>
<div class="layout">
  <div class="col-main">
    <div class="headline"><h2>{_esc(article.title)}</h2></div>
    <div class="story-body">
{_paragraphs(article)}
    </div>
    <div class="source">{_esc(source)}</div>
    <div class="comments">{comments_html}</div>
  </div>
  <div class="col-side"><div class="box-title">Most read</div>{most_read_html}
    <div class="promo"><a href="{_esc(exclusive_href)}">{_esc(exclusive)}</a></div></div>
</div>
<div id="bottom">{_esc(portal)} &copy; all rights reserved</div>
</body></html>
"""


def index_page(links: list[tuple[str, str]]) -> str:
    items = "".join(f'<li><a href="{_esc(href)}">{_esc(label)}</a></li>' for href, label in links)
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{EN_SITE} / {ZH_SITE}</title>
</head><body><h1>{EN_SITE} / {ZH_SITE}</h1><ul>{items}</ul></body></html>
"""


def quiet_tag_page() -> str:
    return """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Tag: quiet</title></head>
<body><h1>Tag: quiet</h1><p>No stories yet.</p><a href="/">Home</a></body></html>
"""


def exclusive_page(lang: str) -> str:
    """A partner page linked only from the partner copies (reached only if one is kept)."""
    if lang == "en":
        offers = [f"Offer number {n}: members of the Weekend Digest club can collect a free tote "
                  f"bag, a discount on museum tickets and a printed map of the coastal walks at "
                  f"any partner shop during the month." for n in range(1, 4)]
    else:
        offers = [f"第{n}项优惠：今日快讯的会员本月可以在合作商店领取一个帆布袋，购买博物馆门票"
                  f"享受折扣，还可以免费获得一份沿海步道的纸质地图。" for n in range(1, 4)]
    paragraphs = "".join(f"<p>{_esc(offer)}</p>" for offer in offers)
    return f"""<html><head><meta charset="utf-8"><title>Subscriber offers</title></head>
<body><h1>Subscriber offers</h1>{paragraphs}</body></html>
"""


# A tiny but valid-looking PDF: the crawl must pass it untouched.
PDF_BYTES = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)


def build_site() -> tuple[dict[str, Page], dict[str, str]]:
    """All pages by path (with query), and the expected outcome of each URL in a default crawl."""
    pages: dict[str, Page] = {}
    expected: dict[str, str] = {}

    def add(path: str, page: Page, outcome: str) -> None:
        pages[path] = page
        expected[path] = outcome

    def html_page(text: str, cluster: str | None = None) -> Page:
        return Page(text.encode("utf-8"), cluster=cluster)

    index_links: list[tuple[str, str]] = []
    for group in (ENGLISH, CHINESE):
        for position, article in enumerate(group):
            path = f"/{article.lang}/{article.slug}"
            related = [group[(position + step) % len(group)] for step in (1, 2, 3)]
            variants: list[tuple[str, str, str]] = []  # (href, label, html)
            if position == 0:  # tracking parameters, print version, partner copy, short link
                for query in ("utm_source=newsletter&utm_medium=email",
                              "utm_source=social&utm_campaign=spring")[: 2 if article.lang == "en"
                                                                        else 1]:
                    href = f"{path}?{query}"
                    variants.append((href, "Share", newspaper_page(
                        article, related=related, extra_links=[], request_id=query[-6:])))
                variants.append((f"/{article.lang}/print/{article.slug}", "Print",
                                 print_page(article)))
                partner = f"/partner/{article.lang}/{article.slug}"
                variants.append((partner, "Also on our partner portal", partner_page(
                    article, exclusive_href=f"/partner/{article.lang}/exclusive")))
                expected[f"/partner/{article.lang}/exclusive"] = "unreached"
                pages[f"/partner/{article.lang}/exclusive"] = html_page(
                    exclusive_page(article.lang))
                if article.lang == "en":
                    target = f"{path}?utm_source=shortlink"
                    pages[f"/s/{article.slug}"] = Page(b"", status=301, location=target)
                    expected[f"/s/{article.slug}"] = "redirect"
                    variants.append((f"/s/{article.slug}", "Short link", ""))
                    add(target, html_page(newspaper_page(
                        article, related=related, extra_links=[], request_id="short"), path),
                        "dropped")
            elif position == 1:  # a revised version (typo fixed, sentence added), print version
                variants.append((f"{path}?rev=2", "Updated version", newspaper_page(
                    edited(article), related=related, extra_links=[], request_id="rev2")))
                variants.append((f"/{article.lang}/print/{article.slug}", "Print",
                                 print_page(article)))
            elif position == 2 and article.lang == "en":  # partner copy only
                variants.append((f"/partner/{article.lang}/{article.slug}", "Partner copy",
                                 partner_page(article, exclusive_href="/partner/en/exclusive")))
            links = [(href, label) for href, label, _ in variants]
            add(path, html_page(newspaper_page(article, related=related, extra_links=links,
                                               request_id=f"{position:06d}"), path), "kept")
            for href, _, text in variants:
                if text:
                    add(href, html_page(text, path), "dropped")
            index_links.append((path, article.title))

    add("/files/annual-report.pdf", Page(PDF_BYTES, content_type="application/pdf"),
        "skipped/not_html")
    add("/en/missing-story", Page(b"<html><body><h1>Not found</h1></body></html>", status=404),
        "skipped/status")
    add("/broken", Page(b"<html><body><h1>Service unavailable</h1></body></html>", status=503),
        "skipped/status")
    add("/en/tags/quiet", html_page(quiet_tag_page()), "skipped/too_short")
    index_links += [("/files/annual-report.pdf", "Annual report (PDF)"),
                    ("/en/missing-story", "A story that was removed"),
                    ("/broken", "Live blog (currently down)"),
                    ("/en/tags/quiet", "Tag: quiet")]
    add("/", html_page(index_page(index_links)), "hub")
    return pages, expected


PAGES, EXPECTED = build_site()


def clusters() -> dict[str, list[str]]:
    """Original path -> every path of its near-duplicate cluster (the original first)."""
    groups: dict[str, list[str]] = {}
    for path, page in PAGES.items():
        if page.cluster is not None:
            groups.setdefault(page.cluster, []).append(path)
    for original, members in groups.items():
        members.sort(key=lambda member: member != original)
    return groups


def encode(page: Page, accept_encoding: str) -> tuple[bytes, dict[str, str]]:
    """The body to send and its headers (HTML gzip-compressed when the client accepts it)."""
    headers = {"Content-Type": page.content_type}
    body = page.body
    if page.location:
        headers["Location"] = page.location
    if page.content_type.startswith("text/html") and "gzip" in accept_encoding and body:
        body = gzip.compress(body, mtime=0)
        headers["Content-Encoding"] = "gzip"
    headers["Content-Length"] = str(len(body))
    return body, headers
