"""Long pages of one title and one template whose own data sits inside the main text, beside a
long text every page of the family shares: an estate agent's listings (the agency's text, its
mortgage notes and disclaimer in the same ``<article>`` as the address, price and rooms), and a
documentation site's install page per version (the version only in the URL, the commands and
version numbers in the text). No title word, rest or layout tells them apart: their figures do."""

from __future__ import annotations

from .chrome import Site, esc, links, render

Page = tuple[str, str]

AGENCY = Site(
    name="Marlow & Finch",
    domain="www.marlowfinch.example",
    tagline="Estate agents in Westbury since 1987",
    nav=("Buy", "Rent", "Sell", "Valuations", "Mortgages", "Contact"),
)

#: (street, postcode, price, bedrooms, bathrooms, floor area m2, council tax band, a sentence)
LISTINGS = (
    ("14 Alder Close", "WB3 4QT", "325,000", 3, 1, 88, "C",
     "A bright kitchen opens onto a south-facing garden with a timber shed."),
    ("7 Station Road", "WB1 2HN", "310,000", 3, 1, 84, "C",
     "The garage has been converted into a study with its own entrance."),
    ("52 Kestrel Way", "WB4 9LD", "349,950", 3, 2, 95, "D",
     "An en-suite shower room serves the main bedroom at the back of the house."),
    ("3 Mill Lane", "WB2 7RS", "299,000", 3, 1, 81, "B",
     "Off-road parking for two cars sits in front of a low brick wall."),
    ("118 Orchard Rise", "WB5 1PF", "338,500", 3, 1, 90, "C",
     "A conservatory at the rear looks over the playing fields."),
    ("21 Brook Street", "WB1 6AJ", "315,000", 3, 1, 86, "C",
     "The loft has been boarded and has a fixed ladder."),
    ("9 Heather Gardens", "WB3 8EW", "342,000", 3, 2, 97, "D",
     "A downstairs cloakroom sits under the stairs beside the utility room."),
    ("66 Canal View", "WB2 3TY", "305,500", 3, 1, 83, "B",
     "The front room keeps its original bay window and fireplace."),
    ("4 Linden Court", "WB4 2NB", "329,995", 3, 1, 89, "C",
     "Gas central heating was renewed with a combination boiler last year."),
    ("31 Foxglove Drive", "WB5 5HG", "352,000", 3, 2, 99, "D",
     "A second reception room could serve as a playroom or an office."),
    ("12 Quarry Hill", "WB3 1DZ", "318,750", 3, 1, 87, "C",
     "The garden is laid to lawn with a patio beside the back door."),
    ("88 Willow Bank", "WB1 9KX", "336,000", 3, 1, 91, "C",
     "Double glazing throughout, with new front and back doors."),
)

AGENCY_TEXT = (
    "Marlow & Finch have sold homes in Westbury and the surrounding villages since 1987. Our "
    "valuers live locally, know every street and school catchment, and accompany every viewing "
    "themselves, in the evenings and at weekends too. We publish every offer we receive to the "
    "seller the same day and keep buyers informed at every step, from the first viewing to the "
    "exchange of contracts.",
    "Thinking of a mortgage? Our independent adviser compares products from across the market "
    "and can often arrange a decision in principle within a day. Your home may be repossessed "
    "if you do not keep up repayments on your mortgage. A typical fee for advice is 499 pounds, "
    "payable on completion only.",
    "These particulars are a guide only and do not form part of any contract. Measurements are "
    "approximate and room sizes should not be relied upon for carpets or furnishings. We have "
    "not tested any services, appliances or heating systems, and buyers should ask their "
    "surveyor and solicitor to confirm the tenure, the condition of the property and any "
    "planning consents before committing to a purchase.",
    "Viewings are by appointment with our Westbury office, open from 9 to 6 on weekdays and from "
    "9 to 4 on Saturdays. Please tell us if you need step-free access or an interpreter, and we "
    "will arrange the viewing to suit you.",
    "Use our calculator to estimate your monthly repayments: enter the purchase price, your "
    "deposit, the interest rate and the term. The figures are for illustration only and assume "
    "a repayment mortgage at one fixed rate for the whole term; your repayments will depend on "
    "the lender, your circumstances and the product you choose.",
    "Council tax bands are provided by the Valuation Office Agency and should be checked by the "
    "buyer. Tenure details are provided by the seller and should be confirmed by your solicitor "
    "before the exchange of contracts. Floor plans are for identification only and not to "
    "scale.",
)


