"""Pages whose own content is where an article extractor does not look: an article's pages of
comments (``?cpage=N``: the same article over other comments, in a thread named as comments),
a shop's filters whose specification sits in closed tabs (``hidden`` panels), a help
centre's answers per country in a closed accordion, and a restaurant's menus in blocks named
``menu`` as a site's navigation is."""

from __future__ import annotations

from .chrome import Site, esc, render, slug

Page = tuple[str, str]

BLOG = Site(
    name="The Crumb Diaries",
    domain="www.crumbdiaries.example",
    tagline="Bread, baking and the odd disaster",
    nav=("Recipes", "Techniques", "Equipment", "About"),
)

ARTICLE = (
    "A sourdough starter is nothing more than flour and water left to ferment, but getting one "
    "going for the first time can feel mysterious. Wild yeasts and lactic acid bacteria live on "
    "the grain and in your kitchen, and with regular feeding they settle into a stable, bubbly "
    "culture that will raise bread for years.",
    "You need a clean jar, a digital scale, wholemeal rye or wheat flour and water at room "
    "temperature. Mix fifty grams of each, cover the jar loosely and leave it somewhere warm. "
    "After a day or two you should see a few bubbles; discard half and feed it again with the "
    "same amounts.",
    "Keep feeding every day at the same time. By the end of the first week the starter should "
    "rise predictably after each feed and smell pleasantly sour. If it does not, be patient: a "
    "cold kitchen can double the time it takes, and nothing is wrong.",
)

#: Readers and what they wrote; each page of comments holds eight of them, in order
READERS = ("Mark", "Grace", "Tomasz", "Aisha", "Liam", "Priya", "Hannah", "Oskar", "Chloe",
           "Dev", "Ines", "Rory")
SUBJECTS = ("My starter", "The rye version", "A friend's starter", "Our second jar",
            "The spelt starter", "My first loaf")
EVENTS = ("doubled overnight", "smelled of nail varnish on day four",
          "went flat after a week", "rose within six hours",
          "grew a grey layer of liquid", "came back after a month in the fridge")
ADVICE = ("so I fed it twice a day", "and a warmer shelf fixed it",
          "until I switched to bottled water", "and now I bake every weekend",
          "so I halved the flour", "and the crumb is finally open")


def _comment(number: int) -> str:
    reader = READERS[number % len(READERS)]
    text = (f"{SUBJECTS[number % 6]} {EVENTS[(number // 6) % 6]} {ADVICE[(number // 36) % 6]}; "
            f"thank you for the guide, it was my {number + 2}th try.")
    return (f'<li id="comment-{1000 + number}" class="comment depth-1"><article '
            f'class="comment-body"><footer class="comment-meta"><b class="fn">{reader}</b> '
            f'<time datetime="2024-03-{1 + number % 28:02d}">March {1 + number % 28}</time>'
            f'</footer><div class="comment-content"><p>{esc(text)}</p></div><div class="reply">'
            f'<a class="comment-reply-link" href="?replytocom={1000 + number}#respond">Reply</a>'
            "</div></article></li>")


def comment_pages() -> list[Page]:
    """Ten pages of one article's comments: the article at its URL (the first page of
    comments) and at ``?cpage=2`` .. ``?cpage=10``, eight comments a page."""
    title = "How to Make a Sourdough Starter from Scratch"
    article = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in ARTICLE)
    url = f"https://{BLOG.domain}/2024/03/sourdough-starter/"
    pages = []
    for page in range(1, 11):
        comments = "".join(_comment(number) for number in range(8 * (page - 1), 8 * page))
        main = (
            f'<article class="post"><h1 class="entry-title">{esc(title)}</h1>'
            f'<div class="entry-content">{article}</div></article>'
            f'<div id="comments" class="comments-area"><h2 class="comments-title">80 comments'
            f'</h2><ol class="comment-list">{comments}</ol>'
            f'<div id="respond" class="comment-respond"><h3>Leave a reply</h3><p>Your email '
            f"address will not be published.</p></div></div>"
        )
        pages.append((url if page == 1 else f"{url}?cpage={page}",
                      render(BLOG, title=title, main=main)))
    return pages


SHOP = Site(
    name="HoodParts",
    domain="www.hoodparts.example",
    tagline="Filters and spares for every cooker hood",
    nav=("Filters", "Lamps", "Motors", "Grease filters", "Brands"),
)

#: (part number, diameter mm, weight g, months, the hoods it fits)
FILTERS = (
    ("CF190", 190, 180, "3–6", "Brevo H50, Brevo H50 Slim"),
    ("CF210", 210, 220, "3–6", "Brevo H60 Slim, Brevo H60 Chimney"),
    ("CF230", 230, 250, "4–6", "Brevo T90, Brevo T90 Glass"),
    ("CF240", 240, 260, "4–6", "Kira 600, Kira 900"),
    ("CF250", 250, 280, "4–8", "Kira Island, Kira Wall"),
    ("CF265", 265, 300, "4–8", "Lumo 60, Lumo 90"),
    ("CF280", 280, 320, "6–9", "Lumo Island"),
    ("CF300", 300, 350, "6–9", "Nordline 90, Nordline 120"),
    ("CF320", 320, 380, "6–12", "Nordline Ceiling"),
    ("CF340", 340, 410, "6–12", "Axis 120"),
)

