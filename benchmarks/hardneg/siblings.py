"""Pages of one series or one development whose own text is a line or a few figures beside a
long text they all share, each listing its siblings: the episodes of a video series (one long
channel description; a few episodes add a sentence of their own, which takes their main text
over the 300 words that part short texts from long ones), and the homes of one development
(one title per home type, the development's text, each home's price, plot and floor beside a
list of the other homes with theirs)."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

VIDEOS = Site(
    name="ClipHarbour",
    domain="www.clipharbour.example",
    tagline="Watch, share and stream",
    nav=("Home", "Trending", "Subscriptions", "Library", "Gaming", "Live"),
)

#: (number, name, a sentence of the episode's own or "")
EPISODES = (
    (1, "Washed Ashore", "We wake up on a beach with nothing but a wooden boat and a map."),
    (2, "The Driftwood Hut", ""),
    (3, "Crabs at Low Tide", ""),
    (4, "A Furnace of Clay", "At last the kiln works and the first bricks come out whole."),
    (5, "Trading with the Lighthouse", ""),
    (6, "Seaweed Farm", ""),
    (7, "The Flooded Mine", "The lower tunnels fill with water and we lose every torch."),
    (8, "Pearl Divers", ""),
    (9, "Storm Season", ""),
    (10, "The Sunken Chapel", ""),
    (11, "Raising the Mast", "The ship is finally ready and we sail past the reef at dawn."),
)

DESCRIPTION = (
    "Welcome back to Saltwater Isles, the survival series where the tide decides what we eat and "
    "where we sleep. If you are new here, this is a one-life world on the current version of the "
    "game with a single mod for the weather, and every episode picks up exactly where the "
    "previous one left off. New episodes go up every Monday and Thursday in the evening.",
    "Support the channel: members get each episode a day early, a mention at the end of the "
    "video and the members' channels on the community server. The shop link below has the "
    "series' posters and mugs, and part of every sale goes to a charity that cleans beaches.",
    "Find me elsewhere: I stream on Tuesday and Saturday nights, post short clips of the builds "
    "during the week, and the community server has channels for seeds, screenshots and fan art. "
    "Please keep spoilers out of the comments for viewers who are still catching up.",
    "My setup: the game runs at 1440p with shaders off for recording; I record with a free "
    "screen recorder, edit on a laptop and talk into a dynamic microphone on an arm. Resource "
    "pack: none. The weather mod only changes the tides and the storms, nothing else.",
    "Music: the background music of the series is licensed from an independent library. The "
    "closing song is written by a friend of the channel, and the links to her work are pinned "
    "in the comments. Business enquiries go to the address on the About page; I read every "
    "comment even when I cannot answer them all.",
    "Thank you for watching, and remember that on these islands the sea always wins in the end, "
    "so build high, store food and never trust a calm morning.",
)


def episode_series() -> list[Page]:
    """Eleven episodes of one series, each titled by its episode, the channel's long description
    below; four episodes open it with a sentence of their own."""
    description = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in DESCRIPTION)
    pages = []
    for number, name, own in EPISODES:
        title = f"Saltwater Isles Episode {number}: {name}"
        queue = "".join(
            f'<li class="queue-item"><a href="/watch/saltwater-isles/{other}/">Saltwater Isles '
            f"Episode {other}: {esc(other_name)}</a></li>"
            for other, other_name, _ in EPISODES if other != number
        )
        main = (
            f'<div class="watch"><div class="player"><iframe src="/embed/si{number:03d}">'
            f'</iframe></div><h1 class="video-title">{esc(title)}</h1>'
            f'<div class="video-description">{f"<p>{esc(own)}</p>" if own else ""}'
            f"{description}</div></div>"
        )
        sidebar = f'<div class="playlist-queue"><h3>Saltwater Isles</h3><ol>{queue}</ol></div>'
        pages.append((f"https://{VIDEOS.domain}/watch/saltwater-isles/{number}/",
                      render(VIDEOS, title=title, main=main, sidebar=sidebar)))
    return pages


HOMES = Site(
    name="NewHomesFinder",
    domain="www.newhomesfinder.example",
    tagline="Every new home in one place",
    nav=("Buy", "New homes", "Developments", "Mortgages", "Guides"),
)

#: (plot, bedrooms, floor, square feet, price)
UNITS = (
    (11, 2, "Ground", 738, "262,500"), (21, 2, "First", 738, "267,500"),
    (31, 2, "Second", 738, "272,500"), (41, 2, "Third", 738, "277,500"),
    (12, 2, "Ground", 765, "268,000"), (22, 2, "First", 765, "273,000"),
    (32, 2, "Second", 765, "278,000"), (14, 1, "Ground", 540, "189,950"),
    (24, 1, "First", 540, "192,500"), (34, 1, "Second", 540, "195,000"),
)

DEVELOPMENT = (
    "Millbrook Wharf is a collection of one and two bedroom apartments beside the canal basin, a "
    "short walk from the city centre and the station. Every home has large windows, a private "
    "balcony and an open plan kitchen and living room, and many look across the water.",
    "Residents share a landscaped courtyard, a roof terrace with seating, a gym and secure "
    "storage for bicycles; parking spaces are sold separately. Kitchens come with integrated "
    "appliances and stone worktops, bathrooms with porcelain tiles and a heated towel rail.",
    "The building is heated by a communal low-carbon network and every apartment comes with a "
    "ten year warranty. Our partner advisers can help with a mortgage, and part exchange may be "
    "considered on selected homes. The show apartment is open daily by appointment; images are "
    "computer generated and specifications may vary.",
)


def development_units() -> list[Page]:
    """Ten homes of one development: one title per home type, the development's text as their
    main text, each home's plot, floor, size and price beside a linked list of the others."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in DEVELOPMENT)
    facts = "<dl>" + "".join(f"<dt>{esc(name)}</dt><dd>{esc(value)}</dd>" for name, value in (
        ("Tenure", "Leasehold, 999 years from completion"),
        ("Service charge", "Provided by the developer on request"),
        ("Ground rent", "Peppercorn"),
        ("Council tax", "To be assessed by the local authority"),
        ("Energy rating", "Predicted B"),
        ("Heating", "Communal low-carbon heat network"),
        ("Parking", "Spaces available by separate negotiation"),
        ("Completion", "Estimated spring, subject to build progress"),
        ("Warranty", "Ten year new home warranty"),
    )) + "</dl>"
    pages = []
    for plot, beds, floor, feet, price in UNITS:
        title = f"{beds} bedroom apartment for sale in Millbrook Wharf"
        others = "".join(
            f'<li><a href="/homes/millbrook-wharf/plot-{other}/">Plot {other} · {other_beds} bed '
            f"· £{other_price}</a></li>"
            for other, other_beds, _, _, other_price in UNITS if other != plot
        )
        main = (
            f'<div class="property"><h1 class="property-title">{esc(title)}</h1>'
            f'<p class="price">£{price}</p><ul class="key-features"><li>Plot {plot}</li>'
            f"<li>{floor} floor</li><li>{feet} sq ft</li><li>Balcony</li></ul>"
            f'<section class="description"><h2>About this home</h2>{text}</section>'
            f'<section class="key-information"><h2>Key information</h2>{facts}</section>'
            f'<section class="agent"><h2>Marketed by</h2><p>Millbrook Wharf Sales Suite, Canal '
            f"Street</p><p>Call 0161 496 0123, local call rate, open daily 10am to 5pm</p>"
            f'</section><section class="other-units"><h2>Other homes at this development</h2>'
            f"<ul>{others}</ul></section></div>"
        )
        pages.append((f"https://{HOMES.domain}/homes/millbrook-wharf/plot-{plot}/",
                      render(HOMES, title=title, main=main,
                             breadcrumbs=[("New homes", "/homes/")])))
    return pages