def agency_listings() -> list[Page]:
    """Twelve three-bedroom houses for sale under one title, each listing's address, price,
    rooms and a sentence in the main text above the agency's long shared text."""
    title = "3 bedroom semi-detached house for sale in Westbury"
    shared = "".join(f"<p>{esc(paragraph)}</p>" for paragraph in AGENCY_TEXT)
    pages = []
    for number, (street, postcode, price, beds, baths, area, band, sentence) in enumerate(
        LISTINGS, start=1001
    ):
        main = (
            f'<article class="property"><h1>{esc(title)}</h1>'
            f"<p>{esc(street)}, Westbury {esc(postcode)}</p><p>Guide price £{price}</p>"
            f"<ul><li>{beds} bedrooms</li><li>{baths} bathroom{'s' if baths > 1 else ''}</li>"
            f"<li>{area} m²</li><li>Council tax band {band}</li><li>Freehold</li></ul>"
            f"<p>{esc(sentence)}</p>{shared}</article>"
        )
        pages.append((f"https://{AGENCY.domain}/property/{number}",
                      render(AGENCY, title=title, main=main,
                             breadcrumbs=[("Buy", "/buy"), ("Houses", "/buy/houses")])))
    return pages


DOCS = Site(
    name="Quarry",
    domain="quarry-docs.example",
    tagline="A task queue for Python",
    nav=("Guide", "Reference", "Changelog", "Community"),
)

#: (version, Python it needs, its extra package, config file, default port)
VERSIONS = (
    ("1.4.2", "3.7", "quarry-redis==1.4.2", "quarry.ini", "6380"),
    ("2.0.1", "3.8", "quarry-redis==2.0.1", "quarry.toml", "6380"),
    ("2.3.7", "3.8", "quarry-redis==2.3.0", "quarry.toml", "6390"),
    ("3.0.0", "3.9", "quarry-broker==3.0.0", "quarry.toml", "6390"),
    ("3.2.0", "3.10", "quarry-broker==3.2.0", "pyproject.toml", "6390"),
    ("3.5.4", "3.10", "quarry-broker==3.5.1", "pyproject.toml", "7000"),
    ("4.0.2", "3.11", "quarry-broker==4.0.2", "pyproject.toml", "7000"),
    ("4.1.0", "3.12", "quarry-broker==4.1.0", "pyproject.toml", "7000"),
    ("5.0.0", "3.12", "quarry-broker==5.0.0", "pyproject.toml", "7100"),
    ("5.1.3", "3.13", "quarry-broker==5.1.3", "pyproject.toml", "7100"),
)

INSTALL = (
    "Quarry runs your functions in worker processes, on this machine or on many, and keeps the "
    "queue of tasks in a broker that every worker can reach. It retries a task that fails, "
    "spreads tasks over the workers that are free and records each result for as long as you "
    "ask it to.",
    "We recommend installing Quarry into a virtual environment of its own, so that its "
    "dependencies never clash with those of your system or of other projects. Every command "
    "below assumes that the environment is active in your shell.",
    "The broker must be running before the first worker starts. On a laptop the default "
    "settings are enough; in production, give the broker its own machine, turn on persistence "
    "and put it behind the same firewall as your workers.",
    "If the worker cannot reach the broker, it retries every five seconds and logs the address "
    "it tried. Check that the port is open and that the password in the configuration matches "
    "the broker's. Workers started with the verbose flag print every task they receive.",
    "To check the installation, open a Python shell in the environment, import the package and "
    "send the example task that ships with it. The worker's log shows the task arriving and its "
    "result being stored; the shell prints the same result a moment later.",
    "Upgrading from an older release? Read the changelog first: a release that changes the "
    "format of stored results says so at the top, and the upgrade guide lists the settings that "
    "were renamed. Stop every worker before you upgrade the broker, and upgrade the workers "
    "before you start them again.",
    "Quarry is free software under the MIT licence. Questions are welcome on the community "
    "forum, bugs on the issue tracker; please say which release you run, how you installed it "
    "and what the worker logged when the problem began.",
)


def versioned_install() -> list[Page]:
    """One install page per release of a documentation site, one title ("Installation |
    Quarry"), the version only in the URL and in the text's commands and numbers."""
    shared = [f"<p>{esc(paragraph)}</p>" for paragraph in INSTALL]
    menu = links([(version, f"/docs/v{version}/install/") for version, *_ in VERSIONS],
                 "versions")
    pages = []
    for version, python, package, config, port in VERSIONS:
        commands = (
            f"<p>Quarry {version} needs Python {python} or later.</p>"
            f"<pre><code>python{python} -m venv .venv\n. .venv/bin/activate\n"
            f"pip install quarry=={version} {package}</code></pre>"
            f"<p>Write the broker's address to <code>{config}</code>, then start a worker:</p>"
            f"<pre><code>quarry worker --config {config} --broker localhost:{port} "
            f"--workers 4</code></pre>"
        )
        main = (f'<article class="md-content"><h1>Installation</h1>{shared[0]}{shared[1]}'
                f"{commands}{''.join(shared[2:])}</article>")
        pages.append((f"https://{DOCS.domain}/docs/v{version}/install/",
                      render(DOCS, title="Installation", main=main, sidebar=menu,
                             breadcrumbs=[("Guide", "/docs/")])))
    return pages
