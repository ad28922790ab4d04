"""Pages of one site that choose what they show by their URL, the choice named in their text
only in words of its own, or not at all: a cloud provider's status page per region
(``?region=fra1``: "Showing status for the Frankfurt region", the picker's form a search
too), a weather service's "no warnings" page per region (``?region=wl``: "There are currently
no weather warnings in force for Wales"), and a shop's terms of sale per country
(``/en-ie/terms``: another seller, law and authority in two sentences of a long text; each
page declares its own URL canonical)."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

STATUS = Site(
    name="Nimbus Cloud",
    domain="status.nimbus-cloud.example",
    tagline="Cloud servers, storage and databases",
    nav=("Products", "Pricing", "Docs", "Status", "Support"),
)
#: (code, name) of the provider's regions
REGIONS = (("fra1", "Frankfurt"), ("ams3", "Amsterdam"), ("lon1", "London"),
           ("nyc3", "New York"), ("sfo2", "San Francisco"), ("tor1", "Toronto"),
           ("sgp1", "Singapore"), ("syd1", "Sydney"), ("blr1", "Bangalore"),
           ("par1", "Paris"))
COMPONENTS = ("Compute", "Object Storage", "Managed Databases", "Load Balancers", "DNS",
              "Control Panel", "API")


def status_regions() -> list[Page]:
    """A status page per region under one title: every component operational everywhere, the
    region named on one line and chosen in a picker whose form has a search box."""
    pages = []
    for code, name in REGIONS:
        options = "".join(f'<option value="{c}"{" selected" if c == code else ""}>{esc(n)}'
                          "</option>" for c, n in REGIONS)
        components = "".join(f'<li class="component"><span class="name">{esc(c)}</span> '
                             '<span class="status ok">Operational</span></li>'
                             for c in COMPONENTS)
        main = ('<h1>Nimbus Cloud Status</h1><form class="region-picker" action="/status">'
                '<label>Find your region <input type="text" name="find"></label>'
                f'<select name="region">{options}</select><button>Go</button></form>'
                f'<p class="region-name">Showing status for the {esc(name)} region</p>'
                '<div class="page-status ok"><h2>All Systems Operational</h2></div>'
                f'<section class="components"><ul>{components}</ul></section>'
                "<p>Subscribe to updates to be told by email or text message when we create, "
                "update or resolve an incident. Past incidents and scheduled maintenance are "
                "listed in the history for 90 days.</p>")
        pages.append((f"https://{STATUS.domain}/status?region={code}",
                      render(STATUS, title="Nimbus Cloud Status", main=main)))
    return pages


WEATHER = Site(
    name="National Weather Service UK",
    domain="www.weather-service.example.uk",
    tagline="Forecasts and warnings",
    nav=("Forecasts", "Warnings", "Maps", "Climate", "Learn"),
)
#: (code, name) of the regions warnings are issued for
AREAS = (("ni", "Northern Ireland"), ("wl", "Wales"), ("sc", "Scotland"), ("ne", "North East"),
         ("nw", "North West"), ("yh", "Yorkshire and Humber"), ("em", "East Midlands"),
         ("wm", "West Midlands"), ("sw", "South West"), ("se", "South East"))


def warning_regions() -> list[Page]:
    """A region's warnings page under one title while no warning is in force: the region in the
    page's subheading and its first sentence only."""
    pages = []
    for code, name in AREAS:
        main = ("<h1>UK weather warnings</h1>"
                f"<h2>Warnings for {esc(name)}</h2><p>There are currently no weather warnings "
                f"in force for {esc(name)}. Warnings are issued up to seven days ahead when "
                "severe weather could cause danger to life or widespread disruption. Check back "
                "regularly, or sign up to receive email alerts whenever a warning is issued for "
                "your area.</p><p>Yellow warnings ask you to be aware of the weather, amber "
                "warnings to be prepared, and red warnings to take action now to keep yourself "
                "and others safe.</p>")
        pages.append((f"https://{WEATHER.domain}/warnings?region={code}",
                      render(WEATHER, title="UK weather warnings", main=main)))
    return pages