EVENTS = Site(
    name="Harbour What's On",
    domain="whatson.harbour.example",
    tagline="Gigs, markets and talks by the water",
    nav=("Music", "Food", "Family", "Talks", "This weekend"),
)

#: (day as the URL writes it, as the page does, venue, price)
DATES = (
    ("20250112", "Sun 12 Jan 2025", "The Blue Note Rooms", "£22"),
    ("20250119", "Sun 19 Jan 2025", "The Blue Note Rooms", "£22"),
    ("20250126", "Sun 26 Jan 2025", "The Blue Note Rooms", "£22"),
    ("20250202", "Sun 2 Feb 2025", "The Blue Note Rooms", "£22"),
    ("20250209", "Sun 9 Feb 2025", "Harbourside Hall", "£22"),
    ("20250216", "Sun 16 Feb 2025", "Harbourside Hall", "£25"),
    ("20250223", "Sun 23 Feb 2025", "The Blue Note Rooms", "£22"),
    ("20250302", "Sun 2 Mar 2025", "The Blue Note Rooms", "£22"),
    ("20250309", "Sun 9 Mar 2025", "Harbourside Hall", "£22"),
    ("20250316", "Sun 16 Mar 2025", "Harbourside Hall", "£25"),
)

BRUNCH = (
    "Start your Sunday the right way: live jazz from the Harbour Trio, bottomless coffee and a "
    "three-course brunch from our kitchen team.",
    "The trio plays two sets of standards and new arrangements, with guest vocalists joining "
    "most weeks. Tables are allocated on arrival, so come early if you want to sit near the "
    "stage.",
    "The menu includes vegetarian and vegan options; please tell us about any allergies when "
    "you book. Brunch is served from 11:15 and the last set finishes at 13:45.",
)


