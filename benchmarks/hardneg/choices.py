"""Pages of one path whose query parameter chooses what they show, the choice named in their
text only in a word of its own, or not at all: a cloud provider's status page per region
(``?region=fra1``: "Showing status for the Frankfurt region", the picker's form a search
too), and a weather service's "no warnings" page per region (``?region=wl``: "There are
currently no weather warnings in force for Wales")."""

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
