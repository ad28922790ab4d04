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