FILTER_TEXT = (
    "Our activated carbon filters trap cooking smells when your cooker hood recirculates the air "
    "instead of venting it outside. Each filter is made from compressed coconut-shell carbon in "
    "a recyclable frame and clips straight into the hood without tools."
)


def product_tabs() -> list[Page]:
    """Ten carbon filters under one title and description, the specification, the hoods each
    fits and the delivery terms in tabs whose panels are served closed (``hidden``)."""
    title = "Carbon filter for recirculating cooker hoods"
    pages = []
    for number, diameter, weight, months, hoods in FILTERS:
        tabs = (
            ("Specification", f"<dl><dt>Part number</dt><dd>{number}</dd><dt>Diameter</dt>"
                              f"<dd>{diameter} mm</dd><dt>Weight</dt><dd>{weight} g</dd>"
                              f"<dt>Replacement</dt><dd>every {months} months</dd></dl>"),
            ("Fits", f"<p>Fits the following cooker hoods: {esc(hoods)}.</p>"),
            ("Delivery", "<p>Free delivery on orders over £40, otherwise £3.95.</p>"),
        )
        buttons = "".join(f'<button role="tab" aria-controls="tab-{i}">{name}</button>'
                          for i, (name, _) in enumerate(tabs))
        panels = "".join(f'<div class="tab__panel" role="tabpanel" id="tab-{i}" hidden>'
                         f"{body}</div>" for i, (_, body) in enumerate(tabs))
        main = (
            f'<div class="product"><h1 class="product__title">{esc(title)}</h1>'
            f'<p class="price">£14.99</p><div class="product__description"><p>'
            f"{esc(FILTER_TEXT)}</p></div><div class=\"tabs\" role=\"tablist\">{buttons}</div>"
            f"{panels}</div>"
        )
        pages.append((f"https://{SHOP.domain}/products/carbon-filter?variant={number}",
                      render(SHOP, title=title, main=main)))
    return pages


HELP = Site(
    name="Parcelwise Help",
    domain="help.parcelwise.example",
    tagline="Answers about sending and receiving parcels",
    nav=("Sending", "Receiving", "Returns", "Account"),
)

#: (country, currency, price of a small parcel, days, carrier, customs note)
COUNTRIES = (
    ("United Kingdom", "GBP", "3.20", "1 to 2", "Royal Mail", "no customs form"),
    ("Ireland", "EUR", "6.50", "2 to 3", "An Post", "a customs form for goods"),
    ("Germany", "EUR", "4.90", "1 to 2", "DHL", "no customs form"),
    ("Austria", "EUR", "5.40", "2 to 3", "Post AG", "no customs form"),
    ("Switzerland", "CHF", "9.00", "3 to 4", "Swiss Post", "a customs form for every parcel"),
    ("France", "EUR", "5.90", "2 to 4", "La Poste", "no customs form"),
    ("Spain", "EUR", "6.20", "3 to 5", "Correos", "no customs form"),
    ("Norway", "NOK", "89", "3 to 5", "Posten", "a customs form for every parcel"),
    ("United States", "USD", "14.00", "5 to 8", "USPS", "a customs form with a tariff code"),
    ("Canada", "CAD", "17.50", "6 to 9", "Canada Post", "a customs form with a tariff code"),
)


HELP_INTRO = (
    "Here are the answers to the questions we are asked most about sending parcels. Prices "
    "include tax and are for parcels booked online; booking at a counter costs a little more. "
    "Open a question to read its answer for your country."
)


def faq_answers() -> list[Page]:
    """Ten help pages, one per country, under one title and the same questions; the answers
    (prices, carriers, days, customs) sit in an accordion served closed."""
    title = "Shipping questions"
    pages = []
    for country, currency, price, days, carrier, customs in COUNTRIES:
        answers = (
            ("How much does a small parcel cost?",
             f"A small parcel up to 2 kg costs {price} {currency} within {country}."),
            ("How long does delivery take?", f"Most parcels arrive in {days} working days."),
            ("Who delivers my parcel?", f"Parcels are handed to {carrier} for the last mile."),
            ("Do I need a customs form?", f"Parcels to {country} need {customs}."),
            ("Can I change the delivery address after sending?",
             f"{carrier} can redirect a parcel once it has arrived in {country}."),
            ("What is the largest parcel I can send?",
             f"Up to 30 kg and 120 cm on its longest side, from {price} {currency}."),
        )
        items = "".join(
            f'<div class="accordion-item"><h3><button aria-controls="faq-a{i}">{esc(q)}'
            f'</button></h3><div id="faq-a{i}" class="accordion-collapse faq-answer" hidden>'
            f"<p>{esc(a)}</p></div></div>" for i, (q, a) in enumerate(answers))
        main = (f'<div class="help-article"><h1>{esc(title)}</h1><p>{esc(HELP_INTRO)}</p>'
                f'<div class="accordion">{items}</div></div>')
        slug = country.lower().replace(" ", "-")
        pages.append((f"https://{HELP.domain}/articles/shipping?country={slug}",
                      render(HELP, title=title, main=main)))
    return pages


