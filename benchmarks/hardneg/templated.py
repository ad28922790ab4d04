"""Template-heavy English families: shop listings, market data, forecasts, job ads, a client-
rendered shop and match results. Each page's own content is data (a grid, a table, a JSON blob)
or a few sentences; the text the site repeats around it is what an extractor sees most of."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

from .chrome import Site, esc, fields, links, render, slug, table

Page = tuple[str, str]

# --------------------------------------------------------------------------- listing

SHOP = Site(
    name="Fernhill Outdoor",
    domain="www.fernhill-outdoor.co.uk",
    tagline="Kit for the hills since 1987",
    nav=("Men", "Women", "Kids", "Footwear", "Clothing", "Camping", "Climbing", "Sale", "Brands"),
)

BRANDS = ("Ridgeway", "Alpenrock", "Northgate", "Tarn & Fell", "Cairnwood", "Stonebridge",
          "Peakline", "Highmoor", "Wolfcrag", "Bracken")

CATEGORIES = (
    {
        "name": "Hiking boots",
        "slug": "hiking-boots",
        "intro": (
            "Whether you are planning a day walk on well-kept paths or a week-long trek across "
            "rough ground, the right pair of boots makes all the difference. Our range covers "
            "lightweight mid-cut boots, waterproof leather classics and stiff-soled mountain "
            "models, and every pair has been worn on the fells by our own staff before it "
            "reached the shelf. Not sure which fit suits you? Read our boot fitting guide or "
            "book a free fitting in any of our stores."
        ),
        "guide": (
            "How to choose hiking boots. Start with the terrain: flexible, low-cut shoes suit "
            "dry, even paths, while mid and high cuts support the ankle on loose rock and "
            "under a heavy pack. Leather uppers last longer and mould to the foot; synthetic "
            "uppers are lighter and dry faster. A waterproof membrane keeps feet dry in wet "
            "grass and shallow streams but makes boots warmer in summer. Try boots on in the "
            "afternoon, when feet are at their largest, and wear the socks you hike in. You "
            "should be able to slide a finger behind your heel when your toes touch the front."
        ),
        "models": ("Kestrel", "Traverse", "Ascent", "Scree", "Ptarmigan", "Corrie", "Lynx",
                   "Saddleback", "Moraine", "Fellrunner", "Arete", "Cirrus", "Ridgeline",
                   "Tor", "Glencoe", "Hawkshead"),
        "variants": ("Mid GTX", "Low WP", "Leather", "Mid Leather", "Trail", "Approach",
                     "Hi WP", "Mesh"),
        "prices": (59, 239),
    },
    {
        "name": "Waterproof jackets",
        "slug": "waterproof-jackets",
        "intro": (
            "A good waterproof is the one piece of kit you should never leave at home. From "
            "packable shells that disappear into a pocket to fully taped three-layer jackets "
            "built for winter ridges, we stock jackets for every kind of weather the hills can "
            "throw at you. Look for the hydrostatic head and breathability ratings on each "
            "product page, and remember that a jacket only stays waterproof if you wash and "
            "reproof it now and then."
        ),
        "guide": (
            "How to choose a waterproof jacket. Two-layer jackets with a mesh lining are "
            "comfortable for town and easy walks; 2.5-layer shells pack small for running and "
            "fast hiking; three-layer jackets are the toughest and breathe best when you work "
            "hard. Check that the hood adjusts at the back and the sides and moves with your "
            "head, that pit zips or mesh pockets let heat out, and that the cuffs close over "
            "gloves. Pick a size that leaves room for a fleece underneath."
        ),
        "models": ("Squall", "Nimbus", "Torrent", "Drizzle", "Monsoon", "Gale", "Haar",
                   "Stratus", "Downpour", "Skye", "Cloudburst", "Tempest", "Mistral",
                   "Cagoule", "Deluge", "Sleet"),
        "variants": ("Shell", "3L Jacket", "2.5L Jacket", "Insulated", "Packable", "Pro",
                     "Hooded", "Lite"),
        "prices": (45, 349),
    },
)

FACETS = (
    ("Brand", BRANDS[:6]),
    ("Size", ("UK 3", "UK 4", "UK 5", "UK 6", "UK 7", "UK 8", "UK 9", "UK 10", "UK 11")),
    ("Price", ("Under £50", "£50 – £100", "£100 – £150", "£150 – £200", "Over £200")),
    ("Features", ("Waterproof", "Vegan", "Wide fit", "Recycled materials", "Vibram sole")),
)
PER_PAGE = 12
LISTING_PAGES = 8


def _stars(rating: float) -> str:
    full, half = int(rating), rating % 1 >= 0.5
    return "★" * full + "½" * half + "☆" * (5 - full - half)


def _card(rng: random.Random, name: str, low: int, high: int) -> str:
    price = rng.randint(low, high) - 0.01
    was = ""
    if rng.random() < 0.3:  # on sale
        was = f'<s class="was">£{price * rng.uniform(1.15, 1.45):.2f}</s>'
    rating = rng.choice((3.5, 4.0, 4.0, 4.5, 4.5, 4.5, 5.0))
    reviews = rng.randint(2, 480)
    colours = rng.randint(1, 6)
    badge = rng.choice(("", "", "", "New", "Bestseller", "Online only", "Last few"))
    badge_html = f'<span class="badge">{badge}</span>' if badge else ""
    return (
        f'<li class="product-card"><a href="/p/{slug(name)}"><img src="/img/{slug(name)}.jpg" '
        f'alt="{esc(name)}" loading="lazy"><h3 class="product-name">{esc(name)}</h3></a>'
        f'{badge_html}<div class="price"><span class="now">£{price:.2f}</span>{was}</div>'
        f'<div class="rating" aria-label="{rating} out of 5">{_stars(rating)} ({reviews})</div>'
        f'<p class="colours">{colours} colour{"s" if colours > 1 else ""}</p></li>'
    )


def _facets() -> str:
    blocks = "".join(
        f'<fieldset class="facet"><legend>{esc(name)}</legend>'
        + "".join(f'<label><input type="checkbox"> {esc(v)}</label>' for v in values)
        + "</fieldset>"
        for name, values in FACETS
    )
    return (
        f'<form class="filters"><h2>Filter</h2>{blocks}</form>'
        '<ul class="promises"><li>Free delivery on orders over £50</li>'
        "<li>365-day returns</li><li>Price match promise</li></ul>"
    )


def listing() -> list[Page]:
    """Two shop categories, pages 1..8 each: one intro and buying guide, different products."""
    rng = random.Random("hardneg:listing")
    pages = []
    for category in CATEGORIES:
        names = [
            f"{brand} {model} {variant}"
            for brand in BRANDS for model in category["models"] for variant in category["variants"]
        ]
        rng.shuffle(names)
        total = PER_PAGE * LISTING_PAGES
        low, high = category["prices"]
        for number in range(1, LISTING_PAGES + 1):
            chosen = names[(number - 1) * PER_PAGE:number * PER_PAGE]
            shown = [rng.choice(("Men's ", "Women's ", "")) + name for name in chosen]
            cards = "".join(_card(rng, name, low, high) for name in shown)
            first = (number - 1) * PER_PAGE + 1
            pager = links(
                [("Previous", f"?page={number - 1}")] * (number > 1)
                + [(str(n), f"?page={n}") for n in range(1, LISTING_PAGES + 1)]
                + [("Next", f"?page={number + 1}")] * (number < LISTING_PAGES),
                "pagination",
            )
            main = (
                f"<h1>{esc(category['name'])}</h1>"
                f'<div class="category-intro"><p>{esc(category["intro"])}</p></div>'
                f'<div class="toolbar"><p class="result-count">Showing {first}–'
                f"{first + PER_PAGE - 1} of {total} products</p><label>Sort by <select>"
                "<option>Recommended</option><option>Price: low to high</option>"
                "<option>Price: high to low</option><option>Newest</option>"
                "<option>Top rated</option></select></label></div>"
                f'<ul class="product-grid">{cards}</ul><nav>{pager}</nav>'
                f'<section class="seo-text"><p>{esc(category["guide"])}</p></section>'
            )
            url = f"https://{SHOP.domain}/c/{category['slug']}?page={number}"
            pages.append((url, render(
                SHOP, title=category["name"], main=main, sidebar=_facets(),
                breadcrumbs=[("Footwear" if "boot" in category["slug"] else "Clothing", "/c"),
                             (category["name"], f"/c/{category['slug']}")],
                head_title=f"{category['name']} | Page {number} of {LISTING_PAGES} | {SHOP.name}",
                related=[("Walking socks", "/c/socks"), ("Gaiters", "/c/gaiters"),
                         ("Trekking poles", "/c/poles"), ("Rucksacks", "/c/rucksacks")],
            )))
    return pages


# --------------------------------------------------------------------------- stock_table

MARKETS = Site(
    name="Harbourline Markets",
    domain="markets.harbourline.com",
    tagline="Prices, charts and company news",
    nav=("Markets", "Shares", "Funds", "Currencies", "Commodities", "Company news", "Tools"),
    account=("Log in", "Open an account", "Support"),
)

COMPANIES = (
    ("ADM", "Aldermoor Mining", "Basic materials", 412.0),
    ("BRW", "Brightwater Utilities", "Utilities", 1096.5),
    ("CLX", "Calloway Logistics", "Industrials", 238.4),
    ("DNV", "Dunvale Bank", "Financials", 57.12),
    ("EVT", "Everton Telecom", "Telecommunications", 131.8),
    ("FHS", "Fairhurst Housing", "Real estate", 684.0),
    ("GLP", "Glenpark Pharma", "Health care", 2315.0),
    ("HRT", "Hartwell Retail", "Consumer services", 186.25),
    ("IVS", "Ironvale Steel", "Basic materials", 94.6),
    ("JNP", "Juniper Software", "Technology", 1452.0),
    ("KSG", "Kingsgate Insurance", "Financials", 508.2),
    ("LMR", "Lamorna Renewables", "Energy", 322.7),
    ("MRC", "Marchbank Chemicals", "Basic materials", 877.0),
    ("NWF", "Northwold Foods", "Consumer goods", 264.9),
    ("OSP", "Ospringe Power", "Utilities", 145.35),
    ("PTR", "Portree Oil & Gas", "Energy", 451.1),
    ("QNT", "Quantock Aerospace", "Industrials", 1788.0),
    ("RVL", "Ravenhill Brewers", "Consumer goods", 3120.0),
    ("SLC", "Saltcoats Shipping", "Industrials", 73.48),
    ("TMB", "Thornbury Media", "Consumer services", 402.3),
    ("UPL", "Upland Property Trust", "Real estate", 118.9),
    ("VXH", "Vexham Healthcare", "Health care", 955.0),
    ("WLD", "Wealdon Semiconductors", "Technology", 2690.0),
    ("YRK", "Yarkhill Airlines", "Consumer services", 167.05),
)

DISCLAIMER = (
    "Important information. Prices shown are end-of-day closing prices supplied by our data "
    "partner and may be delayed, incomplete or revised after publication. Harbourline Markets "
    "does not guarantee the accuracy, completeness or timeliness of this data and accepts no "
    "liability for any loss arising from its use. Nothing on this page is investment advice or a "
    "recommendation to buy or sell any security. The value of investments and the income from "
    "them can fall as well as rise, and you may get back less than you invested. Past "
    "performance is not a reliable indicator of future results. If you are unsure whether an "
    "investment is right for you, please speak to a regulated financial adviser."
)
READING_GUIDE = (
    "How to read this table. Change is measured against the previous trading session's closing "
    "price. Volume is the number of shares traded on the exchange's order book during the "
    "session and excludes off-book trades. All prices are in pence unless stated otherwise."
)
TRADING_DAYS = 15


def stock_table() -> list[Page]:
    """Closing prices of the same 24 shares on 15 trading days: one disclaimer, new numbers."""
    rng = random.Random("hardneg:stock_table")
    prices = {ticker: base for ticker, _, _, base in COMPANIES}
    index_level = 8143.62
    day = date(2025, 3, 3)
    pages = []
    while len(pages) < TRADING_DAYS:
        if day.weekday() >= 5:
            day += timedelta(days=1)
            continue
        rows, rises = [], 0
        drift = rng.gauss(0, 0.006)
        for ticker, name, sector, _ in COMPANIES:
            before = prices[ticker]
            close = round(before * (1 + drift + rng.gauss(0, 0.014)), 2)
            high = round(max(before, close) * (1 + abs(rng.gauss(0, 0.006))), 2)
            low = round(min(before, close) * (1 - abs(rng.gauss(0, 0.006))), 2)
            change = (close - before) / before * 100
            rises += change > 0
            volume = int(rng.lognormvariate(14, 0.6))
            rows.append((f'<a href="/quote/{ticker}">{ticker}</a>',
                         f'<a href="/company/{slug(name)}">{esc(name)}</a>', esc(sector),
                         f"{before:,.2f}", f"{high:,.2f}", f"{low:,.2f}", f"{close:,.2f}",
                         f"{change:+.2f}%", f"{volume:,}"))
            prices[ticker] = close
        moved = index_level * (drift + rng.gauss(0, 0.002))
        index_level += moved
        when = f"{day:%A} {day.day} {day:%B %Y}"
        main = (
            f"<h1>Harbourline 24: closing prices for {when}</h1>"
            f'<p class="summary">The Harbourline 24 index closed at {index_level:,.2f}, '
            f"{'up' if moved >= 0 else 'down'} {abs(moved):.2f} points. "
            f"{rises} of {len(COMPANIES)} constituents rose.</p>"
            + table(("Ticker", "Company", "Sector", "Open", "High", "Low", "Close", "Change",
                     "Volume"), rows, "prices", escape=False)
            + f'<section class="reading-guide"><p>{esc(READING_GUIDE)}</p></section>'
            f'<section class="disclaimer"><p>{esc(DISCLAIMER)}</p></section>'
        )
        sidebar = (
            "<h2>Market tools</h2>"
            + links([("Share price alerts", "/alerts"), ("Portfolio tracker", "/portfolio"),
                     ("Dividend calendar", "/dividends"), ("Currency converter", "/fx")])
            + "<p>Open a share dealing account from £0 a month. Capital at risk.</p>"
        )
        url = f"https://{MARKETS.domain}/indices/hl24/closing-prices/{day:%Y-%m-%d}"
        pages.append((url, render(
            MARKETS, title=f"Closing prices {day:%d %b %Y}", main=main, sidebar=sidebar,
            breadcrumbs=[("Markets", "/markets"), ("Harbourline 24", "/indices/hl24")],
            related=[("Biggest risers today", "/risers"), ("Biggest fallers today", "/fallers"),
                     ("Most traded shares", "/most-traded")],
        )))
        day += timedelta(days=1)
    return pages


# --------------------------------------------------------------------------- weather

WEATHER = Site(
    name="SkyCast",
    domain="www.skycast-weather.com",
    tagline="Hour-by-hour forecasts for 120,000 places",
    nav=("Forecasts", "Radar", "Warnings", "Maps", "Climate", "Pollen", "News", "Apps"),
)

# city, country, mean high °C, daily range, chance of a wet day, sunrise, sunset
CITIES = (
    ("Lyon", "France", 19, 10, 0.35, "06:52", "20:31"),
    ("Porto", "Portugal", 20, 8, 0.40, "06:58", "20:27"),
    ("Bergen", "Norway", 10, 6, 0.70, "06:05", "21:03"),
    ("Seville", "Spain", 26, 13, 0.15, "07:27", "20:49"),
    ("Kraków", "Poland", 15, 10, 0.40, "05:40", "19:48"),
    ("Edinburgh", "United Kingdom", 12, 7, 0.55, "06:17", "20:26"),
    ("Naples", "Italy", 20, 9, 0.30, "06:24", "19:46"),
    ("Graz", "Austria", 17, 11, 0.40, "06:04", "19:48"),
    ("Ghent", "Belgium", 15, 9, 0.50, "06:51", "20:38"),
    ("Thessaloniki", "Greece", 21, 10, 0.25, "06:38", "19:58"),
    ("Tallinn", "Estonia", 9, 8, 0.45, "06:05", "20:41"),
    ("Cork", "Ireland", 13, 7, 0.60, "06:45", "20:42"),
    ("Basel", "Switzerland", 17, 10, 0.40, "06:38", "20:15"),
    ("Valletta", "Malta", 21, 6, 0.15, "06:28", "19:37"),
    ("Uppsala", "Sweden", 10, 9, 0.40, "05:27", "20:18"),
)
DRY = ("Sunny", "Mostly sunny", "Partly cloudy", "Sunny intervals", "Clear", "Cloudy",
       "Hazy sunshine")
WET = ("Light rain", "Showers", "Heavy showers", "Thunderstorms", "Drizzle", "Rain",
       "Sleet showers")
WINDS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
ABOUT_FORECASTS = (
    "About our forecasts. SkyCast forecasts are updated every hour. They combine data from "
    "national weather services with our own high-resolution models and thousands of weather "
    "stations. Temperatures are shown in degrees Celsius and wind speeds in kilometres per hour. "
    "The chance of precipitation is the probability that at least 0.1 mm of rain or snow falls "
    "during the day. Forecasts more than five days ahead are less reliable and may change."
)


def weather() -> list[Page]:
    """Ten-day forecasts for 15 cities: one explanation of the forecasts, different numbers."""
    rng = random.Random("hardneg:weather")
    start = date(2025, 4, 14)
    pages = []
    for city, country, high, spread, wet, sunrise, sunset in CITIES:
        rows = []
        for offset in range(10):
            day = start + timedelta(days=offset)
            is_wet = rng.random() < wet
            top = round(rng.gauss(high, 2.5) - (2 if is_wet else 0))
            bottom = top - max(2, round(rng.gauss(spread, 2)))
            rain = rng.randint(55, 95) if is_wet else rng.randint(0, 25)
            wind = f"{rng.randint(5, 45)} km/h {rng.choice(WINDS)}"
            uv = max(1, round(rng.gauss(high / 4 - (2 if is_wet else 0), 1)))
            rows.append((f"{day:%a} {day.day} {day:%b}", rng.choice(WET if is_wet else DRY),
                         f"{top}°", f"{bottom}°", f"{rain}%", wind, uv))
        today = rows[0]
        main = (
            f"<h1>{esc(city)} weather forecast</h1>"
            f'<p class="location">{esc(city)}, {esc(country)}</p>'
            f'<div class="now"><p>Today: {esc(today[1])}, high {today[2]}C, '
            f"low {today[3]}C.</p><p>Sunrise {sunrise} · Sunset {sunset}</p>"
            "<p>Severe weather warnings: none in force.</p></div>"
            "<h2>10-day forecast</h2>"
            + table(("Day", "Conditions", "High", "Low", "Rain", "Wind", "UV"), rows, "forecast")
            + f'<section class="about"><p>{esc(ABOUT_FORECASTS)}</p></section>'
        )
        sidebar = (
            "<h2>Nearby places</h2>"
            + links([(other[0], f"/forecast/{slug(other[0])}") for other in CITIES
                     if other[1] == country and other[0] != city]
                    or [("Map view", "/maps")])
            + "<h2>Get the app</h2><p>Rain alerts for your location, free on iOS and Android.</p>"
        )
        url = f"https://{WEATHER.domain}/forecast/{slug(country)}/{slug(city)}"
        pages.append((url, render(
            WEATHER, title=f"{city} weather forecast", main=main, sidebar=sidebar,
            breadcrumbs=[("Forecasts", "/forecast"), (country, f"/forecast/{slug(country)}")],
            related=[("Pollen forecast", "/pollen"), ("Rain radar", "/radar"),
                     ("Long-range forecast", "/long-range")],
        )))
    return pages


# --------------------------------------------------------------------------- jobs

JOB_BOARD = Site(
    name="WorkBridge",
    domain="www.workbridge.jobs",
    tagline="Find a job you love",
    nav=("Find jobs", "Companies", "Salaries", "Career advice", "Post a job", "Recruiters"),
    account=("Sign in", "Upload your CV", "Employers"),
)

# title, company, location, salary, summary, requirements
ROLES = (
    ("Senior Data Analyst", "Calloway Logistics", "Leeds (hybrid)", "£48,000 – £56,000",
     "You will turn delivery and warehouse data into forecasts that our planning teams use "
     "every morning.",
     ("Strong SQL and Python", "Experience with Power BI or Looker")),
    ("Staff Nurse – Cardiology", "St Anselm's Hospital", "Bristol", "£29,970 – £36,483",
     "Join a friendly twenty-bed cardiology ward caring for patients before and after "
     "heart procedures.",
     ("NMC registration", "Interest in cardiac care; newly qualified nurses welcome")),
    ("Electrician (Domestic)", "Brightwater Homes", "Norwich", "£38,000 plus van",
     "Fit-out and testing work on new-build homes across Norfolk and north Suffolk.",
     ("NVQ Level 3 and 18th Edition", "Full UK driving licence")),
    ("Barista", "Ground Floor Coffee", "Brighton", "£11.90 an hour plus tips",
     "Make great coffee for regulars in our busy seafront shop and help train new starters.",
     ("Six months' barista experience", "Weekend availability")),
    ("Backend Software Engineer (Go)", "Juniper Software", "Remote (UK)", "£70,000 – £85,000",
     "Help us scale the payments API that thousands of small businesses rely on.",
     ("Three years' backend experience", "Comfortable with PostgreSQL and message queues")),
    ("Management Accountant", "Northwold Foods", "Grimsby", "£42,000 – £47,000",
     "Own month-end reporting for two production sites and support the capital budget.",
     ("ACCA or CIMA qualified or finalist", "Advanced Excel")),
    ("Warehouse Operative – Nights", "Saltcoats Shipping", "Daventry", "£13.40 an hour",
     "Pick, pack and load outbound orders on our night shift, four nights on, four off.",
     ("Counterbalance licence an advantage", "Able to stand for long periods")),
    ("Primary Teacher (Year 4)", "Oakfield Primary School", "Sheffield", "MPS/UPS",
     "A warm, well-resourced school is looking for a Year 4 class teacher from September.",
     ("QTS", "Experience in Key Stage 2")),
    ("Graphic Designer", "Thornbury Media", "Manchester", "£30,000 – £34,000",
     "Design covers, social graphics and event branding for our three consumer magazines.",
     ("Strong portfolio", "Adobe InDesign, Illustrator and Figma")),
    ("HGV Class 1 Driver", "Portree Haulage", "Inverness", "£17.50 an hour",
     "Trunking work between Inverness and the central belt, home most nights.",
     ("Class 1 licence with CPC and digital tacho card", "No more than six points")),
    ("Customer Service Advisor", "Kingsgate Insurance", "Sunderland", "£23,500",
     "Answer calls and chats from home insurance customers and help them with claims.",
     ("Customer service experience", "Clear, friendly phone manner")),
    ("Marketing Manager", "Lamorna Renewables", "Truro", "£50,000 – £58,000",
     "Lead marketing for our community solar schemes and grow our list of investors.",
     ("Five years in B2C marketing", "Experience in energy or finance a plus")),
    ("Sous Chef", "The Old Granary", "York", "£34,000 plus tronc",
     "Run the pass in a seasonal brasserie cooking for eighty covers a night.",
     ("Experience as a junior sous or strong chef de partie", "Level 2 food hygiene")),
    ("Dental Receptionist", "Quayside Dental", "Plymouth", "£22,000 – £24,000",
     "Be the first friendly face patients see at our busy four-surgery practice.",
     ("Reception experience", "Experience of Dentally or SOE an advantage")),
    ("Civil Engineer", "Quantock Infrastructure", "Taunton", "£45,000 – £55,000",
     "Design drainage and highways for residential schemes across the South West.",
     ("Degree in civil engineering", "Working towards chartership")),
)
APPLY = (
    "How to apply. Click Apply now to send your CV and a short cover letter through WorkBridge. "
    "The employer will review applications as they arrive and may close this vacancy early, so "
    "we recommend applying as soon as possible. If you are shortlisted, the employer will "
    "contact you directly by email or phone."
)
SAFETY = (
    "Stay safe in your job search. Genuine employers will never ask you to pay for training, "
    "equipment or background checks, or to share your bank details before you have signed a "
    "contract. If a job advert or an employer's message looks suspicious, report it to us and do "
    "not share any personal information."
)
EQUAL = (
    "WorkBridge is committed to fair and inclusive recruitment. All advertisers must comply with "
    "the Equality Act 2010 and consider applications from all candidates regardless of age, "
    "disability, gender identity, race, religion or belief, sex or sexual orientation."
)
BENEFITS = ("25 days' holiday plus bank holidays", "Company pension", "Cycle to work scheme",
            "Free parking", "Employee assistance programme", "Life assurance", "Paid overtime",
            "Training budget", "Staff discount", "Flexible hours")


def jobs() -> list[Page]:
    """Job ads on one board: short unique descriptions inside the board's long boilerplate."""
    rng = random.Random("hardneg:jobs")
    pages = []
    for number, (title, company, place, pay, summary, needs) in enumerate(ROLES):
        reference = f"WB-{rng.randint(100000, 999999)}"
        posted = rng.choice(("Posted today", "Posted yesterday", "Posted 3 days ago",
                             "Posted 1 week ago", "Posted 2 weeks ago"))
        contract = rng.choice(("Permanent, full-time", "Permanent, part-time",
                               "Fixed term, 12 months", "Permanent, shifts"))
        perks = ", ".join(rng.sample(BENEFITS, 4))
        main = (
            f'<article class="job"><h1>{esc(title)}</h1>'
            f'<p class="company">{esc(company)} – {esc(place)}</p>'
            + fields((("Salary", pay), ("Contract", contract), ("Benefits", perks),
                      ("Posted", posted), ("Reference", reference)), "job-meta")
            + f'<section class="description"><h2>About the role</h2><p>{esc(summary)}</p>'
            f"<p>Requirements: {esc(needs[0])}; {esc(needs[1][0].lower() + needs[1][1:])}.</p>"
            "</section>"
            f'<section class="apply"><p>{esc(APPLY)}</p><button>Apply now</button>'
            "<button>Save job</button></section>"
            f'<section class="safety"><p>{esc(SAFETY)}</p></section>'
            f'<p class="equal-opportunity">{esc(EQUAL)}</p></article>'
        )
        others = [r[0] for i, r in enumerate(ROLES) if i != number][:4]
        sidebar = (
            "<h2>Similar jobs</h2>" + links([(o, f"/job/{slug(o)}") for o in others])
            + "<h2>Job alerts</h2><p>Get new jobs like this by email. Create an alert in one "
            "click.</p>"
        )
        url = f"https://{JOB_BOARD.domain}/job/{slug(title)}-{reference.lower()}"
        pages.append((url, render(
            JOB_BOARD, title=f"{title} job in {place.split(' (')[0]}", main=main,
            sidebar=sidebar, breadcrumbs=[("Find jobs", "/jobs"),
                                          (place.split(" (")[0], f"/jobs/{slug(place)}")],
        )))
    return pages


