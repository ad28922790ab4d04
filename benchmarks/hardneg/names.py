"""Pages that differ by their name and little else: an API reference's methods (another name,
another word in one sentence, the same notes) and one job ad per city (the same role, pay and
company text). What tells them apart is what each page calls itself, and a word or two."""

from __future__ import annotations

from .chrome import Site, esc, render, slug

Page = tuple[str, str]

DOCS = Site(
    name="Tessera Docs",
    domain="docs.tessera.dev",
    tagline="Reference for the Tessera standard library",
    nav=("Tutorial", "Library", "Language", "How-to", "FAQ", "Changelog", "Search"),
)

#: (method, what it removes or finds, where) for a family of string methods
METHODS = (
    ("strip_start", "leading"), ("strip_end", "trailing"), ("strip", "leading and trailing"),
    ("trim_start", "leading"), ("trim_end", "trailing"), ("find", "first"),
    ("rfind", "last"), ("index", "first"), ("rindex", "last"), ("count", "every"),
    ("split", "every"), ("rsplit", "every, from the right,"),
)

NOTES = (
    "The chars argument is a string specifying the set of characters to be considered. If "
    "omitted or None, the chars argument defaults to whitespace. The chars argument is not a "
    "prefix or suffix; rather, all combinations of its values are used. The method works on "
    "code points, not on grapheme clusters, so a combining mark counts as a character of its "
    "own. It never changes the string it is called on: strings are immutable, and every method "
    "returns a new one."
)


def reference() -> list[Page]:
    """An API reference: one page per string method, in one template; the method's name and one
    word of its first sentence are all that differ, the notes are shared."""
    pages = []
    for name, where in METHODS:
        signature = f"Text.{name}(chars=None, /)"
        main = (
            f'<article class="reference"><h1>Text.{esc(name)}</h1>'
            f"<dl><dt><code>{esc(signature)}</code></dt><dd>"
            f"<p>Return a copy of the text with the {esc(where)} matching characters "
            f"handled.</p><p>{esc(NOTES)}</p></dd></dl></article>"
        )
        url = f"https://{DOCS.domain}/library/text/{slug(name)}"
        crumbs = [("Library", "/library"), ("Text", "/library/text")]
        pages.append((url, render(DOCS, title=f"Text.{name}", main=main, breadcrumbs=crumbs)))
    return pages


BOARD = Site(
    name="Harbourline Careers",
    domain="careers.harbourline.example",
    tagline="Logistics software, built in Europe",
    nav=("Teams", "Locations", "Benefits", "Students", "Open roles", "Life at Harbourline"),
)

CITIES = ("Berlin", "Lisbon", "Warsaw", "Dublin", "Madrid", "Milan", "Prague", "Vienna",
          "Tallinn", "Porto", "Krakow", "Utrecht")

COMPANY = (
    "Harbourline is a logistics technology company that helps more than three thousand "
    "retailers move goods from warehouses to their customers' doors. Our platform plans "
    "routes, balances stock between depots and gives shoppers accurate delivery windows. You "
    "will design and run the services behind it, review code with your team, and share the "
    "on-call rota one week in eight. We offer flexible hours, thirty days of paid holiday, a "
    "learning budget, a company pension and the equipment you choose. After you apply, our "
    "recruiting team answers within one week; the process is a short call, a practical task "
    "of about two hours and a conversation with the team you would join."
)


def job_locations() -> list[Page]:
    """One role advertised in twelve cities, an ad each: the same title, pay and company text;
    the city in the ad's title and in two of its lines is all that differs."""
    pages = []
    for city in CITIES:
        main = (
            '<article class="job"><h1>Senior Backend Engineer</h1>'
            f'<p class="meta">{esc(city)} · Full time · €70,000 – €85,000 a year</p>'
            f"<p>We are looking for a senior backend engineer to join our team in "
            f"{esc(city)}.</p><p>{esc(COMPANY)}</p></article>"
        )
        url = f"https://{BOARD.domain}/roles/senior-backend-engineer-{slug(city)}"
        pages.append((url, render(BOARD, title=f"Senior Backend Engineer – {city}", main=main,
                                  breadcrumbs=[("Open roles", "/roles")])))
    return pages