SHOP = Site(
    name="Lumen Home",
    domain="lumenhome.example",
    tagline="Lamps and lighting, delivered",
    nav=("Ceiling", "Table lamps", "Floor lamps", "Outdoor", "Bulbs"),
)
#: (locale, the seller, the law, the courts, the consumer authority) of each country's terms
SELLERS = (
    ("en-gb", "Lumen Home Ltd", "England and Wales", "the courts of England and Wales",
     "the Competition and Markets Authority"),
    ("en-ie", "Lumen Home Ireland Ltd", "Ireland", "the Irish courts",
     "the Competition and Consumer Protection Commission"),
    ("en-au", "Lumen Home Pty Ltd", "New South Wales", "the courts of New South Wales",
     "the Australian Competition and Consumer Commission"),
    ("en-nz", "Lumen Home NZ Ltd", "New Zealand", "the courts of New Zealand",
     "the Commerce Commission"),
    ("en-sg", "Lumen Home Singapore Pte Ltd", "Singapore", "the courts of Singapore",
     "the Competition and Consumer Commission of Singapore"),
    ("en-ca", "Lumen Home Canada Inc", "Ontario", "the courts of Ontario",
     "the Competition Bureau"),
    ("en-us", "Lumen Home USA Inc", "the State of New York", "the courts of New York",
     "the Federal Trade Commission"),
    ("en-za", "Lumen Home South Africa (Pty) Ltd", "South Africa", "the South African courts",
     "the National Consumer Commission"),
    ("en-in", "Lumen Home India Pvt Ltd", "India", "the courts of Mumbai",
     "the Central Consumer Protection Authority"),
    ("en-hk", "Lumen Home Hong Kong Ltd", "Hong Kong", "the courts of Hong Kong",
     "the Consumer Council"),
)
TERMS = (
    "These terms apply to every order you place on this website. Please read them carefully "
    "before you order: by placing an order you agree to them. We may change these terms from "
    "time to time, and the terms in force when you place your order apply to it.",
    "Your order is an offer to buy the products in your basket. We accept it when we email you "
    "to say the products have been dispatched; until then we may decline it, for example when "
    "a product is out of stock or its price was shown wrongly.",
    "We deliver to the address you give us, on the date we agree with you. If delivery is "
    "late, you may cancel the order and we will refund what you paid. Products are your "
    "responsibility from the time they are delivered.",
    "You may cancel your order within 14 days of delivery without giving a reason. Return the "
    "products unused and in their packaging; we refund the price and the standard delivery "
    "charge within 14 days of receiving them.",
    "If a product is faulty, tell us as soon as you can. We will repair or replace it, or "
    "refund you, as the law requires. Nothing in these terms limits your rights as a consumer.",
)


def terms_per_country() -> list[Page]:
    """A shop's terms of sale per country under one title and long text, each naming its own
    seller, law, courts and consumer authority in two sentences, the country only in the path;
    each page declares its own URL canonical, as sites do."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in TERMS)
    pages = []
    for locale, seller, law, courts, authority in SELLERS:
        main = ("<h1>Terms and Conditions of Sale</h1>"
                f"<p>This website is operated by {esc(seller)}. In these terms, \u201cwe\u201d "
                f"and \u201cus\u201d mean {esc(seller)}.</p>{text}"
                f"<p>These terms are governed by the law of {esc(law)}, and disputes go to "
                f"{esc(courts)}. You can also contact {esc(authority)}.</p>")
        url = f"https://{SHOP.domain}/{locale}/terms"
        head = f'<link rel="canonical" href="{url}">'
        pages.append((url, render(SHOP, title="Terms and Conditions of Sale", main=main,
                                  head_extra=head)))
    return pages


FURNITURE = Site(
    name="Northwood Furniture",
    domain="northwoodfurniture.example",
    tagline="Solid wood furniture, made to last",
    nav=("Living room", "Dining", "Bedroom", "Office", "Outdoor"),
)
#: A furniture maker's terms of sale, the same in every country but for its seller and law
FURNITURE_TERMS = (
    "Every piece we sell is made to order in our workshop. These terms cover your order, its "
    "delivery and what happens if something goes wrong, and they form the contract between us.",
    "When you order, we take a deposit of half the price and the balance before delivery. We "
    "tell you the week your piece will be ready, usually six to ten weeks after your order.",
    "Our own team delivers and places your furniture in the room of your choice. Please check "
    "that it fits through your doors and stairs: we cannot take back a piece made to measure.",
    "Wood is a natural material and its grain and colour vary from the photographs. Small "
    "marks and knots are part of its character and are not a fault.",
    "If a piece is damaged in delivery or develops a fault within five years, we repair or "
    "replace it. Nothing in these terms affects your rights as a consumer.",
)


def terms_without_canonical() -> list[Page]:
    """A furniture maker's terms of sale per country under one title and text, each naming its
    own seller, law, courts and consumer authority in two sentences, the country only in the
    path; no canonical URL declared."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in FURNITURE_TERMS)
    pages = []
    for locale, seller, law, courts, authority in SELLERS:
        seller = seller.replace("Lumen Home", "Northwood Furniture")
        main = ("<h1>Terms of Sale</h1>"
                f"<p>These terms are between you and {esc(seller)}, which runs this website.</p>"
                f"{text}<p>The law of {esc(law)} governs these terms, and {esc(courts)} hear any "
                f"dispute. You may also complain to {esc(authority)}.</p>")
        pages.append((f"https://{FURNITURE.domain}/{locale}/terms-of-sale",
                      render(FURNITURE, title="Terms of Sale", main=main)))
    return pages