# --------------------------------------------------------------------------- next_data

APP_SHOP = Site(
    name="Lumen Home",
    domain="www.lumenhome.com",
    tagline="Lighting, furniture and homeware",
    nav=("Lighting", "Furniture", "Kitchen", "Textiles", "Decor", "Outdoor", "Gift cards"),
    account=("Account", "Wishlist", "Basket"),
)

# name, category, price, material, size, description
PRODUCTS = (
    ("Arlo Globe Pendant", "Lighting", 89, "Opal glass, brass", "Ø 30 cm",
     "A soft opal globe that spreads warm, even light over a dining table. The brushed brass "
     "ceiling rose and braided cable are adjustable up to 150 cm."),
    ("Fen Oak Dining Chair", "Furniture", 165, "Solid oak, paper cord", "W 48 × D 52 × H 79 cm",
     "A light, sturdy chair with a hand-woven paper cord seat. Each chair is finished with "
     "natural oil that brings out the grain of the oak."),
    ("Kiln Stoneware Mug Set", "Kitchen", 32, "Reactive-glaze stoneware", "350 ml, set of 4",
     "Four generous mugs in a speckled reactive glaze, so no two are quite alike. Dishwasher "
     "and microwave safe."),
    ("Tarn Wool Throw", "Textiles", 74, "Lambswool", "130 × 180 cm",
     "Woven in a Welsh mill from soft lambswool in a subtle herringbone. Fringed at both ends "
     "and warm enough for cold evenings on the sofa."),
    ("Pillar Table Lamp", "Lighting", 119, "Travertine, linen", "H 46 cm",
     "A solid travertine base topped with a pleated linen shade. The inline dimmer lets you "
     "turn it down to a gentle glow."),
    ("Harbour Rattan Armchair", "Furniture", 349, "Rattan, cotton cushion", "W 72 × H 84 cm",
     "A curved rattan armchair with a deep seat and a removable cushion cover that you can "
     "wash at thirty degrees."),
    ("Copper Pour-Over Kettle", "Kitchen", 58, "Stainless steel, copper finish", "1 litre",
     "A slim gooseneck spout gives you precise control when brewing filter coffee. Works on "
     "gas, electric and induction hobs."),
    ("Linen Duvet Cover", "Textiles", 129, "Stonewashed French linen", "Double, 200 × 200 cm",
     "Stonewashed for a relaxed, lived-in feel from the first night. Closes with coconut "
     "shell buttons and comes with two pillowcases."),
    ("Drift Wall Mirror", "Decor", 95, "Recycled aluminium frame", "Ø 60 cm",
     "A round mirror with a slim frame in recycled aluminium that makes small hallways feel "
     "brighter and wider."),
    ("Solstice Outdoor Lantern", "Outdoor", 45, "Powder-coated steel", "H 38 cm",
     "Rechargeable LED lantern with a warm flicker mode. One charge lasts up to twelve hours "
     "on the terrace or the balcony."),
    ("Cove Bathroom Cabinet", "Furniture", 210, "Ash veneer, glass shelves", "W 60 × H 70 cm",
     "A wall cabinet with a mirrored door, two adjustable glass shelves and a soft-close "
     "hinge. Suitable for bathroom zones two and three."),
    ("Bloom Ceramic Vase", "Decor", 38, "Hand-thrown ceramic", "H 24 cm",
     "Thrown by hand in a small Portuguese workshop and glazed in a soft sage green. Each "
     "vase varies slightly in shape."),
    ("Ember Cast Iron Casserole", "Kitchen", 139, "Enamelled cast iron", "26 cm, 5.3 litres",
     "Slow-cook stews on the hob and finish them in the oven. The enamel interior needs no "
     "seasoning and cleans easily."),
    ("Moss Jute Rug", "Textiles", 185, "Hand-braided jute", "160 × 230 cm",
     "A hard-wearing rug braided by hand from natural jute, with a cotton backing that keeps "
     "it from slipping on wooden floors."),
    ("Orbit Wall Clock", "Decor", 49, "Beech, glass", "Ø 35 cm",
     "A quiet sweep movement and a clear face with minimal markings. Runs on one AA battery."),
)
SHELL = (
    '<div id="__next"><div class="page-skeleton" aria-busy="true">'
    '<div class="skeleton-gallery"></div><div class="skeleton-line"></div>'
    '<div class="skeleton-line short"></div></div>'
    "<noscript>You need to enable JavaScript to use this site.</noscript></div>"
    '<section class="service-bar"><p>Free delivery on orders over £60. Free returns within 30 '
    "days. Pay in three with Klarna.</p></section>"
    # what the server renders around every product: the shop's promises and its help desk
    '<section class="why-us"><h2>Why shop with Lumen Home</h2>'
    "<div><h3>Made to last</h3><p>Every piece is chosen by our buyers for materials and "
    "craftsmanship that will last for years, and comes with a two-year guarantee.</p></div>"
    "<div><h3>Delivered with care</h3><p>Small items arrive in two to four working days. "
    "Furniture is delivered to the room of your choice by a two-person team, and we take the "
    "packaging away.</p></div>"
    "<div><h3>Better for the planet</h3><p>We pack in recycled cardboard, offset every "
    "delivery and publish where each product is made.</p></div></section>"
    '<section class="help"><h2>Need help?</h2><p>Our customer care team is here Monday to '
    "Saturday from 9am to 6pm. Call 0330 123 4567, chat with us online or visit our "
    "showroom in Bath.</p></section>"
)


