"""Pages whose long main text is the same on every page of a family, the page's own data sitting
beside it: one vacancy per office under one title (the office, pay and reference as fields),
a category's pages of products under one SEO text, a day's reference rates under the same terms
of use. The text alone (over 300 words) says nothing of the page; its fields, grid or table do."""

from __future__ import annotations

import random

from .chrome import Site, esc, fields, render, slug, table

Page = tuple[str, str]

CAREERS = Site(
    name="Tidewater Careers",
    domain="jobs.tidewater.example",
    tagline="Payments for independent shops",
    nav=("Teams", "Offices", "Benefits", "Graduates", "Open roles"),
)

#: (office, pay, reference): one vacancy per office
OFFICES = (
    ("Berlin, Germany", "EUR 75,000 - 90,000 a year", "R-2098"),
    ("Warsaw, Poland", "PLN 28,000 - 34,000 a month", "R-2119"),
    ("Lisbon, Portugal", "EUR 52,000 - 64,000 a year", "R-2127"),
    ("Dublin, Ireland", "EUR 80,000 - 95,000 a year", "R-2131"),
    ("Madrid, Spain", "EUR 55,000 - 68,000 a year", "R-2140"),
    ("Tallinn, Estonia", "EUR 50,000 - 62,000 a year", "R-2152"),
    ("Prague, Czechia", "CZK 110,000 - 135,000 a month", "R-2166"),
    ("Vienna, Austria", "EUR 68,000 - 82,000 a year", "R-2171"),
    ("Amsterdam, Netherlands", "EUR 78,000 - 92,000 a year", "R-2185"),
    ("Helsinki, Finland", "EUR 66,000 - 79,000 a year", "R-2190"),
)

VACANCY = (
    "Tidewater builds the payments, ledger and payout software that thousands of independent "
    "shops rely on every day. Our engineers work in small teams that own their services from "
    "design to production, decide together what to build next and talk to customers every week. "
    "We value clear writing, careful reviews and short meetings, and we ship to production many "
    "times a day behind feature flags.",
    "As a senior backend engineer in the payments team you will design, build and run the "
    "services that move money between shoppers, shops and banks: authorisation, capture, "
    "refunds, reconciliation and payouts. You will write technical proposals and discuss them "
    "with your colleagues, improve our monitoring and our incident response, mentor other "
    "engineers through pairing and reviews, and work closely with product and compliance to turn "
    "regulatory requirements into simple, well-tested code.",
    "We are looking for five or more years of backend development in production, a good "
    "knowledge of relational databases, transactions and distributed systems, the ability to "
    "explain hard problems in plain words, and curiosity about how money moves. Experience in "
    "payments, accounting or banking is welcome but not required, and we do not look at degrees.",
    "We offer a competitive salary and stock options, thirty days of paid holiday and your "
    "birthday off, a yearly learning budget, the laptop of your choice, flexible hours, paid "
    "parental leave for every parent, a public transport allowance and a yearly company "
    "retreat. Our hiring process has four steps: a thirty-minute call with a recruiter, a "
    "take-home task of no more than three hours, a technical interview with two engineers and "
    "a final conversation with the hiring manager about values and collaboration.",
    "You will join a team of six engineers, a product manager and a designer. Most of our "
    "services are written in Go and Kotlin, run on Kubernetes in two cloud regions and talk to "
    "each other through queues; our data lives in PostgreSQL. We are on call one week in eight, "
    "and we keep nights quiet by fixing the causes of every page we get.",
)


def vacancies_one_title() -> list[Page]:
    """One vacancy per office, every ad under the same title and with the same long text: the
    office, pay and reference in the ad's fields are all that differ."""
    pages = []
    for office, pay, ref in OFFICES:
        text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in VACANCY)
        main = (
            '<article class="vacancy"><h1>Senior Backend Engineer, Payments</h1>'
            + fields([("Location", office), ("Salary", pay), ("Reference", ref),
                      ("Type", "Full time, permanent")], "job-facts")
            + f'{text}<p><a class="apply" href="/apply/{slug(ref)}">Apply now</a></p></article>'
        )
        url = f"https://{CAREERS.domain}/vacancies/{slug(ref)}"
        pages.append((url, render(CAREERS, title="Senior Backend Engineer, Payments", main=main,
                                  breadcrumbs=[("Open roles", "/open-roles")])))
    return pages


POTTERY = Site(
    name="Saltmarsh Pottery",
    domain="www.saltmarsh-pottery.example",
    tagline="Stoneware thrown by hand on the coast",
    nav=("Mugs", "Bowls", "Plates", "Vases", "Gifts", "Workshops", "Journal"),
)