def recurring_events() -> list[Page]:
    """Ten dates of one weekly event under one title and description, the day in the URL and
    in the page's details, every date of the series (this one too) listed on every page."""
    title = "Sunday Jazz Brunch"
    about = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in BRUNCH)
    listed = "".join(
        f'<li class="event-dates__item"><time>{shown}</time> · {esc(venue)} · {price} '
        f'<a href="/events/sunday-jazz-brunch-{day}">Get tickets</a></li>'
        for day, shown, venue, price in DATES
    )
    pages = []
    for day, shown, venue, price in DATES:
        main = (
            f'<div class="event-page"><h1 class="event-title">{title}</h1>'
            f'<div class="event-details"><h2>Date and time</h2><p>{shown}<br>11:00 – 14:00</p>'
            f"<h2>Location</h2><p>{esc(venue)}, 2 Canons Way</p><p>Price: {price}</p></div>"
            f'<div class="event-description"><h2>About this event</h2>{about}</div>'
            f'<section class="event-dates"><h2>More dates</h2><ul>{listed}</ul></section></div>'
        )
        pages.append((f"https://{EVENTS.domain}/events/sunday-jazz-brunch-{day}",
                      render(EVENTS, title=title, main=main)))
    return pages


#: (the date as a page's title and its first line write it, that line's time)
SERIES_DATES = (
    ("2025-03-02", "Sunday 2025-03-02, 11:00 - 14:00"),
    ("2025-03-09", "Sunday 2025-03-09, 11:00 - 14:00"),
    ("2025-03-16", "Sunday 2025-03-16, 11:00 - 14:00"),
    ("2025-03-23", "Sunday 2025-03-23, 11:00 - 14:00"),
    ("Mar 30, 2025", "Sun, Mar 30, 2025 · 11:00-14:00"),
    ("Apr 6, 2025", "Sun, Apr 6, 2025 · 11:00-14:00"),
    ("Apr 13, 2025", "Sun, Apr 13, 2025 · 11:00-14:00"),
    ("2025/04/20", "Sunday 2025/04/20 11:00 - 14:00"),
    ("2025/04/27", "Sunday 2025/04/27 11:00 - 14:00"),
)

SERIES_ZH = Site(
    name="滨江周末",
    domain="www.binjiang-weekend.example",
    tagline="吃喝玩乐 一周精选",
    nav=("活动", "美食", "亲子", "讲座", "本周末"),
    lang="zh-CN",
)

SERIES_DATES_ZH = (
    ("2025年3月2日", "2025年3月2日（周日）11:00 - 14:00"),
    ("2025年3月9日", "2025年3月9日（周日）11:00 - 14:00"),
    ("2025年3月16日", "2025年3月16日（周日）11:00 - 14:00"),
    ("2025年3月23日", "2025年3月23日（周日）11:00 - 14:00"),
    ("2025年3月30日", "2025年3月30日（周日）11:00 - 14:00"),
    ("2025年4月6日", "2025年4月6日（周日）11:00 - 14:00"),
    ("2025年4月13日", "2025年4月13日（周日）11:00 - 14:00"),
    ("2025年4月20日", "2025年4月20日（周日）11:00 - 14:00"),
    ("2025年4月27日", "2025年4月27日（周日）11:00 - 14:00"),
)

