"""A site whose pages have the common duplicate URL families, and distinct pages beside them.

Every article of a local paper (:func:`.news.articles`) is linked from the home page under its
own URL, and from its own page as the variants real sites link to: share links with tracking
parameters (``?utm_source=...&utm_medium=...``), a print version (``/print/...``), an AMP one
(``.../amp``), a folder's ``index.html``, and related links with ``?ref=related``. Beside them, a
shop's category in six pages (``?page=``) and thirty products (``?id=``): parameters that change
the content. :func:`site` gives every path with its HTML and, for each, the path of the page it
duplicates (itself for a distinct page).

With ``canonical=True`` every page declares its URL as sites do (``<link rel="canonical">``): an
article and its variants the article's path, and, as many shops do, the category's pages 2-6 and
every product the category's first page (``/shop/tents``, then served there rather than at
``?page=1``): declarations whose pages hold other content.
"""

from __future__ import annotations

from .chrome import Site, esc, render
from .news import articles

SHOP = Site(
    name="Dale Outdoor",
    domain="www.dale-outdoor.example",
    tagline="Kit for the hills since 1979",
    nav=("Walking", "Camping", "Climbing", "Clothing", "Sale"),
    related_heading="Customers also bought",
)

PRODUCTS = ("Ridge tent", "Bivvy bag", "Trekking pole", "Head torch", "Stove", "Map case",
            "Gaiters", "Rucksack", "Sleeping mat", "Water filter")


def _variants(path: str) -> list[str]:
    """The duplicate URLs a site links to for the article at ``path``."""
    return [
        f"{path}?utm_source=twitter&utm_medium=social",
        f"{path}?utm_source=newsletter&utm_medium=email",
        f"/print{path}",
        f"{path}/amp",
        f"{path}/index.html",
    ]


def _links(paths: list[str]) -> str:
    return "<ul>" + "".join(f'<li><a href="{esc(p)}">{esc(p)}</a></li>' for p in paths) + "</ul>"


def _blurb(product: int) -> str:
    return (f"Weight {300 + product * 11} g. Pack size {10 + product % 7} x {20 + product % 5} "
            f"cm. Colour: {('moss', 'slate', 'ember')[product % 3]}.")


def _declaring(html: str, canonical: str | None) -> str:
    if canonical is None:
        return html
    return html.replace("</head>", f'<link rel="canonical" href="{esc(canonical)}"></head>', 1)


def site(count: int = 30, *, first: int = 0, canonical: bool = False
         ) -> dict[str, tuple[str, str]]:
    """``path -> (html, path of the distinct page it duplicates)``; every page is linked from
    the home page (``/``) or from a page linked from it. ``first``: the articles start at that
    one of the paper's (another site's worth of articles, on the same shop)."""
    pages: dict[str, tuple[str, str]] = {}
    news = articles(first + count)[first:]
    paths = [url.split(".example", 1)[1] for url, _ in news]
    for i, ((_url, html), path) in enumerate(zip(news, paths, strict=True)):
        related = [f"{paths[(i + k) % count]}?ref=related" for k in (1, 2)]
        links = _links(_variants(path) + related)
        page = _declaring(html.replace("</body>", f"{links}</body>"), path if canonical else None)
        pages[path] = (page, path)
        for variant in _variants(path):
            pages[variant] = (page, path)  # the same page: as real variants, byte for byte
        for ref in related:
            pages.setdefault(ref, ("", ref.split("?")[0]))
    for ref, (html, target) in list(pages.items()):
        if not html:
            pages[ref] = (pages[target][0], target)
    shop = []
    category = "/shop/tents" if canonical else None
    for page in range(1, 7):
        path = f"/shop/tents?page={page}" if page > 1 or not canonical else "/shop/tents"
        grid = "".join(
            f'<li><a href="/product?id={page * 5 + k}">{esc(PRODUCTS[(page + k) % 10])} '
            f"{page * 5 + k}</a> <span>£{40 + page * 7 + k}.99</span> "
            f"{_blurb(page * 5 + k)}</li>" for k in range(5)
        )
        body = (f"<h1>Tents and shelters</h1><p>Lightweight tents for wild camping and family "
                f"trips, tested by our staff in the fells.</p><ul class='grid'>{grid}</ul>")
        listing = render(SHOP, title=f"Tents - page {page}", main=body)
        pages[path] = (_declaring(listing, category), path)
        shop.append(path)
    for product in range(5, 35):
        path = f"/product?id={product}"
        name = PRODUCTS[product % 10]
        body = (f"<h1>{esc(name)} {product}</h1><p>{_blurb(product)}</p>"
                f"<p>Price £{39 + product}.99</p>")
        pages[path] = (_declaring(render(SHOP, title=f"{name} {product}", main=body), category),
                       path)
    home = render(SHOP, title="Home", main=_links(paths + shop))
    pages["/"] = (home, "/")
    return pages


def mixed_parameter_site(count: int = 12, same: int = 4, parameter: str = "edition=intl"
                         ) -> dict[str, tuple[str, str]]:
    """A parameter that changes some pages only: articles linked one after the other, each also
    under ``?edition=intl`` (``parameter``), where the first ``same`` serve their page as it is
    (no international edition yet: enough to teach "edition does not change the page") and the
    others another story, a page of its own. A name that selects content by convention
    (``lang=fr``) is never learned at all. ``path -> (html, path of the distinct page it
    duplicates)``, as :func:`site`."""
    english = articles(count)
    others = articles(2 * count)[count:]  # other stories: pages of their own
    paths = [url.split(".example", 1)[1] for url, _ in english]
    pages: dict[str, tuple[str, str]] = {}
    for i, ((_, html), path) in enumerate(zip(english, paths, strict=True)):
        following = paths[i + 1] if i + 1 < count else "/"
        links = (f'<p><a href="{path}?{parameter}">International</a> '
                 f'<a href="{following}">Next story</a></p>')
        page = html.replace("</body>", f"{links}</body>")
        pages[path] = (page, path)
        served = others[i][1] if i >= same else page
        variant = f"{path}?{parameter}"
        pages[variant] = (served, path if i < same else variant)
    pages["/"] = (f'<html><body><a href="{paths[0]}">Today</a></body></html>', "/")
    return pages
