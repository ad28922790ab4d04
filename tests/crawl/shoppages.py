"""Product pages of a small shop, in one template laid out over many lines, for the crawls that
store whole pages in their items."""

from __future__ import annotations

import html

MENU = ["Home", "New in", "Kitchen", "Living room", "Bedroom", "Bathroom", "Garden", "Lighting",
        "Gifts", "Sale", "Stores", "Help"]
FOOTER = ["About us", "Careers", "Delivery", "Returns", "Privacy", "Cookie settings",
          "Terms of sale", "Contact"]
#: (name, price, blurb): two mugs that differ in one word, and two other products.
PRODUCTS = [
    ("Stoneware mug, blue", "EUR 9.90", "A sturdy stoneware mug with a reactive blue glaze. "
     "Holds 350 ml. Dishwasher and microwave safe."),
    ("Stoneware mug, green", "EUR 9.90", "A sturdy stoneware mug with a reactive green glaze. "
     "Holds 350 ml. Dishwasher and microwave safe."),
    ("Linen tea towel", "EUR 12.00", "Woven from washed European linen, this tea towel dries "
     "glasses without lint and softens with every wash."),
    ("Oak chopping board", "EUR 34.00", "Cut from a single piece of FSC-certified oak and "
     "finished with food-safe oil. Measures 40 by 25 cm."),
]


def _links(items: list[str]) -> str:
    return "\n".join(f"        <li><a href='#'>{html.escape(item)}</a></li>" for item in items)


def shop_page(name: str, price: str, blurb: str) -> str:
    related = [other for other, _, _ in PRODUCTS if other != name]
    return f"""<!DOCTYPE html>
<html>
  <head><title>{html.escape(name)} | Nordhaus Living</title></head>
  <body>
    <header>
      <div class="logo">Nordhaus Living</div>
      <nav>
        <ul>
{_links(MENU)}
        </ul>
      </nav>
    </header>
    <main>
      <h1>{html.escape(name)}</h1>
      <p class="price">{price}</p>
      <p class="blurb">{html.escape(blurb)}</p>
      <button>Add to basket</button>
      <h2>You may also like</h2>
      <ul>
{_links(related)}
      </ul>
    </main>
    <footer>
      <ul>
{_links(FOOTER)}
      </ul>
      <p>Copyright Nordhaus Living. All prices include VAT.</p>
    </footer>
  </body>
</html>
"""


def shop_pages() -> dict[str, bytes]:
    """Path -> HTML of each product page."""
    return {f"/shop/{number}": shop_page(*product).encode("utf-8")
            for number, product in enumerate(PRODUCTS)}