def next_data() -> list[Page]:
    """Client-rendered product pages: the same shell; the product only in __NEXT_DATA__."""
    rng = random.Random("hardneg:next_data")
    pages = []
    build = "x7Qm2vK9cTzR4pWb1sLhA"
    for number, (name, category, price, material, size, description) in enumerate(PRODUCTS):
        handle = slug(name)
        reviews = [
            {"author": rng.choice(("Sophie", "James", "Priya", "Tom", "Aisha", "Mark", "Elena")),
             "rating": rng.choice((4, 5, 5)),
             "body": rng.choice(("Lovely quality, exactly as pictured.",
                                 "Arrived quickly and well packed.",
                                 "Even nicer in person. Would buy again.",
                                 "Good value for the price."))}
            for _ in range(rng.randint(1, 3))
        ]
        data = {
            "props": {"pageProps": {"product": {
                "id": f"LH-{10400 + number * 37}",
                "handle": handle,
                "name": name,
                "category": category,
                "price": {"amount": price, "currency": "GBP"},
                "description": description,
                "specifications": {"Material": material, "Dimensions": size,
                                   "Care": "Wipe clean with a damp cloth"},
                "images": [f"https://cdn.lumenhome.com/p/{handle}-{i}.jpg" for i in (1, 2, 3)],
                "inStock": rng.random() < 0.85,
                "reviews": reviews,
            }}, "__N_SSP": True},
            "page": "/products/[handle]",
            "query": {"handle": handle},
            "buildId": build,
            "isFallback": False,
            "gssp": True,
            "scriptLoader": [],
        }
        blob = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
        url = f"https://{APP_SHOP.domain}/products/{handle}"
        pages.append((url, render(
            APP_SHOP, title="", main=SHELL, head_title=f"{APP_SHOP.name} – {APP_SHOP.tagline}",
            body_extra=f'<script id="__NEXT_DATA__" type="application/json">{blob}</script>'
            f'<script src="/_next/static/{build}/_buildManifest.js" defer></script>',
        )))
    return pages


