"""Pages whose titles differ by a mark their words carry: a "+", "++" or "#" after a name
("Galaxy S24" and "S24+", "C", "C++" and "C#"), a Vietnamese tone ("Phú Mỹ" and "Phù Mỹ", two
districts), or by their order alone ("London to Paris", "Paris to London", a result "2–1"
beside "1–2"). The texts name
them as the titles do, and the text's words drop the "+" and "#"."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

CODE_SITE = Site(
    name="CodeRun",
    domain="www.coderun.example.dev",
    tagline="Run code in your browser",
    nav=("Compilers", "Snippets", "Classroom", "Pricing", "Docs", "Blog"),
    related_heading="Other compilers",
)
LANGUAGES = ("C", "C++", "C#", "F#", "J#", "Go", "R", "D", "Objective-C", "Objective-C++")


def compilers() -> list[Page]:
    """An online compiler's pages, one language each, in one text that names the language."""
    pages = []
    for number, language in enumerate(LANGUAGES, start=1):
        name = esc(language)
        main = (f"<h1>Online {name} Compiler</h1>"
                f"<p>Write, run and share {name} code online with CodeRun's free {name} compiler. "
                "No installation or sign-up is needed: type your program in the editor, press "
                "Run and see the output in a second.</p>"
                f"<p>The online {name} compiler supports standard input, multiple files and the "
                "most common libraries. Programs can run for up to ten seconds and use up to "
                "256 MB of memory.</p>"
                "<p>Use it to practise for interviews, try a snippet from a tutorial, or share a "
                f"link to your {name} code with a colleague.</p>")
        pages.append((f"https://{CODE_SITE.domain}/compilers/{number}",
                      render(CODE_SITE, title=f"Online {language} Compiler", main=main,
                             breadcrumbs=[("Compilers", "/compilers/")])))
    return pages


CASE_SITE = Site(
    name="CaseCraft",
    domain="www.casecraft.example.com",
    tagline="Protection that fits",
    nav=("Phone cases", "Screen protectors", "Chargers", "Watch bands", "Deals", "Help"),
    related_heading="Fits other phones",
)
PHONES = ("S21", "S21+", "S22", "S22+", "S23", "S23+", "S24", "S24+", "S25", "S25+")


def protectors_plus() -> list[Page]:
    """A screen protector per phone, the "+" model beside the plain one: one price, one text
    that names the phone."""
    pages = []
    for number, phone in enumerate(PHONES, start=1):
        name = esc(f"Samsung Galaxy {phone}")
        main = (f"<h1>Tempered Glass Screen Protector for {name}</h1>"
                '<p class="price">£9.99</p>'
                f"<p>Cut to fit the {name} edge to edge, with a cut-out for the front camera. "
                "The 9H glass resists scratches and drops, keeps the touch screen responsive "
                "and works with the fingerprint reader.</p>"
                "<p>Two protectors and an alignment frame in the box.</p>")
        pages.append((f"https://{CASE_SITE.domain}/protectors/{number}",
                      render(CASE_SITE, title=f"Screen Protector for {phone}", main=main,
                             breadcrumbs=[("Screen protectors", "/protectors/")])))
    return pages


VI_SITE = Site(
    name="Chuyển Nhà Việt",
    domain="www.chuyennhaviet.example.vn",
    tagline="Chuyển nhà trọn gói, an tâm trọn vẹn",
    nav=("Trang chủ", "Dịch vụ", "Bảng giá", "Khu vực", "Tin tức", "Liên hệ"),
    lang="vi",
    skip="Bỏ qua nội dung",
    cookie="Trang web sử dụng cookie để cải thiện trải nghiệm của bạn.",
    cookie_buttons=("Đồng ý", "Từ chối", "Tùy chọn"),
    search="Tìm kiếm",
    account=("Đăng nhập", "Đăng ký", "Trợ giúp"),
    home="Trang chủ",
    newsletter=("Nhận ưu đãi", "Nhận thông tin khuyến mãi qua email.", "Đăng ký"),
    related_heading="Khu vực khác",
    footer_columns=(("Công ty", ("Giới thiệu", "Tuyển dụng")),
                    ("Hỗ trợ", ("Câu hỏi thường gặp", "Chính sách"))),
    legal="Bảo lưu mọi quyền.",
)
#: districts whose names differ by a tone alone, two by two
DISTRICTS = ("Phú Mỹ", "Phù Mỹ", "Phú Yên", "Phù Yên", "Phú Ninh", "Phù Ninh", "Phú Cừ",
             "Phù Cừ", "Tân Phú", "Tân Phù")


def districts_vi() -> list[Page]:
    """A moving company's page per district, the district in the title and the text."""
    pages = []
    for number, district in enumerate(DISTRICTS, start=1):
        name = esc(district)
        main = ("<h1>Dịch vụ chuyển nhà trọn gói giá rẻ, uy tín</h1>"
                f"<p>Bạn đang cần chuyển nhà tại {name}? Chúng tôi cung cấp dịch vụ chuyển nhà "
                f"trọn gói tại {name} với đội ngũ nhân viên chuyên nghiệp, xe tải đủ loại và "
                "quy trình đóng gói cẩn thận.</p>"
                "<p>Dịch vụ bao gồm khảo sát miễn phí, tháo lắp đồ đạc, đóng gói bằng thùng "
                "carton và màng xốp, vận chuyển và sắp xếp lại tại nhà mới.</p>"
                f"<p>Văn phòng của chúng tôi tại {name} làm việc từ thứ Hai đến Chủ nhật.</p>")
        pages.append((f"https://{VI_SITE.domain}/khu-vuc/{number}",
                      render(VI_SITE, title=f"Chuyển nhà trọn gói {district}", main=main,
                             breadcrumbs=[("Khu vực", "/khu-vuc/")])))
    return pages


