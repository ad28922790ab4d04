"""Pages of one template under one generic title and heading, each an item in one slot of it:
a dealer's cars ("Honda Civic, 2020" and "Honda Accord, 2020", one price and mileage), a
hotel's rooms ("Standard Double Room" in a subheading, one rate), a funeral home's death
notices (the name in the notice's first line). Nothing but that one line tells them apart."""

from __future__ import annotations

from .chrome import Site, esc, render

Page = tuple[str, str]

DEALER_SITE = Site(
    name="Riverside Motors",
    domain="www.riversidemotors.example.com",
    tagline="Quality used cars since 1987",
    nav=("Used cars", "Finance", "Part exchange", "Servicing", "About us", "Contact"),
    related_heading="More cars",
)
CARS = ("Honda Civic", "Honda Civic Sport", "Honda Civic Touring", "Honda Accord", "Honda Jazz",
        "Toyota Corolla", "Toyota Yaris", "Mazda 3", "Ford Focus", "Ford Fiesta")


def dealer_cars() -> list[Page]:
    """A dealer's used cars under one title and heading, one price, year and mileage: the
    make and model on one line alone."""
    pages = []
    for number, car in enumerate(CARS, start=1):
        main = ("<h1>Vehicle details</h1>"
                '<p class="price">$18,900</p>'
                f"<p>{esc(car)}, 2020, 31,800 miles, automatic, petrol.</p>"
                "<h2>About the dealer</h2>"
                "<p>Riverside Motors is a family-run dealership with over 35 years of experience. "
                "Every car is inspected by our technicians, serviced before sale and comes with "
                "a twelve-month warranty and a year of roadside assistance.</p>"
                "<p>Finance is available subject to status, and we accept part exchange on any "
                "vehicle. Test drives can be booked online or by phone, seven days a week.</p>")
        pages.append((f"https://{DEALER_SITE.domain}/used/{number}",
                      render(DEALER_SITE, title="Vehicle details", main=main,
                             breadcrumbs=[("Used cars", "/used/")])))
    return pages


HOTEL_SITE = Site(
    name="Grand Harbour Hotel",
    domain="www.grandharbour.example.com",
    tagline="On the waterfront since 1884",
    nav=("Rooms", "Dining", "Spa", "Meetings", "Offers", "Contact"),
    related_heading="Other rooms",
)
ROOMS = ("Standard Double Room", "Superior Double Room", "Deluxe Double Room",
         "Standard Twin Room", "Superior Twin Room", "Junior Suite", "Harbour Suite",
         "Family Room", "Accessible Double Room", "Single Room")


def hotel_rooms() -> list[Page]:
    """A hotel's rooms under the hotel's name as title and heading, one rate: the room's
    name in a subheading alone."""
    pages = []
    for number, room in enumerate(ROOMS, start=1):
        main = ("<h1>Grand Harbour Hotel</h1>"
                f"<h2>{esc(room)}</h2><p>Rates from €159 per night including breakfast.</p>"
                "<h2>About the hotel</h2>"
                "<p>Set on the waterfront in the heart of the old town, the hotel combines "
                "nineteenth-century architecture with contemporary comfort: a rooftop restaurant, "
                "a cocktail bar and a spa with an indoor pool.</p>"
                "<p>All rooms have air conditioning, free wifi, a minibar, a safe and a private "
                "bathroom with a rain shower. Check-in is from 15:00 and check-out until 11:00."
                "</p>")
        pages.append((f"https://{HOTEL_SITE.domain}/rooms/{number}",
                      render(HOTEL_SITE, title="Grand Harbour Hotel", main=main,
                             breadcrumbs=[("Rooms", "/rooms/")])))
    return pages


NOTICE_SITE = Site(
    name="Milford Funeral Home",
    domain="www.milfordfuneralhome.example.com",
    tagline="Serving Milford families since 1921",
    nav=("Notices", "Services", "Pre-planning", "Grief support", "About", "Contact"),
    related_heading="Recent notices",
)
NAMES = ("John Smith", "Mary Jones", "Robert Brown", "Patricia Miller", "James Wilson",
         "Linda Moore", "Michael Taylor", "Barbara Anderson", "William Thomas", "Susan Jackson")


def death_notices() -> list[Page]:
    """A funeral home's death notices under one title and heading, one service: the name in
    the notice's first sentence alone."""
    pages = []
    for number, name in enumerate(NAMES, start=1):
        main = ("<h1>Death notice</h1>"
                f"<p>{esc(name)} of Milford died peacefully at home. Funeral on Friday at "
                "St. Mary's Church.</p><h2>Service information</h2>"
                "<p>Arrangements are under the direction of the Milford Funeral Home, 45 Broad "
                "Street, Milford. Calling hours will be held the evening before the service. "
                "Burial will follow at Milford Cemetery.</p>"
                "<p>Memorial contributions may be made to a charity of your choice. Online "
                "condolences may be left for the family on this page.</p>")
        pages.append((f"https://{NOTICE_SITE.domain}/notices/{number}",
                      render(NOTICE_SITE, title="Death notice", main=main,
                             breadcrumbs=[("Notices", "/notices/")])))
    return pages