# --------------------------------------------------------------------------- scores

SCORES = Site(
    name="Matchday Live",
    domain="www.matchdaylive.net",
    tagline="Scores, fixtures and tables",
    nav=("Scores", "Fixtures", "Results", "Tables", "Transfers", "Teams", "Video"),
)

TEAMS = (
    ("Riverside Athletic", "Riverside Park"), ("Northbridge Town", "The Mill Ground"),
    ("Castlegate United", "Castle Meadow"), ("Kingsmoor Rovers", "Moor Lane"),
    ("Ashford Vale", "Vale Road"), ("Millbrook City", "Millbrook Stadium"),
    ("Harrowgate Wanderers", "The Crescent"), ("Eastmere Albion", "Eastmere Arena"),
    ("Stonehaven FC", "Harbour Road"), ("Westfield Borough", "Westfield Lane"),
    ("Oakham Rangers", "Oak Park"), ("Brackley Park", "Brackley Common"),
    ("Fenwick Dynamo", "Fenwick Fields"), ("Lowther Corinthians", "Lowther Street"),
    ("Marston Villa", "Villa Park Road"), ("Redcliffe County", "County Ground"),
)
FIRST = ("Jack", "Callum", "Luis", "Mateo", "Kofi", "Ryan", "Dan", "Ollie", "Sami", "Tyler",
         "Jonas", "Marco", "Ethan", "Kieran", "Amir", "Lewis", "Nathan", "Ivan", "Reece", "Theo",
         "Finn", "Adam", "Bruno", "Declan", "Emil", "Harvey", "Joel", "Leon", "Noah", "Oscar")
