"""The site template every generated page is wrapped in: what a real site repeats on each page.

A cookie banner, a header with search and account links, a navigation bar, breadcrumbs, a
sidebar, related links and a footer of link columns, the way shops, portals and catalogues lay
out their pages. The chrome's words are the site's (its language, its names), so a family's
pages share them exactly, as pages of one site do.
"""

from __future__ import annotations

import dataclasses
import html
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Link = tuple[str, str]  # (text, href)


@dataclass(frozen=True)
class Site:
    """A site's name and the fixed words of its template."""

    name: str
    domain: str
    tagline: str
    nav: tuple[str, ...]
    lang: str = "en"
    skip: str = "Skip to main content"
    cookie: str = (
        "We use cookies and similar technologies to run this site, remember your preferences, "
        "measure traffic and show you relevant offers. You can accept all cookies or choose "
        "which ones we may use. Read our cookie policy for details."
    )
    cookie_buttons: tuple[str, ...] = ("Accept all", "Reject non-essential", "Manage preferences")
    search: str = "Search"
    account: tuple[str, ...] = ("Sign in", "Create account", "Help")
    home: str = "Home"
    newsletter: tuple[str, str, str] = (
        "Stay in the loop",
        "Sign up for our newsletter and get news, tips and offers straight to your inbox. "
        "You can unsubscribe at any time.",
        "Subscribe",
    )
    related_heading: str = "You may also like"
    footer_columns: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("About us", ("Our story", "Careers", "Press", "Sustainability")),
        ("Help", ("Contact us", "FAQ", "Accessibility", "Report a problem")),
        ("Legal", ("Terms of use", "Privacy policy", "Cookie policy", "Imprint")),
    )
    legal: str = "All rights reserved."
    year: int = 2025

    def mapped(self, convert: Callable[[str], str]) -> Site:
        """This template with every visible word passed through ``convert`` (names too)."""

        def walk(value):
            if isinstance(value, str):
                return convert(value)
            if isinstance(value, tuple):
                return tuple(walk(item) for item in value)
            return value

        changes = {
            f.name: walk(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if f.name not in ("domain", "lang", "year")
        }
        return dataclasses.replace(self, **changes)


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def slug(text: str) -> str:
    """A URL slug: ASCII letters and digits joined by hyphens (non-Latin text kept as is)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    made = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return made or re.sub(r"\s+", "-", text.strip())


def links(items: Sequence[Link], css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<ul{cls}>" + "".join(
        f'<li><a href="{esc(href)}">{esc(text)}</a></li>' for text, href in items
    ) + "</ul>"


def _header(site: Site) -> str:
    account = "".join(
        f'<a href="/{slug(item) or "account"}">{esc(item)}</a>' for item in site.account
    )
    nav = links([(item, f"/{slug(item) or index}") for index, item in enumerate(site.nav)],
                "nav-menu")
    return (
        f'<a class="skip-link" href="#main">{esc(site.skip)}</a>'
        f'<header class="site-header"><div class="brand"><a href="/" class="logo">'
        f"{esc(site.name)}</a><span class=\"tagline\">{esc(site.tagline)}</span></div>"
        f'<form class="search" action="/search" role="search"><input type="search" name="q" '
        f'placeholder="{esc(site.search)}" aria-label="{esc(site.search)}">'
        f'<button type="submit">{esc(site.search)}</button></form>'
        f'<div class="account">{account}</div></header>'
        f'<nav class="main-nav" aria-label="Main">{nav}</nav>'
    )


def _cookie_banner(site: Site) -> str:
    buttons = "".join(f'<button type="button">{esc(b)}</button>' for b in site.cookie_buttons)
    return (
        f'<div id="cookie-consent" class="cookie-banner" role="dialog" aria-live="polite">'
        f"<p>{esc(site.cookie)}</p><div class=\"buttons\">{buttons}</div></div>"
    )


def _footer(site: Site) -> str:
    columns = "".join(
        f'<div class="footer-col"><h4>{esc(heading)}</h4>'
        + links([(item, f"/{slug(item) or 'info'}") for item in items])
        + "</div>"
        for heading, items in site.footer_columns
    )
    heading, text, button = site.newsletter
    return (
        f'<footer class="site-footer"><section class="newsletter"><h3>{esc(heading)}</h3>'
        f"<p>{esc(text)}</p><form action=\"/newsletter\"><input type=\"email\" name=\"email\">"
        f"<button>{esc(button)}</button></form></section>"
        f'<div class="footer-columns">{columns}</div>'
        f'<p class="copyright">© {site.year} {esc(site.name)}. {esc(site.legal)}</p></footer>'
    )


def render(
    site: Site,
    *,
    title: str,
    main: str,
    breadcrumbs: Sequence[Link] = (),
    sidebar: str = "",
    related: Sequence[Link] = (),
    head_title: str | None = None,
    description: str = "",
    head_extra: str = "",
    body_extra: str = "",
) -> str:
    """One complete page of ``site``: its chrome around ``main`` (already HTML)."""
    crumbs = ""
    if breadcrumbs:
        trail = [(site.home, "/"), *breadcrumbs]
        crumbs = '<nav class="breadcrumbs" aria-label="Breadcrumb">' + links(trail) + "</nav>"
    aside = f'<aside class="sidebar">{sidebar}</aside>' if sidebar else ""
    more = ""
    if related:
        more = (f'<section class="related"><h2>{esc(site.related_heading)}</h2>'
                f"{links(related, 'related-links')}</section>")
    shown_title = head_title if head_title is not None else f"{title} | {site.name}"
    meta = f'<meta name="description" content="{esc(description)}">' if description else ""
    return (
        f'<!DOCTYPE html><html lang="{site.lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(shown_title)}</title>{meta}"
        f'<link rel="stylesheet" href="/static/css/site.css">'
        f"<script>window.dataLayer=window.dataLayer||[];"
        f"dataLayer.push({{'site':'{site.domain}'}});</script>{head_extra}</head>"
        f'<body>{_cookie_banner(site)}{_header(site)}{crumbs}'
        f'<div class="layout"><main id="main">{main}</main>{aside}</div>'
        f"{more}{_footer(site)}{body_extra}"
        f'<script src="/static/js/app.js" defer></script></body></html>'
    )


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], css: str = "",
          escape: bool = True) -> str:
    """A table; ``escape=False``: the cells are HTML already (links to quotes and the like)."""
    cls = f' class="{css}"' if css else ""
    cell = esc if escape else str
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def fields(pairs: Sequence[tuple[str, object]], css: str = "infobox") -> str:
    """An infobox: a definition list of (label, value)."""
    items = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in pairs)
    return f'<dl class="{css}">{items}</dl>'