BRUNCH_ZH = (
    "港湾三重奏现场演奏，搭配我们厨房精心准备的三道菜早午餐，咖啡无限续杯，入座时赠送一杯鲜榨橙汁。",
    "菜单随季节更换，始终提供素食选择，如有食物过敏请在预订时告知。十二岁以下儿童半价。",
    "地点：外滩船屋。价格：每位298元。",
)


def _series_and_dates(site: Site, title: str, about: tuple[str, ...], heading: str,
                      dates: tuple[tuple[str, str], ...], path: str) -> list[Page]:
    """An event's series page, then each date's page: one title and description, the date
    in the date page's title and on a line of its own, and on the series page only in the
    links to them (no date in any URL)."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in about)
    listed = "".join(f'<li><a href="{path}/{number}">{esc(line)}</a></li>'
                     for number, (_, line) in enumerate(dates, 1))
    series = (f"<h1>{esc(title)}</h1>{text}"
              f'<h2>{esc(heading)}</h2><ul class="dates">{listed}</ul>')
    pages = [(f"https://{site.domain}{path}", render(site, title=title, main=series))]
    for number, (titled, line) in enumerate(dates, 1):
        main = (f'<h1>{esc(title)}</h1><p class="when">{esc(line)}</p>{text}'
                f'<a class="button" href="/book?event={number}">{esc(site.nav[0])}</a>')
        pages.append((f"https://{site.domain}{path}/{number}",
                      render(site, title=f"{title} - {titled}", main=main)))
    return pages


def series_dates() -> list[Page]:
    """A weekly event's series page and its dates' pages (their URLs numbered, not dated)."""
    return _series_and_dates(EVENTS, "Sunday Jazz Brunch", BRUNCH, "Dates", SERIES_DATES,
                             "/events/jazz-brunch")


def series_dates_zh() -> list[Page]:
    """:func:`series_dates` in Chinese: 2025年3月23日 in the title and the first line."""
    return _series_and_dates(SERIES_ZH, "周日爵士早午餐", BRUNCH_ZH, "场次", SERIES_DATES_ZH,
                             "/zh/events/jazz-brunch")


POLLEN = Site(
    name="Pollenkollen",
    domain="www.pollenkollen.example",
    tagline="Pollenprognoser för hela Sverige",
    nav=("Prognoser", "Pollenkalender", "Allergi", "Om oss"),
    lang="sv",
)

#: (city as the URL writes it, as the text does)
CITIES = (("stockholm", "Stockholm"), ("uppsala", "Uppsala"), ("goteborg", "Göteborg"),
          ("boras", "Borås"), ("malmo", "Malmö"), ("lund", "Lund"), ("umea", "Umeå"),
          ("lulea", "Luleå"), ("orebro", "Örebro"), ("visby", "Visby"))

POLLEN_TEXT = (
    "Björkpollen: höga halter i dag och i morgon. Gräspollen: låga halter. Gråbo: inga halter. "
    "Håll fönstren stängda på förmiddagen, duscha och byt kläder när du kommer in, och ta din "
    "allergimedicin i god tid innan du går ut. Prognosen uppdateras varje dag klockan sju."
)


def url_selections() -> list[Page]:
    """A pollen forecast per city under one title and text, the city in the URL's query
    (``?ort=uppsala``) and in one line of the text alone: the levels alike."""
    pages = []
    for key, city in CITIES:
        main = (f"<h1>Pollenprognos</h1><p class='place'>Prognos för {esc(city)}</p>"
                f"<p>{esc(POLLEN_TEXT)}</p>")
        pages.append((f"https://{POLLEN.domain}/sv/pollenprognos?ort={key}",
                      render(POLLEN, title="Pollenprognos", main=main)))
    return pages


#: (the line an event's date is on: a dateline's shape, which an extractor leaves out of the
#: text as furniture, or one whose day is another figure of the page: "£15", "7 seats left")
DATE_LINES = (
    "Date: March 7, 2025 at 7:30pm",
    "Date: March 14, 2025 at 7:30pm",
    "Date: March 21, 2025 at 7:30pm",
    "Date: 2025-03-28, The Blue Room",
    "Date: 2025-04-04, The Blue Room",
    "Friday 11 April 2025, 7:30pm",
    "Friday 15 April 2025, 7:30pm",
    "Saturday, April 26, 2025",
    "Saturday, August 30, 2025",
    "2025/09/06 19:30",
)
QUARTET = ("The Blue Notes quartet returns to The Blue Room for a night of classic and modern "
           "jazz. Doors open one hour before the concert, and the kitchen serves small plates "
           "until the interval. Seats are unreserved, so come early; tickets can be passed on "
           "to a friend but not refunded.")


def event_date_lines() -> list[Page]:
    """A monthly concert's pages under one title and text, the date only on a line of its own
    (no date in the title or the URL): some lines shaped like a dateline, some days another
    figure of the page too (the price "£15", "7 seats left", the "7:30pm" start)."""
    pages = []
    for number, line in enumerate(DATE_LINES, 1):
        main = (f'<article class="event"><h1>Jazz Night at The Blue Room</h1>'
                f'<p class="when">{esc(line)}</p><p class="price">Tickets £15 · 7 seats left</p>'
                f"<p>{esc(QUARTET)}</p></article>")
        pages.append((f"https://{EVENTS.domain}/events/jazz-night?id={number}",
                      render(EVENTS, title="Jazz Night at The Blue Room", main=main)))
    return pages


EVENTS_JA = Site(
    name="港ナビ",
    domain="www.minato-navi.example.jp",
    tagline="週末のイベント情報",
    nav=("音楽", "グルメ", "家族", "講座", "今週末"),
    lang="ja",
)

DATE_LINES_JA = tuple(f"2025年{month}月{day}日（{weekday}）19:30" for month, day, weekday in (
    (3, 14, "金"), (3, 21, "金"), (3, 28, "金"), (4, 4, "金"), (4, 11, "金"), (4, 18, "金"),
    (4, 25, "金"), (5, 2, "金"), (5, 9, "金"), (5, 16, "金")))
QUARTET_JA = ("ブルーノーツ・カルテットが今年もブルールームに帰ってきます。開場は開演の一時間前、"
              "休憩までキッチンで軽食をご用意しています。全席自由席のため、お早めにお越しください。")


def event_date_lines_ja() -> list[Page]:
    """:func:`event_date_lines` in Japanese: "2025年3月14日（金）19:30" on a line of its own."""
    pages = []
    for number, line in enumerate(DATE_LINES_JA, 1):
        main = (f'<article class="event"><h1>ジャズナイト</h1><p class="when">{esc(line)}</p>'
                f'<p class="price">料金：3,000円</p><p>{esc(QUARTET_JA)}</p></article>')
        pages.append((f"https://{EVENTS_JA.domain}/events/jazz-night?id={number}",
                      render(EVENTS_JA, title="ジャズナイト", main=main)))
    return pages


#: (flat, floor, price, aspect) of one building's flats, all under one title and description
FLATS = (
    (4, "2nd", "240,000", "South"), (7, "3rd", "245,000", "South"),
    (12, "4th", "250,000", "West"), (15, "4th", "250,000", "South"),
    (19, "5th", "255,000", "West"), (23, "6th", "250,000", "West"),
    (26, "6th", "262,500", "South"), (30, "7th", "265,000", "West"),
    (33, "8th", "270,000", "South"), (36, "8th", "275,000", "West"),
)
HARBOUR = (
    "Harbour View is a development of one and two bedroom apartments on the waterfront, completed "
    "to a high specification. Residents benefit from a concierge, a private gym, secure "
    "underfloor parking and a landscaped roof terrace with views across the city.",
    "The apartment has an open plan living and dining area with floor to ceiling windows, a "
    "fitted kitchen with integrated appliances and stone worktops, a principal bedroom with "
    "fitted wardrobes and a bathroom with a rainfall shower. Underfloor heating runs throughout.",
    "The dock is a short walk from the city centre and the railway station, with bars and "
    "restaurants on the doorstep. The property is offered with no onward chain. Viewing is "
    "strictly by appointment with the agent.",
)


def summary_asides() -> list[Page]:
    """Ten flats of one building under one title and description, each flat's price, floor and
    aspect only in a summary box in the page's ``<aside>`` (beside links to similar flats)."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in HARBOUR)
    title = "2 bedroom apartment for sale in Harbour View"
    pages = []
    for flat, floor, price, aspect in FLATS:
        main = (f'<article class="listing"><h1>{esc(title)}</h1><p class="address">Harbour View, '
                f"Dock Road</p><h2>Description</h2>{text}</article>")
        sidebar = (f'<div class="summary"><p class="price">£{price}</p><ul class="key-features">'
                   f"<li>2 bedroom apartment</li><li>{floor} floor</li><li>{aspect} facing "
                   f"balcony</li><li>Flat {flat}</li><li>EPC rating B</li></ul></div>"
                   '<h3>Similar properties</h3><ul><li><a href="/property/881/">1 bed flat, '
                   'Dock Road, £189,000</a></li><li><a href="/property/912/">2 bed flat, Mill '
                   "Lane, £231,500</a></li></ul>")
        pages.append((f"https://{HOMES.domain}/property/harbour-view-{flat}/",
                      render(HOMES, title=title, main=main, sidebar=sidebar)))
    return pages


