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

import re

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


BRANDS = ("Acme", "Peakline", "Stormway")
#: a category's name and the sentence that opens its page
CATEGORIES = (
    ("Walking boots", "Leather and fabric boots for day walks and long trails, fitted in store."),
    ("Hats", "Sun hats, beanies and waterproof caps for every season on the fells."),
    ("Socks", "Merino and synthetic socks that keep feet dry over long distances."),
    ("Gloves", "Liners, fleece gloves and mitts for cold mornings and winter climbs."),
    ("Tents", "One to four person tents, tested in the wind on the ridge above the shop."),
    ("Stoves", "Gas, meths and multi-fuel stoves, with pans and windshields to match."),
    ("Maps", "Paper and waterproof maps of the national parks, with map cases and compasses."),
    ("Rucksacks", "Day packs and big packs, fitted to your back by our staff before you buy."),
    ("Jackets", "Waterproof shells and insulated jackets from three makers we trust."),
    ("Fleeces", "Light and heavy fleeces for layering under a shell or wearing alone."),
)


def facet_site(one_brand: int = 24, three_brands: int = 2) -> dict[str, tuple[str, str]]:
    """A shop's categories, each reached from the last product of the one before, each with a
    brand filter (``?brand=``): in the first ``one_brand`` categories a single brand, so that
    its filter is the category's page again (enough to teach "brand does not change the page",
    and to pass the rule's sampled checks); in the last ``three_brands`` three brands, each
    filter listing that brand's products alone, and the category's own page none (it asks for
    a brand): the filters' pages, and the products behind them, are distinct. ``path ->
    (html, path of the distinct page it duplicates)``, as :func:`site`."""
    count = one_brand + three_brands
    made = articles(count + one_brand * 3 + three_brands * 9)
    # (each category opens with a sentence of its own: a story's headline; the other stories
    # are its products)
    headlines = [re.search(r"<h1>(.*?)</h1>", html).group(1) for _, html in made[:count]]
    stories = iter(made[count:])
    categories = [f"/shop/c{n}/" for n in range(count)]
    pages: dict[str, tuple[str, str]] = {}

    def products(count: int, following: str | None = None) -> list[str]:
        paths = []
        for number in range(count):
            url, html = next(stories)
            path = url.split(".example", 1)[1]
            if following is not None and number == count - 1:
                html = html.replace("</body>", f'<a href="{following}">More kit</a></body>')
            pages[path] = (html, path)
            paths.append(path)
        return paths

    def listing(n: int, brand: str, links: str) -> str:
        name, opening = CATEGORIES[n % len(CATEGORIES)]
        title = f"{name} {n}: {brand}" if brand else f"{name} {n}"
        main = (f"<h1>{esc(title)}</h1><p>{esc(opening)} In the news: {headlines[n]}. Free "
                f"delivery on orders over £50.</p>{links}")
        return render(SHOP, title=title, main=main)

    def product_list(paths: list[str]) -> str:
        return "<ul>" + "".join(f'<li><a href="{p}">{esc(p.rsplit("/", 1)[-1])}</a></li>'
                                for p in paths) + "</ul>"

    for n, path in enumerate(categories):
        if n < one_brand:
            shown = product_list(products(3, categories[n + 1]))
            filters = f'<p>Brand: <a href="{path}?brand=acme">Acme</a></p>'
            page = listing(n, "", filters + shown)
            pages[path] = (page, path)
            pages[f"{path}?brand=acme"] = (page, path)
            continue
        filters = "<p>Brand: " + " ".join(
            f'<a href="{path}?brand={brand.lower()}">{brand}</a>' for brand in BRANDS) + "</p>"
        pages[path] = (listing(n, "", filters + "<p>Choose a brand.</p>"), path)
        following = categories[n + 1] if n + 1 < len(categories) else None
        for brand in BRANDS:
            variant = f"{path}?brand={brand.lower()}"
            shown = product_list(products(3, following if brand == BRANDS[-1] else None))
            pages[variant] = (listing(n, brand, filters + shown), variant)
    pages["/"] = (f'<html><body><a href="{categories[0]}">Shop</a></body></html>', "/")
    return pages