RAIL_SITE = Site(
    name="RailPlanner",
    domain="www.railplanner.example.com",
    tagline="Every train, every station",
    nav=("Journeys", "Timetables", "Tickets", "Railcards", "Stations", "Help"),
    related_heading="Other routes",
)
ROUTES = (("London", "Paris"), ("Leeds", "York"), ("Madrid", "Barcelona"),
          ("Vienna", "Salzburg"), ("Milan", "Turin"))


#: beside every timetable
RAIL_FACTS = (
    "Children under five travel free when they do not take up a seat.",
    "Bicycles can be taken on board in the marked coaches, free of charge.",
    "Every train has a quiet coach and power sockets at most seats.",
    "Tickets bought at the station cost the same as tickets bought online.",
    "Railcards give a third off most fares for a year.",
    "Pets travel free on a lead or in a carrier.",
    "Assistance for passengers with reduced mobility can be booked up to two hours ahead.",
    "Luggage must be labelled with your name and kept with you.",
    "Seats can be reserved up to three months before the day of travel.",
    "A buffet car serves hot and cold food and drinks on most services.",
    "Season tickets pay for themselves after about three return journeys a week.",
    "Group tickets for three to nine adults save a third on the standard fare.",
    "Open returns are valid for a month from the day of the outward journey.",
    "If your train is more than an hour late you can claim half of the fare back.",
    "Station car parks fill early on weekdays; book a space online the day before.",
    "Ticket machines take cards, contactless payments and phones, but not banknotes.",
    "First class tickets include a light meal, newspapers and a lounge at the station.",
    "Connections are guaranteed when both trains are on one ticket.",
    "Lost property is kept at the terminal station for four weeks.",
    "Smoking is not allowed on trains or anywhere on the platforms.",
)


def routes_reversed() -> list[Page]:
    """A timetable per route and one for the way back: the same two stations, the same times
    (the trains shuttle), the direction only in the order of the names."""
    times = ("06:10", "07:40", "09:15", "11:45", "14:20", "17:05", "19:30")
    pages = []
    for one, other in ROUTES:
        for start, end in ((one, other), (other, one)):
            rows = "".join(f"<tr><td>{t}</td><td>{int(t[:2]) + 2:02d}{t[2:]}</td></tr>"
                           for t in times)
            main = (f"<h1>{esc(start)} to {esc(end)} trains</h1>"
                    "<p>Direct trains run every day of the week. Journey times are about two "
                    "hours; book ahead for the cheapest fares and seat reservations.</p>"
                    f'<table class="times"><tr><th>Departs</th><th>Arrives</th></tr>{rows}'
                    "</table><p>Times can change on public holidays and during engineering "
                    "work: check before you travel.</p>"
                    '<section class="info"><h2>Good to know</h2><ul>'
                    + "".join(f"<li>{esc(fact)}</li>" for fact in RAIL_FACTS)
                    + "</ul></section>")
            pages.append((f"https://{RAIL_SITE.domain}/timetables/{len(pages) + 1}",
                          render(RAIL_SITE, title=f"{start} to {end} trains", main=main,
                                 breadcrumbs=[("Timetables", "/timetables/")])))
    return pages


SCORES_SITE = Site(
    name="DerbyDays",
    domain="www.derbydays.example.com",
    tagline="Every meeting of the city's two clubs",
    nav=("Results", "Fixtures", "Tables", "Players", "History", "Shop"),
    related_heading="Other meetings",
)
#: a derby's results, each beside its reverse (no date shown: the archive numbers the meetings)
RESULTS = ((2, 1), (1, 2), (3, 1), (1, 3), (2, 0), (0, 2), (1, 0), (0, 1), (4, 2), (2, 4))


def results_reversed() -> list[Page]:
    """A derby's results archive, a page a meeting: the same two clubs, the same note and a stats
    table that shows no goals, the result beside its reverse ("2–1" and
    "1–2"): the same figures, in the other order."""
    home, away = "Rovers", "United"
    pages = []
    for number, (scored, conceded) in enumerate(RESULTS, start=1):
        main = (f"<h1>{home} {scored}–{conceded} {away}</h1>"
                '<p class="status">Full time · City Cup</p>'
                '<table class="stats"><tr><th>Rovers</th><th></th><th>United</th></tr>'
                "<tr><td>52%</td><td>Possession</td><td>48%</td></tr>"
                "<tr><td>14</td><td>Shots</td><td>11</td></tr></table>"
                "<p>Follow every City Cup game live with minute-by-minute commentary, stats and "
                "highlights. Match data is supplied by our official partner and may be corrected "
                "after the final whistle.</p>")
        pages.append((f"https://{SCORES_SITE.domain}/meetings/{number}",
                      render(SCORES_SITE, title=f"{home} {scored}–{conceded} {away}", main=main,
                             breadcrumbs=[("Results", "/results/")])))
    return pages