TYRES = Site(
    name="ReifenDirekt",
    domain="www.reifendirekt.example.de",
    tagline="Reifen und Felgen günstig kaufen",
    nav=("Sommerreifen", "Winterreifen", "Ganzjahresreifen", "Felgen", "Montage"),
    lang="de",
)
#: (size, load and speed index, price) of one tyre's sizes, each sold on its own page
TYRE_SIZES = (
    ("195/65 R15", "91T", "79,90"), ("205/55 R16", "91H", "89,90"),
    ("205/55 R16", "94V", "94,90"), ("215/60 R16", "99H", "99,90"),
    ("225/45 R17", "94V", "109,90"), ("225/50 R17", "98V", "114,90"),
    ("225/40 R18", "92V", "124,90"), ("235/45 R18", "98V", "134,90"),
    ("205/60 R16", "96H", "94,90"), ("195/55 R16", "87H", "84,90"),
)
NORDFROST = (
    "Der Nordfrost 7 ist ein Winterreifen für Kompaktwagen und Mittelklasse, der auf Schnee, "
    "Matsch und nasser Fahrbahn sicher greift. Die Lamellen im Profil verzahnen sich mit dem "
    "Schnee, breite Rillen leiten Wasser und Matsch schnell ab.",
    "Die weiche Gummimischung bleibt auch bei tiefen Temperaturen elastisch und verkürzt den "
    "Bremsweg auf nasser und verschneiter Straße. Der Reifen trägt das Alpine-Symbol und ist "
    "damit für die situative Winterreifenpflicht zugelassen.",
    "Alle Reifen stammen aus aktueller Produktion und werden auf Wunsch direkt an eine unserer "
    "Montagepartner-Werkstätten in Ihrer Nähe geliefert.",
)