VERSAND = Site(
    name="Gartenwelt",
    domain="www.gartenwelt.example",
    tagline="Alles für Garten und Balkon",
    nav=("Pflanzen", "Werkzeug", "Möbel", "Grills", "Angebote"),
    lang="de",
)
#: (country code, country, delivery time, carrier, customs line) of each delivery country
COUNTRIES = (
    ("de-de", "Deutschland", "zwei bis drei Werktage", "DHL", ""),
    ("de-at", "Österreich", "drei bis fünf Werktage", "der Österreichischen Post", ""),
    ("de-ch", "die Schweiz", "fünf bis sieben Werktage", "der Schweizerischen Post",
     "Zoll und Einfuhrumsatzsteuer zahlen Sie bei der Zustellung."),
    ("de-lu", "Luxemburg", "drei bis vier Werktage", "DPD", ""),
    ("de-be", "Belgien", "drei bis vier Werktage", "DPD", ""),
    ("de-li", "Liechtenstein", "fünf bis acht Werktage", "der Liechtensteinischen Post",
     "Zoll und Einfuhrumsatzsteuer zahlen Sie bei der Zustellung."),
    ("de-it", "Südtirol", "vier bis sechs Werktage", "GLS", ""),
    ("de-nl", "die Niederlande", "drei bis vier Werktage", "PostNL", ""),
    ("de-dk", "Dänemark", "vier bis fünf Werktage", "GLS", ""),
    ("de-pl", "Polen", "vier bis sechs Werktage", "DPD", ""),
)


def delivery_per_country_de() -> list[Page]:
    """A German garden shop's delivery page per country at ``?lang=de-at``, one title and
    text, the country, delivery time and carrier in one sentence (a customs line for two);
    no canonical URL."""
    pages = []
    for code, country, time, carrier, customs in COUNTRIES:
        main = ("<h1>Versand und Lieferung</h1>"
                "<p>Wir liefern Pflanzen, Werkzeug und Gartenmöbel sorgfältig verpackt. Pflanzen "
                "verschicken wir nur von Montag bis Mittwoch, damit sie nicht über das "
                "Wochenende im Lager des Paketdienstes liegen.</p>"
                f"<p>Nach {esc(country)} liefern wir in {esc(time)} mit {esc(carrier)}. "
                f"{esc(customs)}</p>"
                "<p>Sperrige Artikel wie Gartenmöbel und Grills liefert eine Spedition bis an "
                "die Bordsteinkante. Sie vereinbart den Liefertermin telefonisch mit Ihnen.</p>")
        pages.append((f"https://{VERSAND.domain}/service/versand?lang={code}",
                      render(VERSAND, title="Versand und Lieferung", main=main)))
    return pages


LIBRARY = Site(
    name="Millbrook Libraries",
    domain="libraries.millbrook.example",
    tagline="Borrow, learn and discover",
    nav=("Catalogue", "Events", "eBooks", "Visit us", "Join"),
)
#: (query value or "" for the default, branch name) of each branch's opening hours page
BRANCHES = (("", "Central Library"), ("ashford", "Ashford Library"),
            ("brookside", "Brookside Library"), ("eastgate", "Eastgate Library"),
            ("fenwick", "Fenwick Library"), ("hollins", "Hollins Park Library"),
            ("kingsmead", "Kingsmead Library"), ("northfield", "Northfield Library"),
            ("riverside", "Riverside Library"), ("westwood", "Westwood Library"))


def branch_hours() -> list[Page]:
    """A library service's opening hours page per branch, the main library's at the page's own
    URL (``/visit/hours``) and every other's at ``?branch=ashford`` ...: one title, table and
    text, the branch named in one sentence."""
    table = ("<table><tr><th>Monday to Friday</th><td>9:00 to 19:00</td></tr>"
             "<tr><th>Saturday</th><td>9:00 to 17:00</td></tr>"
             "<tr><th>Sunday</th><td>Closed</td></tr></table>")
    pages = []
    for value, branch in BRANCHES:
        main = ("<h1>Opening hours</h1>"
                f"<p>Showing the opening hours of {esc(branch)}.</p>{table}"
                "<p>Every branch is open on bank holiday weekends on the Saturday only. Return "
                "books at any branch, at any time, through the book drop by the door.</p>")
        query = f"?branch={value}" if value else ""
        pages.append((f"https://{LIBRARY.domain}/visit/hours{query}",
                      render(LIBRARY, title="Opening hours", main=main)))
    return pages


#: Each country's site of the shop of :func:`terms_per_country`, by locale
COUNTRY_SITES = {"en-gb": "co.uk", "en-ie": "ie", "en-au": "com.au", "en-nz": "co.nz",
                 "en-sg": "com.sg", "en-ca": "ca", "en-us": "com", "en-za": "co.za",
                 "en-in": "co.in", "en-hk": "com.hk"}


def terms_per_country_sites() -> list[Page]:
    """The same terms per country, each on the shop's own site for that country
    (``lumenhome.co.uk/help/terms``, ``lumenhome.com.au/help/terms`` ...), no canonical URL."""
    return [(f"https://lumenhome.{COUNTRY_SITES[url.split('/')[3]]}/help/terms",
             page.replace(f'<link rel="canonical" href="{url}">', ""))
            for url, page in terms_per_country()]