LAST = ("Whitaker", "Okafor", "Brennan", "Silva", "Hughes", "Kowalski", "Mensah", "Doyle",
        "Farrell", "Lindqvist", "Barros", "Holt", "McAllister", "Petrov", "Shaw", "Adeyemi",
        "Connolly", "Duarte", "Fischer", "Grant", "Harker", "Iqbal", "Jensen", "Keane", "Lowe",
        "Moreau", "Nolan", "Osei", "Pryce", "Quinn", "Rahman", "Sutton", "Tierney", "Varga")
MATCHES = 15
SCORES_NOTE = (
    "Live text commentary is not available for this match. Match data is supplied by our data "
    "partner and may be corrected after the final whistle. Kick-off times are shown in UK time."
)


def scores() -> list[Page]:
    """Results of one round and a half of a league: teams, scorers and stats differ."""
    rng = random.Random("hardneg:scores")
    squads = {team: [f"{rng.choice(FIRST)} {rng.choice(LAST)}" for _ in range(14)]
              for team, _ in TEAMS}
    order = list(range(len(TEAMS)))
    pages = []
    day = date(2025, 2, 8)
    while len(pages) < MATCHES:
        rng.shuffle(order)
        for pair in range(0, len(order), 2):
            if len(pages) == MATCHES:
                break
            (home, ground), (away, _) = TEAMS[order[pair]], TEAMS[order[pair + 1]]
            goals = {home: rng.choice((0, 1, 1, 2, 2, 3, 4)), away: rng.choice((0, 0, 1, 1, 2, 3))}
            events = sorted(
                (rng.randint(2, 90), team, rng.choice(squads[team][5:]))
                for team in (home, away) for _ in range(goals[team])
            )
            goal_list = "".join(f"<li>{minute}' {esc(player)} ({esc(team)})</li>"
                                for minute, team, player in events) or "<li>No goals</li>"
            possession = rng.randint(35, 65)
            stats = (
                ("Possession", f"{possession}%", f"{100 - possession}%"),
                ("Shots", rng.randint(4, 22), rng.randint(3, 18)),
                ("Shots on target", rng.randint(goals[home], 9), rng.randint(goals[away], 7)),
                ("Corners", rng.randint(1, 11), rng.randint(0, 9)),
                ("Fouls", rng.randint(6, 17), rng.randint(6, 17)),
                ("Yellow cards", rng.randint(0, 4), rng.randint(0, 4)),
            )
            lineups = "".join(
                f'<div class="lineup"><h3>{esc(team)}</h3><ol>'
                + "".join(f"<li>{esc(p)}</li>" for p in squads[team][:11]) + "</ol></div>"
                for team in (home, away)
            )
            main = (
                f'<div class="scoreboard"><span class="home">{esc(home)}</span>'
                f'<span class="score">{goals[home]} – {goals[away]}</span>'
                f'<span class="away">{esc(away)}</span><p class="status">Full time</p></div>'
                f"<h1>{esc(home)} {goals[home]}–{goals[away]} {esc(away)}</h1>"
                + fields((("Competition", "Northern Premier Division"),
                          ("Date", f"{day:%A} {day.day} {day:%B %Y}, 15:00"),
                          ("Venue", ground), ("Attendance", f"{rng.randint(900, 9800):,}"),
                          ("Referee", f"{rng.choice(FIRST)} {rng.choice(LAST)}")), "match-info")
                + f'<section class="goals"><h2>Goals</h2><ul>{goal_list}</ul></section>'
                + "<section class=\"stats\"><h2>Match stats</h2>"
                + table(("", home, away), stats) + "</section>"
                + f'<section class="lineups"><h2>Line-ups</h2>{lineups}</section>'
                + f'<p class="note">{esc(SCORES_NOTE)}</p>'
            )
            sidebar = (
                "<h2>Northern Premier Division</h2>"
                + links([("Table", "/npd/table"), ("Fixtures", "/npd/fixtures"),
                         ("Top scorers", "/npd/scorers")])
            )
            url = f"https://{SCORES.domain}/match/{day:%Y%m%d}/{slug(home)}-v-{slug(away)}"
            pages.append((url, render(
                SCORES, title=f"{home} v {away}", main=main, sidebar=sidebar,
                breadcrumbs=[("Results", "/results"), ("Northern Premier Division", "/npd")],
                related=[("Highlights", "/video"), ("Player ratings", "/ratings")],
            )))
        day += timedelta(days=7)
    return pages