def tyre_sizes_de() -> list[Page]:
    """Ten sizes of one winter tyre under one title and description, each size's load and
    speed index and price only in the buying box in the page's ``<aside>``."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in NORDFROST)
    title = "Nordfrost 7 Winterreifen"
    pages = []
    for number, (size, index, price) in enumerate(TYRE_SIZES, 1):
        main = (f'<div class="product"><h1>{esc(title)}</h1><div class="description">{text}'
                "</div></div>")
        sidebar = (f'<div class="buybox"><p class="size">{size} {index}</p>'
                   f'<p class="price">{price} € pro Stück</p><p>inkl. MwSt., zzgl. Versand</p>'
                   '<button>In den Warenkorb</button></div>')
        pages.append((f"https://{TYRES.domain}/reifen/nordfrost-7?artikel={number}",
                      render(TYRES, title=title, main=main, sidebar=sidebar)))
    return pages


#: (plot, bedrooms, square feet, price, aspect) of one development's homes
LARCHES_PLOTS = (
    (3, 3, 1012, "325,000", "South"), (5, 3, 1012, "327,500", "West"),
    (8, 4, 1240, "389,950", "South"), (9, 4, 1240, "392,500", "East"),
    (12, 3, 1068, "339,950", "West"), (14, 3, 1068, "334,950", "South"),
    (17, 2, 820, "259,000", "East"), (18, 2, 820, "262,500", "South"),
    (21, 4, 1310, "412,000", "West"), (24, 3, 1012, "329,950", "East"),
)
LARCHES = (
    "The Larches is a collection of twenty-four family homes on the edge of the village, a short "
    "walk from the station and the canal towpath, with open views across the valley to the moors.",
    "Every home is built to a high specification with an open plan kitchen and family room, a "
    "utility area, fitted wardrobes to the main bedroom and a garden laid to lawn with a patio.",
    "Our sales team is on site from Thursday to Monday. Book a visit to walk around the show home "
    "and see the finishes for yourself.",
)


def _as_div_sidebar(page: str) -> str:
    """A rendered page whose sidebar is written as the markup before HTML5 wrote it."""
    return page.replace('<aside class="sidebar">', '<div class="sidebar">').replace(
        "</aside>", "</div>")


def sidebar_plots() -> list[Page]:
    """Ten plots of one development under one title and description, each plot's number,
    price, size and aspect only in a key-facts box in a ``<div class="sidebar">``."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in LARCHES)
    pages = []
    for plot, bedrooms, size, price, aspect in LARCHES_PLOTS:
        title = f"{bedrooms} bedroom house for sale at The Larches"
        main = f'<article class="listing"><h1>{esc(title)}</h1>{text}</article>'
        sidebar = (f'<div class="key-facts"><h3>Key facts</h3><ul><li>Plot {plot}</li>'
                   f"<li>£{price}</li><li>{size} sq ft</li><li>{aspect} facing garden</li></ul>"
                   '</div><p><a href="/developments/the-larches/">All homes at The Larches</a></p>')
        pages.append((f"https://{HOMES.domain}/developments/the-larches/plot-{plot}",
                      _as_div_sidebar(render(HOMES, title=title, main=main, sidebar=sidebar))))
    return pages


