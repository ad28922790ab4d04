"""Client-rendered product shells whose data is a few short fields: the same notice and cookie
text on every page, the product (an id, a name, a price) only in a data script, as
``__NEXT_DATA__`` or a state assigned in a script, and no description beside it."""

from __future__ import annotations

import json

from .chrome import Site, render

Page = tuple[str, str]

SITE = Site(
    name="Northwind Outdoor",
    domain="shop.northwind.example",
    tagline="Gear for the mountains",
    nav=("Tents", "Jackets", "Footwear", "Backpacks", "Sale", "Help"),
)

SHELL_TEXT = (
    "<noscript>You need to enable JavaScript to run this app. Northwind Outdoor works best in a "
    "modern browser such as Firefox, Chrome, Safari or Edge.</noscript>"
    '<div class="cookie">We use cookies to remember your basket and to measure how our website '
    "is used. By continuing to browse you accept our use of cookies. Read our cookie policy."
    "</div>"
)
PRODUCTS = (
    (1841, "Fjell 2 tent", 4990), (2290, "Vidde down jacket", 2499),
    (3107, "Stig trail shoe", 1299), (3355, "Bre 30 backpack", 899),
    (4012, "Myr rain jacket", 1799), (4420, "Tind headlamp", 349), (5108, "Li fleece", 799),
    (5560, "Fonn sleeping bag", 2199), (6231, "Elv water bottle", 199),
    (6784, "Skar trekking poles", 649),
)


def short_data_shells() -> list[Page]:
    """Ten product shells, half with ``__NEXT_DATA__``, half with ``window.__INITIAL_STATE__``."""
    pages = []
    for number, (ident, name, price) in enumerate(PRODUCTS):
        product = {"id": ident, "name": name, "price": price}
        if number % 2:
            blob = json.dumps({"product": product})
            data = f"<script>window.__INITIAL_STATE__ = {blob};</script>"
        else:
            blob = json.dumps({"props": {"pageProps": {"product": product}},
                               "page": "/product/[id]", "query": {"id": str(ident)}})
            data = f'<script id="__NEXT_DATA__" type="application/json">{blob}</script>'
        pages.append((f"https://{SITE.domain}/product/{ident}",
                      render(SITE, title="", main=f"<div id='__next'></div>{SHELL_TEXT}",
                             head_title=SITE.name, body_extra=data)))
    return pages