# --------------------------------------------------------------------------- product variants

VARIANT_COLOURS = ("Moss", "Slate", "Ember", "Fjord", "Sand", "Heather", "Charcoal", "Ochre",
                   "Glacier", "Pine")


def product_variants() -> list[Page]:
    """One jacket in ten colours, a page each: the same name, description and care notes; the
    price, SKU and stock line inside the product's own text are all that differ."""
    rng = random.Random("hardneg:product_variants")
    description = (
        "A three-layer waterproof shell for long days on the fells. The fabric is windproof and "
        "breathable, the hood adjusts in three places and fits over a helmet, and the pit zips "
        "let heat out on the climb. Taped seams, a two-way front zip with storm flap and two "
        "chest pockets that clear a rucksack hip belt. Packs into its own pocket."
    )
    pages = []
    for colour in VARIANT_COLOURS:
        price = f"£{rng.randint(139, 189)}.{rng.choice(('00', '50', '99'))}"
        sku = f"FH-{rng.randint(10000, 99999)}"
        stock = rng.choice(("In stock", "Only 2 left", "In stock", "Back in 3 weeks"))
        main = (
            '<article class="product"><h1>Ridgeway Storm Jacket</h1>'
            f'<p class="buy"><span class="price">{price}</span> <span class="sku">SKU {sku}'
            f'</span> <span class="stock">{stock}</span> Colour: {colour}</p>'
            f"<p>{esc(description)}</p>"
            "<p>Care: wash at 30 degrees, reproof after every few washes.</p></article>"
        )
        url = f"https://{SHOP.domain}/p/ridgeway-storm-jacket-{slug(colour)}"
        pages.append((url, render(SHOP, title="Ridgeway Storm Jacket", main=main,
                                  breadcrumbs=[("Clothing", "/clothing"),
                                               ("Jackets", "/clothing/jackets")])))
    return pages