#: A long ad's shared sections (over 300 words with the company text: a long main text)
ROLE = (
    "In this role you will own services that plan delivery routes for thousands of vans every "
    "morning, and you will make them faster, cheaper to run and easier to change. You will work "
    "in a team of six engineers, a product manager and a designer, and you will have a real say "
    "in what the team builds next. Most of our services are written in Go and Python, run on "
    "Kubernetes and talk to each other through queues; we store our data in PostgreSQL and keep "
    "our analytics in a column store.",
    "What you will do: design, build and operate services that handle millions of events a day; "
    "break large problems into small, safe changes and ship them several times a week; review "
    "your colleagues' code and help them grow; take part in planning and in the decisions that "
    "shape our architecture; improve our monitoring, alerts and runbooks so that nights on call "
    "stay quiet.",
    "What we are looking for: five or more years of building backend systems in production; "
    "good knowledge of at least one of Go, Python, Java or Kotlin; experience with relational "
    "databases, message queues and cloud infrastructure; care for testing, observability and "
    "clear written communication. Experience in logistics, routing or optimisation is a plus "
    "but not required.",
)


def job_ads_long() -> list[Page]:
    """One role advertised in twelve cities with the whole ad (over 300 words, the same in every
    city): the city in the title and in two of the ad's lines is all that differs."""
    pages = []
    for city in CITIES:
        sections = "".join(f"<p>{esc(text)}</p>" for text in ROLE)
        main = (
            '<article class="job"><h1>Senior Platform Engineer</h1>'
            f'<p class="meta">{esc(city)} · Full time · Hybrid</p>'
            f"<p>We are hiring a senior platform engineer for our office in {esc(city)}.</p>"
            f"{sections}<p>{esc(COMPANY)}</p></article>"
        )
        url = f"https://{BOARD.domain}/roles/senior-platform-engineer-{slug(city)}"
        pages.append((url, render(BOARD, title=f"Senior Platform Engineer, {city}", main=main,
                                  breadcrumbs=[("Open roles", "/roles")])))
    return pages


STORE = Site(
    name="Oakhollow Home",
    domain="shop.oakhollow.example",
    tagline="Furniture made to last",
    nav=("Living room", "Bedroom", "Dining", "Office", "Outdoor", "Lighting", "Sale"),
)

FINISHES = ("Natural Oak", "Smoked Oak", "Walnut", "White Ash", "Black Stain", "Cherry",
            "Weathered Grey", "Honey Pine", "Teak", "Maple")

SOFA = (
    "The Linden three-seat sofa is built around a solid hardwood frame, joined with dowels and "
    "corner blocks rather than staples, so it stays square and quiet for decades. Its seat "
    "cushions have a pocket-sprung core wrapped in high-resilience foam and a layer of feather "
    "and fibre, firm enough to sit up straight and soft enough to fall asleep on. The back "
    "cushions are filled with recycled fibre in separate channels that do not slump, and every "
    "cover zips off for cleaning.",
    "The legs and the visible base are turned from the timber of your choice and finished by "
    "hand with a hard-wax oil that can be refreshed at home. The upholstery is a tightly woven "
    "blend of recycled polyester and linen, tested to forty thousand rubs and treated against "
    "stains without fluorinated chemicals. Each sofa is made to order in our workshop in the "
    "north of England and takes six to eight weeks to build and deliver.",
    "Dimensions: width two hundred and ten centimetres, depth ninety-five centimetres, height "
    "eighty-two centimetres, seat height forty-six centimetres. Delivery to your room of choice "
    "is included, and our two-person team removes the packaging. Every frame carries a "
    "fifteen-year guarantee and every cushion a five-year guarantee. If the sofa does not suit "
    "your home, you can return it within one hundred days for a full refund.",
    "Care: vacuum the cushions and the frame once a week with a soft brush, turn and plump the "
    "seat cushions every few days so that they wear evenly, and keep the sofa out of strong "
    "sunlight and at least half a metre from radiators. Blot spills at once with a clean, damp "
    "cloth and never rub them. The covers can be washed at thirty degrees on a gentle cycle and "
    "should be put back on while still slightly damp, so that they keep their shape. Once a year, "
    "wipe the legs with a little hard-wax oil on a lint-free cloth.",
)


def product_finishes_long() -> list[Page]:
    """One sofa in ten wood finishes, a page each with the whole description (over 300 words,
    the same for every finish): the finish in the title and on the product's options line is
    all that differs."""
    pages = []
    for finish in FINISHES:
        description = "".join(f"<p>{esc(text)}</p>" for text in SOFA)
        main = (
            '<article class="product"><h1>Linden Three-Seat Sofa</h1>'
            f'<p class="options">Leg finish: {esc(finish)} · Fabric: Oatmeal</p>'
            f"{description}</article>"
        )
        url = f"https://{STORE.domain}/sofas/linden-three-seat-{slug(finish)}"
        pages.append((url, render(STORE, title=f"Linden Three-Seat Sofa in {finish}",
                                  main=main, breadcrumbs=[("Living room", "/living-room"),
                                                          ("Sofas", "/sofas")])))
    return pages
