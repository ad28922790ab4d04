"""Entity pages of structured sites (books, films, restaurants, universities): one template per
site, an infobox of short fields and a blurb of a sentence or two per page."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .chrome import Site, esc, fields, links, render, slug, table

Page = tuple[str, str]


def _entity_page(site: Site, url: str, title: str, infobox: str, blurb: str, shared: str,
                 *, crumbs: Sequence[tuple[str, str]], sidebar: str,
                 others: Sequence[str], prefix: str) -> Page:
    main = (
        f'<article class="entity"><h1>{esc(title)}</h1>{infobox}'
        f'<section class="summary"><p>{esc(blurb)}</p></section>{shared}</article>'
    )
    related = [(other, f"/{prefix}/{slug(other)}") for other in others]
    return url, render(site, title=title, main=main, breadcrumbs=crumbs, sidebar=sidebar,
                       related=related)


def _others(names: Sequence[str], index: int, rng: random.Random, count: int = 4) -> list[str]:
    return rng.sample([n for i, n in enumerate(names) if i != index], count)


# --------------------------------------------------------------------------- books

BOOK_SITE = Site(
    name="Shelfmark",
    domain="www.shelfmark.org",
    tagline="Track what you read, find what to read next",
    nav=("Browse", "Genres", "New releases", "Lists", "Challenges", "Community", "Giveaways"),
    related_heading="Readers also enjoyed",
)

# title, author, genre, blurb
BOOKS = (
    ("The Salt Orchard", "Maren Holloway", "Literary fiction",
     "Three sisters return to their late mother's failing apple farm on the Kent coast and "
     "find letters that rewrite the family story."),
    ("Ninefold Winter", "Tobias Achterberg", "Fantasy",
     "A disgraced cartographer must map a frozen kingdom whose borders shift every night."),
    ("A Quiet Arithmetic", "Lena Okonkwo", "Mystery",
     "An accountant at a Lagos bank notices a rounding error that leads to a missing colleague."),
    ("The Glass Cartographer", "Isidore Vance", "Historical fiction",
     "In 1720s Venice, an apprentice glassblower is drawn into a plot to steal the secret of "
     "mirror making."),
    ("Small Engines", "Priya Raman", "Short stories",
     "Eleven stories about mechanics, taxi drivers and a retired pilot, set in and around "
     "Chennai."),
    ("Tidewrack", "Callum Geddes", "Thriller",
     "A marine biologist on a remote Hebridean island finds a body tangled in her research nets."),
    ("The Long Field", "Agnes Whitcombe", "Memoir",
     "A farmer's daughter looks back on forty years of hedges, harvests and floods in the Fens."),
    ("Orbital Mechanics for Poets", "Dr Samuel Reyes", "Popular science",
     "How rockets get to the Moon, explained with hardly any equations and plenty of history."),
    ("Under the Linden Tree", "Katarzyna Wolska", "Romance",
     "Two rival bakers in a Kraków square fall for each other during a summer of festivals."),
    ("Ash and Ember", "J. R. Thornfield", "Young adult",
     "A teenage firefighter in a drought-struck valley uncovers who is starting the blazes."),
    ("The Bookbinder's Cat", "Harriet Pell", "Children's",
     "A curious cat hides inside a library book and travels to every reader who borrows it."),
    ("Cold Ledger", "Viktor Almqvist", "Crime",
     "A Stockholm fraud detective is asked to investigate her own former partner."),
    ("Kitchen Botany", "Rosa Delgado", "Cookery",
     "Recipes arranged by plant family, from brassicas to alliums, with notes on growing them."),
    ("The Eleventh Hour Society", "Nathaniel Brooks", "Science fiction",
     "Retired time travellers meet every Thursday to argue about which history is the real one."),
    ("Paths Through Stone", "Eilidh MacRae", "Travel",
     "A walk along the old drove roads of the Scottish Highlands, from Skye to Falkirk."),
)
PUBLISHERS = ("Harrow & Finch", "Lanternfish Press", "Meridian Books", "Quillstone",
              "Blackthorn House", "Kestrel Editions")
BOOK_SHARED = (
    '<div class="actions"><button>Want to read</button><button>Currently reading</button>'
    "<button>Rate this book</button></div>"
    '<section class="community"><h2>Community reviews</h2><p>Reviews are written by Shelfmark '
    "members and reflect their own opinions. We remove reviews that break our community "
    "guidelines, including spoilers without a warning, personal attacks and promotional "
    "content. Sign in to write a review or to follow readers whose taste you share.</p></section>"
    '<section class="friends"><h2>Friends and following</h2><p>Create a free account to '
    "discover what your friends think of this book, keep track of what you want to read and "
    "get recommendations based on the books you have loved.</p></section>"
)


def entity_books() -> list[Page]:
    rng = random.Random("hardneg:entity_books")
    titles = [b[0] for b in BOOKS]
    pages = []
    for index, (title, author, genre, blurb) in enumerate(BOOKS):
        year = rng.randint(1998, 2024)
        isbn = (f"978-{rng.randint(0, 1)}-{rng.randint(100, 999)}-"
                f"{rng.randint(10000, 99999)}-{rng.randint(0, 9)}")
        infobox = fields((
            ("Author", author), ("Genre", genre), ("Publisher", rng.choice(PUBLISHERS)),
            ("First published", year), ("Pages", rng.randint(96, 640)), ("ISBN", isbn),
            ("Language", "English"),
            ("Average rating", f"{rng.uniform(3.2, 4.6):.2f} ({rng.randint(40, 25000):,} ratings)"),
        ))
        sidebar = ("<h2>Lists featuring this book</h2>"
                   + links([(f"Best {genre.lower()} of {year}", "/lists/1"),
                            ("Books to read on holiday", "/lists/2")]))
        pages.append(_entity_page(
            BOOK_SITE, f"https://{BOOK_SITE.domain}/book/{1000 + index * 13}-{slug(title)}",
            title, infobox, blurb, BOOK_SHARED, crumbs=[("Genres", "/genres"),
                                                        (genre, f"/genres/{slug(genre)}")],
            sidebar=sidebar, others=_others(titles, index, rng), prefix="book",
        ))
    return pages


# --------------------------------------------------------------------------- films

FILM_SITE = Site(
    name="ReelIndex",
    domain="www.reelindex.com",
    tagline="Films, casts and where to watch",
    nav=("Films", "TV", "Celebrities", "Awards", "Box office", "Trailers", "Watchlist"),
    related_heading="More like this",
)

# title, year, director, genre, plot
FILMS = (
    ("The Lighthouse Keeper's Daughter", 2019, "Aoife Brennan", "Drama",
     "A young woman takes over her father's lighthouse on the west coast of Ireland the winter "
     "the lamp is due to be automated."),
    ("Redline Protocol", 2022, "Marcus Hale", "Action",
     "A former rally driver is hired to smuggle a hacker across three borders in one night."),
    ("Paper Moons", 2017, "Sofia Lindgren", "Animation",
     "Two paper lanterns blown loose at a festival drift across a city looking for home."),
    ("The Accountant of Lisbon", 2015, "Rui Monteiro", "Thriller",
     "A mild bookkeeper discovers that his employer's shipping company launders money."),
    ("Dust Over Kansas", 2008, "Holly Petersen", "Western",
     "A widow defends her homestead against a cattle baron during the drought of 1886."),
    ("Signal Lost", 2021, "Kenji Morikawa", "Science fiction",
     "The crew of a research station on Europa stops hearing from Earth and must decide "
     "whether to wait."),
    ("Grandma's Wedding", 2018, "Natalie Oduya", "Comedy",
     "A family gathers in Lagos for their eighty-year-old grandmother's surprise second "
     "wedding."),
    ("The Last Tram", 2012, "Pavel Novák", "Romance",
     "Two strangers miss the last tram in Prague and walk across the city until dawn."),
    ("Deep Ice", 2020, "Ingrid Solberg", "Documentary",
     "Glaciologists drill three kilometres into the Antarctic ice to read a million years of "
     "climate."),
    ("Hollow Creek", 2016, "Dean Carter", "Horror",
     "Teenagers camping near an abandoned mining town hear a bell that rang a century ago."),
    ("The Chess Tailor", 2011, "Eitan Shapiro", "Biography",
     "The true story of a Warsaw tailor who became a chess champion in the 1930s."),
    ("Monsoon Wedding Band", 2023, "Arjun Mehta", "Musical",
     "A struggling brass band in Mumbai has one wedding season to pay off its debts."),
    ("Night Ferry", 2014, "Claire Dubois", "Mystery",
     "A passenger vanishes between Dover and Calais and nobody on board admits seeing him."),
    ("Ridge Runners", 2019, "Tomás Aguirre", "Sports",
     "An ageing mountain runner trains a teenage shepherd for the Pyrenees ultra."),
    ("The Quiet Year", 2010, "Hanna Kowalczyk", "Drama",
     "A deaf pianist rebuilds her life in a small Baltic town after losing her hearing."),
)
CAST_FIRST = ("Emma", "Idris", "Saoirse", "Daniel", "Lupita", "Oscar", "Mia", "Riz", "Florence",
              "Mahershala", "Tilda", "Javier", "Ana", "Dev", "Cate", "Song")
CAST_LAST = ("Marlow", "Okoro", "Fenwick", "Castellano", "Rhee", "Abbott", "Varga", "Halloran",
             "Nakamura", "Brandt", "Quaye", "Silvestri", "Lund", "Pereira", "Moss", "Dunmore")
FILM_SHARED = (
    '<section class="watch"><h2>Where to watch</h2><p>Streaming availability is updated daily '
    "and may differ in your country. Prices and availability are set by each service.</p>"
    "</section>"
    '<section class="contribute"><h2>Contribute to this page</h2><p>Spotted a mistake or '
    "missing information? Suggest an edit or add a trivia item, quote or filming location. All "
    "contributions are checked by our editors before they appear.</p></section>"
    '<section class="parents-guide"><h2>Parents guide</h2><p>Age ratings are set by national '
    "film classification boards. Add a content advisory to help other parents decide whether "
    "this title suits their family.</p></section>"
)


def entity_films() -> list[Page]:
    rng = random.Random("hardneg:entity_films")
    titles = [f[0] for f in FILMS]
    pages = []
    for index, (title, year, director, genre, plot) in enumerate(FILMS):
        stars = ", ".join(f"{rng.choice(CAST_FIRST)} {rng.choice(CAST_LAST)}" for _ in range(3))
        infobox = fields((
            ("Director", director), ("Stars", stars), ("Genre", genre),
            ("Release date",
             f"{rng.randint(1, 28)} {rng.choice(('March', 'June', 'October'))} {year}"),
            ("Runtime", f"{rng.randint(1, 2)}h {rng.randint(0, 59)}m"),
            ("Rating", rng.choice(("PG", "12A", "15", "18"))),
            ("Country", rng.choice(("United Kingdom", "Ireland", "France", "USA", "Germany"))),
            ("User score", f"{rng.uniform(5.1, 8.7):.1f}/10 ({rng.randint(300, 90000):,} votes)"),
        ))
        pages.append(_entity_page(
            FILM_SITE, f"https://{FILM_SITE.domain}/title/tt{7000000 + index * 4111}/",
            f"{title} ({year})", infobox, plot, FILM_SHARED,
            crumbs=[("Films", "/films"), (genre, f"/genre/{slug(genre)}")],
            sidebar="<h2>Top picks</h2><p>Sign in to get personalised recommendations.</p>",
            others=_others(titles, index, rng), prefix="title",
        ))
    return pages


# --------------------------------------------------------------------------- restaurants

FOOD_SITE = Site(
    name="TableFinder",
    domain="www.tablefinder.co.uk",
    tagline="Book the best restaurants in Manchester",
    nav=("Restaurants", "Offers", "Brunch", "Date night", "Gift cards", "For restaurants"),
    related_heading="Nearby restaurants",
)

# name, cuisine, price, neighbourhood, blurb
RESTAURANTS = (
    ("Osteria Lupa", "Italian", "££", "Ancoats",
     "Hand-rolled pasta and wood-fired small plates in a converted cotton mill."),
    ("Saffron Lane", "Indian", "££", "Rusholme",
     "Family-run kitchen known for its lamb nihari and Sunday thali."),
    ("The Copper Kettle", "British", "£", "Chorlton",
     "All-day café with big breakfasts, homemade cakes and a dog-friendly garden."),
    ("Kaiseki Hana", "Japanese", "££££", "Spinningfields",
     "An eight-course seasonal tasting menu served at a twelve-seat counter."),
    ("Bodega Verde", "Spanish", "££", "Northern Quarter",
     "Tapas, sherry and vermouth on tap, with a late-night kitchen at weekends."),
    ("Pho Saigon Street", "Vietnamese", "£", "Chinatown",
     "Bone broth simmered for eighteen hours and bánh mì stuffed to order."),
    ("Ember & Oak", "Steakhouse", "£££", "Deansgate",
     "Dry-aged beef cooked over charcoal, with a wine list of two hundred bottles."),
    ("Little Lagos", "Nigerian", "££", "Hulme",
     "Jollof, suya and pounded yam, with live Afrobeats on Friday nights."),
    ("Green Fig", "Vegan", "££", "Didsbury",
     "A plant-based menu that changes weekly, from cashew cheeses to mushroom pies."),
    ("Golden Dragon Dim Sum", "Chinese", "££", "Chinatown",
     "Trolley dim sum every weekend lunchtime and Cantonese roast meats all week."),
    ("Le Petit Zinc", "French", "£££", "Castlefield",
     "A bistro with a zinc bar, classic steak frites and a lunchtime prix fixe."),
    ("Mezze Garden", "Lebanese", "££", "Withington",
     "Charcoal-grilled kebabs, hot bread from the oven and a covered terrace."),
    ("Smoke Signal BBQ", "American", "££", "Ancoats",
     "Texas-style brisket smoked for fourteen hours over oak, sold until it runs out."),
    ("Seoul Kitchen", "Korean", "££", "Oxford Road",
     "Tabletop barbecue, bibimbap in hot stone bowls and a long list of soju cocktails."),
    ("The Fishwife", "Seafood", "£££", "Ancoats",
     "Day-boat fish from Fleetwood, oysters and a very good fish pie."),
)
STREETS = ("Oldham", "Tib", "Thomas", "Bridge", "King", "Portland", "Wilmslow")
HOURS = ("12:00 – 22:00", "12:00 – 23:00", "17:00 – 22:30", "08:00 – 16:00", "Closed",
         "11:30 – 21:30", "17:30 – 23:00")
FEATURES = ("Outdoor seating", "Wheelchair accessible", "Vegetarian options", "Private dining",
            "Dog friendly", "Takes bookings", "Gluten-free options", "Live music", "Late opening")
FOOD_SHARED = (
    '<div class="actions"><button>Reserve a table</button><button>Save</button>'
    "<button>Share</button></div>"
    '<section class="reviews-policy"><h2>Reviews</h2><p>Only diners who booked through '
    "TableFinder and honoured their reservation can leave a review, so every rating comes from "
    "a real visit. Restaurants cannot pay to remove or change reviews.</p></section>"
    '<p class="claim">Is this your restaurant? Claim this listing to update your menu, photos '
    "and opening hours.</p>"
    '<section class="good-to-know"><h2>Good to know</h2><p>The price range is for a starter, '
    "main course and dessert for one person, without drinks or service. Opening hours may "
    "change on bank holidays, so check with the restaurant before you visit. Tell the "
    "restaurant about any allergies when you book.</p></section>"
)


def entity_restaurants() -> list[Page]:
    rng = random.Random("hardneg:entity_restaurants")
    names = [r[0] for r in RESTAURANTS]
    pages = []
    for index, (name, cuisine, price, area, blurb) in enumerate(RESTAURANTS):
        street = (f"{rng.randint(1, 240)} {rng.choice(STREETS)} "
                  f"{rng.choice(('Street', 'Road', 'Lane'))}")
        infobox = fields((
            ("Cuisine", cuisine), ("Price range", price), ("Neighbourhood", area),
            ("Address", f"{street}, Manchester M{rng.randint(1, 20)} {rng.randint(1, 9)}"
                        f"{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"),
            ("Phone", f"0161 {rng.randint(200, 999)} {rng.randint(1000, 9999)}"),
            ("Rating", f"{rng.uniform(3.6, 4.9):.1f} ({rng.randint(25, 2400):,} reviews)"),
            ("Features", ", ".join(rng.sample(FEATURES, 3))),
        ))
        hours = table(("Day", "Opening hours"),
                      [(day, rng.choice(HOURS)) for day in ("Monday", "Tuesday", "Wednesday",
                                                             "Thursday", "Friday", "Saturday",
                                                             "Sunday")], "hours")
        pages.append(_entity_page(
            FOOD_SITE, f"https://{FOOD_SITE.domain}/manchester/{slug(name)}",
            name, infobox + hours, blurb, FOOD_SHARED,
            crumbs=[("Manchester", "/manchester"), (cuisine, f"/manchester/{slug(cuisine)}")],
            sidebar="<h2>Offers</h2><p>Book through the app and earn points on every meal.</p>",
            others=_others(names, index, rng), prefix="manchester",
        ))
    return pages


# --------------------------------------------------------------------------- universities

UNI_SITE = Site(
    name="CampusAtlas",
    domain="www.campusatlas.edu.eu",
    tagline="Compare universities across Europe",
    nav=("Universities", "Courses", "Rankings", "Scholarships", "Student life", "Compare"),
    related_heading="Students also viewed",
)

# name, city, country, founded, kind, blurb
UNIVERSITIES = (
    ("University of Westmarch", "Westmarch", "United Kingdom", 1834, "Public",
     "A research university known for marine science and a campus that runs down to the sea."),
    ("Kellerman Institute of Technology", "Eindhoven", "Netherlands", 1956, "Public",
     "Engineering and design school with close links to the region's electronics industry."),
    ("Université de Valmont", "Valmont", "France", 1470, "Public",
     "One of France's oldest universities, strongest in law, medicine and classics."),
    ("Hochschule Rheinau", "Rheinau", "Germany", 1971, "Public",
     "Applied sciences university where every degree includes a semester in industry."),
    ("Universidad de Castilla Norte", "Burgos", "Spain", 1991, "Public",
     "A young university with a large languages faculty and low tuition for EU students."),
    ("St Columba's College Dublin", "Dublin", "Ireland", 1899, "Private",
     "A small liberal arts college in the city centre with seminar-sized classes."),
    ("Politecnico di Aurelia", "Turin", "Italy", 1906, "Public",
     "Architecture and automotive engineering are the flagships of this technical university."),
    ("Jagiellonian School of Economics", "Kraków", "Poland", 1925, "Public",
     "Business and economics university with programmes taught in Polish and English."),
    ("Nordvik University", "Tromsø", "Norway", 1968, "Public",
     "The world's northernmost full university, leading in Arctic and climate research."),
    ("Universidade do Atlântico", "Aveiro", "Portugal", 1973, "Public",
     "Known for materials science, ceramics and a campus built around salt-pan lagoons."),
    ("Vienna Academy of Music and Arts", "Vienna", "Austria", 1817, "Public",
     "Conservatoire training singers, instrumentalists and conductors for the world's stages."),
    ("Helsinki School of Design", "Helsinki", "Finland", 1871, "Public",
     "Design, film and architecture school with workshops open to students day and night."),
    ("Charles Brooke University", "Brno", "Czech Republic", 1919, "Public",
     "Comprehensive university with a strong medical faculty and a large science park."),
    ("Lund Maritime University", "Malmö", "Sweden", 1983, "Public",
     "Specialist postgraduate university for shipping, ports and ocean governance."),
    ("Ghent Business School", "Ghent", "Belgium", 2003, "Private",
     "An international business school offering MBAs and executive courses in English."),
)
UNI_SHARED = (
    '<div class="actions"><button>Add to compare</button><button>Save</button></div>'
    '<section class="data-note"><h2>About this data</h2><p>Student numbers, acceptance rates '
    "and fees are reported by the institutions themselves and checked by our editors each "
    "year. Fees shown are per year for full-time undergraduate study and may differ by course "
    "and nationality. Always confirm details with the university before you apply.</p></section>"
    '<section class="how-to-apply"><h2>How to apply</h2><p>Most universities take '
    "applications through their national admissions service; international students may "
    "apply directly. Check language requirements, deadlines and whether your school "
    "qualifications are recognised before you start your application.</p></section>"
)


def entity_universities() -> list[Page]:
    rng = random.Random("hardneg:entity_universities")
    names = [u[0] for u in UNIVERSITIES]
    pages = []
    for index, (name, city, country, founded, kind, blurb) in enumerate(UNIVERSITIES):
        infobox = fields((
            ("Type", kind), ("Founded", founded), ("Location", f"{city}, {country}"),
            ("Students", f"{rng.randint(18, 420) * 100:,}"),
            ("International students", f"{rng.randint(4, 38)}%"),
            ("Acceptance rate", f"{rng.randint(12, 85)}%"),
            ("Tuition (EU)", f"€{rng.choice((0, 250, 800, 1700, 3500, 9000, 14500)):,}"),
            ("Campus", rng.choice(("Urban", "Suburban", "Campus town", "Split-site"))),
            ("National ranking", f"#{rng.randint(1, 60)}"),
        ))
        pages.append(_entity_page(
            UNI_SITE, f"https://{UNI_SITE.domain}/university/{slug(country)}/{slug(name)}",
            name, infobox, blurb, UNI_SHARED,
            crumbs=[("Universities", "/universities"), (country, f"/universities/{slug(country)}")],
            sidebar="<h2>Open days</h2><p>Find upcoming open days and virtual tours.</p>",
            others=_others(names, index, rng), prefix="university",
        ))
    return pages