def state_scripts() -> list[Page]:
    """:func:`next_data`'s products in other frameworks' shells: the product only in a state
    assigned in a script (``window.__INITIAL_STATE__ = {...}``, Nuxt 2's
    ``window.__NUXT__=(function(a,b){...}("..."))``, ``window.__APOLLO_STATE__``)."""
    pages = []
    for number, (name, category, price, material, size, description) in enumerate(PRODUCTS):
        handle = slug(name)
        product = {"id": f"LH-{10400 + number * 37}", "name": name, "category": category,
                   "price": price, "material": material, "dimensions": size,
                   "description": description}
        kind = number % 3
        if kind == 0:
            state = {"route": {"path": f"/products/{handle}"}, "product": product}
            script = f"window.__INITIAL_STATE__ = {json.dumps(state, ensure_ascii=False)};"
        elif kind == 1:
            values = json.dumps([name, category, price, material, size, description],
                                ensure_ascii=False)[1:-1]
            script = ("window.__NUXT__=(function(a,b,c,d,e,f){return {layout:\"default\","
                      "data:[{product:{name:a,category:b,price:c,material:d,dimensions:e,"
                      f"description:f}}}}]}}}}({values}));")
        else:
            state = {f"Product:{product['id']}": product, "ROOT_QUERY": {"product": {
                "__ref": f"Product:{product['id']}"}}}
            script = f"window.__APOLLO_STATE__={json.dumps(state, ensure_ascii=False)};"
        script = script.replace("</", "<\\/")
        pages.append((f"https://{APP_SHOP.domain}/p/{handle}", render(
            APP_SHOP, title="", main=SHELL, head_title=f"{APP_SHOP.name} – {APP_SHOP.tagline}",
            body_extra=f'<script>{script}</script><script src="/static/app.js" defer></script>',
        )))
    return pages