SEO_TEXT = (
    "Every piece in our stoneware range is thrown by hand in our workshop on the estuary, from "
    "a blend of local clay and a little sand that gives the body its warm, speckled finish. "
    "Each one is trimmed, signed and left to dry slowly for a week before its first firing, then "
    "dipped in one of our glazes and fired again to almost thirteen hundred degrees, which makes "
    "it strong enough for daily use, dishwasher safe and fine in the microwave and the oven.",
    "Because every piece is made by hand, no two are quite alike: sizes vary by a few "
    "millimetres, and the glaze breaks differently over every rim and handle. We think that is "
    "the point. Our glazes are mixed in the workshop from simple materials and contain no lead "
    "or cadmium; the blues come from cobalt, the greens from copper and the warm browns from "
    "iron found in the clay itself.",
    "We pack every order in recycled paper and cardboard without plastic, and we send parcels "
    "within two working days. Delivery is free on orders over fifty pounds in the United "
    "Kingdom, and we ship to most of Europe. If anything arrives broken, send us a photograph "
    "within fourteen days and we will replace it or refund you in full. Seconds with small "
    "glaze faults are sold at a discount in our workshop shop on Saturdays.",
    "Looking after stoneware is easy: avoid sudden changes of temperature, such as pouring "
    "boiling water into a cold mug straight from the fridge, and do not put pieces on a hob or "
    "under a grill. Unglazed bases can be smoothed with fine sandpaper if they scratch a table.",
    "Our workshop is open to visitors from Thursday to Saturday. You can watch the potters at "
    "the wheel, see pieces drying on the boards and choose from the kiln shelves before they "
    "reach the shop. We also run evening and weekend classes for beginners, with clay, glazes "
    "and two firings included, and the pieces you make are yours to take home.",
)

#: a category's products: each name of a line in each shape
LINES = ("Tide", "Pier", "Anchor", "Buoy", "Keel", "Rope", "Lantern", "Sail", "Cove", "Bay")
SHAPES = ("mug", "side plate", "jug", "bud vase", "serving bowl", "butter dish")


def category_pages() -> list[Page]:
    """A category's pages, six products each (names and prices), every page with the same
    long text about the range below the grid and the same title but for its page number on
    pages after the first."""
    rng = random.Random("hardneg:category_pages")
    pages = []
    for number, line in enumerate(LINES):
        grid = "".join(
            f'<li class="product-card"><a href="/p/{slug(line)}-{slug(shape)}">{esc(line)} '
            f'{esc(shape)}</a> <span class="price">£{rng.randint(12, 60)}.00</span></li>'
            for shape in SHAPES
        )
        text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in SEO_TEXT)
        main = (f'<h1>Stoneware</h1><ul class="product-grid">{grid}</ul>'
                f'<section class="category-text"><h2>About our stoneware</h2>{text}</section>')
        suffix = f" - Page {number + 1}" if number else ""
        url = f"https://{POTTERY.domain}/stoneware" + (f"?page={number + 1}" if number else "")
        pages.append((url, render(POTTERY, title=f"Stoneware{suffix}", main=main,
                                  breadcrumbs=[("Shop", "/shop")])))
    return pages


BANK = Site(
    name="Northbank Markets",
    domain="markets.northbank.example",
    tagline="Reference rates and market data",
    nav=("Rates", "Markets", "Research", "Calendar", "Contact"),
)

TERMS = (
    "The reference rates on this page are published for information only. They are calculated "
    "from quotes contributed by a panel of banks shortly after two in the afternoon, Central "
    "European Time, on each business day, and they are not rates at which any transaction can be "
    "made or at which we or any other bank will deal. They may differ from the rates applied to "
    "your own payments, cards or accounts, which are set out in your account terms.",
    "Although we take care in collecting and publishing the rates, we do not guarantee that "
    "they are accurate, complete or up to date, and we accept no liability for any loss arising "
    "from their use. Past rates are no guide to future rates. Nothing on this page is an offer, "
    "a recommendation or advice to buy or sell any currency or financial instrument, and you "
    "should take independent advice before making any decision based on it.",
    "You may copy and use the rates for your own purposes, including in commercial products, as "
    "long as you name us as their source and do not suggest that we endorse your product. You "
    "may not present the rates as your own, change them, or publish them before they appear on "
    "this page. We may change the way the rates are calculated or stop publishing them at any "
    "time, and we will announce such changes on this page in advance where we can.",
    "The rates are rounded to four decimal places, except for currencies quoted in large units, "
    "and are expressed as the amount of each currency that one euro buys. On days when the "
    "markets of a currency are closed, its rate is carried over from the last business day and "
    "marked as such. Historical rates since the introduction of the euro can be downloaded as "
    "a spreadsheet from the statistics section of this site, free of charge.",
    "Questions about the rates, their calculation or their use can be sent to our market data "
    "desk, which answers on business days. Please do not send requests to deal or instructions "
    "for payments to this address: they cannot be acted on.",
)

CURRENCIES = ("USD", "GBP", "CHF", "PLN", "JPY", "SEK")


def daily_rates() -> list[Page]:
    """One page per business day: that day's reference rates in a table (another date, other
    rates) above the same long terms of use, under the same title."""
    rng = random.Random("hardneg:daily_rates")
    base = {"USD": 1.08, "GBP": 0.85, "CHF": 0.97, "PLN": 4.31, "JPY": 168.2, "SEK": 11.42}
    pages = []
    for day in range(3, 15):
        rows = [(code, f"{base[code] * (1 + rng.uniform(-0.01, 0.01)):.4f}")
                for code in CURRENCIES]
        text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in TERMS)
        date = f"2024-06-{day:02d}"
        main = (f'<h1>Euro reference rates</h1><p class="as-of">{date}</p>'
                + table(("Currency", "Rate"), rows, "rates")
                + f'<section class="terms"><h2>Terms of use</h2>{text}</section>')
        url = f"https://{BANK.domain}/rates/eur/{date}"
        pages.append((url, render(BANK, title="Euro reference rates", main=main,
                                  breadcrumbs=[("Rates", "/rates")])))
    return pages