RESTAURANT = Site(
    name="Casa Lusitana",
    domain="www.casalusitana.example",
    tagline="Cozinha portuguesa desde 1998",
    nav=("Início", "Cardápio", "Reservas", "Eventos", "Contato"),
    lang="pt-BR",
)

RESTAURANT_ABOUT = (
    "A Casa Lusitana serve cozinha tradicional portuguesa desde 1998, com bacalhau importado do "
    "Porto, azeite de Trás-os-Montes e doces feitos diariamente na nossa cozinha. Todos os pratos "
    "podem ser adaptados para alergias alimentares: informe o garçom. Aceitamos reservas para "
    "grupos de até 20 pessoas. Couvert artístico às sextas e sábados, taxa de serviço de 10% "
    "opcional, e os preços incluem impostos. Estacionamento conveniado na rua de trás."
)

#: (service, its dishes as (name, description, price))
SERVICES = (
    ("Almoço", (("Bacalhau à Brás", "Bacalhau desfiado, batata palha e ovos.", "89,90"),
                ("Arroz de pato", "Pato desfiado, chouriço e arroz no forno.", "79,50"))),
    ("Jantar", (("Polvo à lagareiro", "Polvo assado com batatas a murro.", "119,00"),
                ("Cataplana de marisco", "Camarão, amêijoas e mexilhão.", "139,00"))),
    ("Brunch", (("Ovos rotos", "Ovos, presunto e batatas fritas.", "49,00"),
                ("Tosta mista", "Pão alentejano, fiambre e queijo.", "32,00"))),
    ("Sobremesas", (("Pastel de nata", "Massa folhada e creme de ovos.", "12,00"),
                    ("Arroz doce", "Com canela e raspa de limão.", "18,00"))),
    ("Vinhos", (("Alvarinho", "Vinho verde, taça.", "38,00"),
                ("Douro tinto", "Garrafa de 750 ml.", "145,00"))),
    ("Infantil", (("Bitoque pequeno", "Bife, ovo e batatas fritas.", "42,00"),
                  ("Sopa de legumes", "Sopa do dia.", "16,00"))),
    ("Petiscos", (("Pica-pau", "Carne de vaca salteada com pickles.", "58,00"),
                  ("Amêijoas à Bulhão Pato", "Alho, coentros e limão.", "72,00"))),
    ("Executivo", (("Prato do dia", "Entrada, prato e café.", "54,90"),
                   ("Peixe grelhado", "Peixe do dia com legumes.", "64,90"))),
    ("Vegetariano", (("Açorda de legumes", "Pão, alho, coentros e ovo.", "46,00"),
                     ("Grão com espinafres", "Grão-de-bico, espinafres e ovo.", "44,00"))),
    ("Festas", (("Leitão assado", "Para quatro pessoas, com laranja.", "289,00"),
                ("Cabrito no forno", "Para quatro pessoas.", "319,00"))),
)


def restaurant_menus() -> list[Page]:
    """A restaurant's menus, one a service, under one title and text: each menu's dishes and
    prices in blocks named ``menu-block``/``menu-item`` (a site builder's names), which no page
    shares with another."""
    tabs = "".join(f'<li><a href="/cardapio?servico={slug(name)}">{esc(name)}</a></li>'
                   for name, _ in SERVICES)
    pages = []
    for name, dishes in SERVICES:
        items = "".join(
            f'<div class="menu-item"><div class="menu-item-title">{esc(dish)}</div>'
            f'<div class="menu-item-description">{esc(about)}</div>'
            f'<div class="menu-item-price-bottom">R$ {price}</div></div>'
            for dish, about, price in dishes)
        main = (f'<h1>Cardápio</h1><ul class="menu-tabs">{tabs}</ul>'
                f'<div class="about-block"><p>{esc(RESTAURANT_ABOUT)}</p></div>'
                f'<div class="menu-block"><div class="menu-section">'
                f'<div class="menu-section-header"><h2>{esc(name)}</h2></div>{items}</div></div>')
        pages.append((f"https://{RESTAURANT.domain}/cardapio?servico={slug(name)}",
                      render(RESTAURANT, title="Cardápio", main=main)))
    return pages