DASHBOARD = Site(
    name="Harbour Data",
    domain="data.harbour.example",
    tagline="Open figures for the harbour district",
    nav=("Dashboards", "Reports", "Downloads", "About the data"),
)

DASHBOARD_NOTICE = (
    "This page is updated every Monday from the council's open data feeds. Figures for the "
    "latest week are provisional and may be revised when late returns arrive. Use the "
    "download button to get the full table as CSV, or read our notes on methods and sources."
)

#: (subject, its figures by quarter)
CHARTS = (
    ("Ferry passengers", (41200, 38950, 52310, 47880)),
    ("Cruise calls", (12, 19, 31, 8)),
    ("Cargo tonnage", (182000, 176500, 190250, 171900)),
    ("Marina berths let", (310, 355, 402, 298)),
)
NOSCRIPTED = (
    "The north quay reopened to foot passengers after the resurfacing works, with the night "
    "ferry moved to berth four until the pontoon is replaced.",
    "Harbour dues rise by three percent from April for leisure craft over twelve metres, while "
    "fishing vessels registered in the district keep the current rates.",
    "The tide gauge at the old lighthouse has been recalibrated, so readings from before June "
    "sit about four centimetres higher than the new series.",
    "Dredging of the inner channel starts in September and will close the slipway on weekday "
    "mornings for six weeks; the sailing club moves its dinghy school to the beach.",
)
TEMPLATED = (
    ("Water quality, east beach", "Excellent in every sample this season; bathing advised."),
    ("Water quality, west beach", "Good; one sample in July above the guide value."),
    ("Water quality, inner harbour", "Sufficient; not a designated bathing water."),
    ("Water quality, river mouth", "Poor after heavy rain; check the daily forecast first."),
)


def unrendered_shells() -> list[Page]:
    """A dashboard's pages under one title and notice, each one's own content where a browser
    shows it but an HTML reader may not look: a chart's labels and values in ``<svg>``, a
    notice in ``<noscript>``, a reading in a ``<template>`` its script renders."""
    shell = (f'<div id="app" class="dashboard"><h1>Dashboard</h1>'
             f'<p class="notice">{esc(DASHBOARD_NOTICE)}</p>')
    pages = []
    for number, (subject, values) in enumerate(CHARTS, 1):
        bars = "".join(f'<rect x="{i * 60}" y="{200 - value % 190}" width="40" height="'
                       f'{value % 190}"/><text x="{i * 60}" y="215">Q{i + 1}: {value:,}</text>'
                       for i, value in enumerate(values))
        chart = (f'<svg viewBox="0 0 240 220" role="img"><title>{esc(subject)} by quarter'
                 f'</title>{bars}</svg>')
        pages.append((f"https://{DASHBOARD.domain}/charts/{number}",
                      render(DASHBOARD, title="Dashboard", main=f"{shell}{chart}</div>")))
    for number, text in enumerate(NOSCRIPTED, 1):
        main = f'{shell}<div id="news-root"></div><noscript><p>{esc(text)}</p></noscript></div>'
        pages.append((f"https://{DASHBOARD.domain}/notices/{number}",
                      render(DASHBOARD, title="Dashboard", main=main)))
    for number, (place, reading) in enumerate(TEMPLATED, 1):
        main = (f'{shell}<div id="reading"></div><template id="reading-card"><article>'
                f"<h2>{esc(place)}</h2><p>{esc(reading)}</p></article></template></div>")
        pages.append((f"https://{DASHBOARD.domain}/readings/{number}",
                      render(DASHBOARD, title="Dashboard", main=main)))
    return pages