CYCLES = Site(
    name="Vélo Atelier",
    domain="www.veloatelier.example.fr",
    tagline="Vélos de route et gravel, montés à la main",
    nav=("Route", "Gravel", "Urbain", "Pièces", "Atelier"),
    lang="fr",
)
#: (frame size, rider height, weight, price) of one bicycle, each size sold on its own page
FRAME_SIZES = (
    ("XS", "155-165 cm", "8,9", "2 190"), ("S", "162-172 cm", "9,0", "2 190"),
    ("M", "170-180 cm", "9,1", "2 240"), ("L", "178-188 cm", "9,3", "2 240"),
    ("XL", "186-196 cm", "9,5", "2 290"), ("48", "152-160 cm", "8,8", "2 150"),
    ("51", "158-168 cm", "8,9", "2 170"), ("54", "168-176 cm", "9,1", "2 210"),
    ("56", "174-184 cm", "9,2", "2 230"), ("58", "182-192 cm", "9,4", "2 260"),
)
GRAVEL = (
    "Le Causse est un vélo gravel en acier pensé pour les longues sorties sur les chemins et les "
    "routes de campagne. Son cadre accepte des pneus jusqu'à 50 mm et porte des sacoches.",
    "Chaque vélo est monté et réglé dans notre atelier avant l'expédition, puis livré prêt à "
    "rouler. Nous offrons la première révision après trois mois.",
)


def frame_sizes_fr() -> list[Page]:
    """Ten sizes of one bicycle under one title and description, each size's rider height,
    weight and price only in a WordPress theme's ``<div id="sidebar" role="complementary">``
    (no ``<aside>``)."""
    text = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in GRAVEL)
    title = "Vélo gravel Causse"
    pages = []
    for number, (size, height, weight, price) in enumerate(FRAME_SIZES, 1):
        main = f'<div class="product"><h1>{esc(title)}</h1>{text}</div>'
        box = (f'<div id="sidebar" role="complementary"><div class="panier"><p>Taille {size}</p>'
               f"<p>Pour une taille de {height}</p><p>Poids {weight} kg</p>"
               f"<p>{price} € TTC</p><button>Ajouter au panier</button></div></div>")
        page = render(CYCLES, title=title, main=main, sidebar="x").replace(
            '<aside class="sidebar">x</aside>', box)
        pages.append((f"https://{CYCLES.domain}/velos/causse?taille={number}", page))
    return pages
