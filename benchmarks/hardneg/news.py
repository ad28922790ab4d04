"""Distinct local-news articles, and the bot-check page a protected site serves instead of them.

The articles share a newspaper template but not their stories: each one draws its sentences from
its topic's pool (ten topics, four of the ten sentences each) with its own town, people and
figures, so two articles have little text in common. They are the control of the "ban page"
crawl: pages that must all be kept once the interstitial in front of them is retried.
"""

from __future__ import annotations

import random

from .chrome import Site, esc, render, slug

Page = tuple[str, str]

PAPER = Site(
    name="The Valley Gazette",
    domain="www.valleygazette.example",
    tagline="Local news since 1884",
    nav=("News", "Sport", "Business", "What's on", "Property", "Jobs", "Announcements"),
    related_heading="Most read",
)

TOWNS = ("Ashby Cross", "Bramford", "Caldbeck", "Dunmere", "Elstow", "Fernley", "Gorsedale",
         "Hatherleigh", "Ilbury", "Kirkholm", "Langmoor", "Marwood", "Netherby", "Oakridge",
         "Pentworth", "Quarrington", "Rushmere", "Saxby", "Thornwick", "Upwell")
FIRST = ("Alison", "Bernard", "Chloe", "Dev", "Eleanor", "Farid", "Gemma", "Hugh", "Imogen",
         "Joe", "Karen", "Liam", "Marta", "Niall", "Olu", "Paula", "Rajesh", "Sian", "Tariq")
LAST = ("Ashworth", "Bellamy", "Cartwright", "Desai", "Ellwood", "Fairclough", "Greaves",
        "Hollins", "Ingham", "Jowett", "Kershaw", "Lomax", "Mottram", "Nuttall", "Pickles",
        "Rawcliffe", "Sowerby", "Tattersall", "Whitworth")

# topic: (headlines, sentences); slots: {town} {person} {n} {m} {day}
TOPICS = {
    "flood": (
        ("Flood defences for {town} approved after wettest winter on record",
         "{town} residents clear up after river bursts its banks"),
        ("The river rose {n} centimetres in six hours on {day} night, the Environment Agency said.",
         "Sandbags were handed out from the fire station, and volunteers filled {m} of them "
         "before midnight.",
         "Insurers estimate that {n} homes and shops were damaged by water or sewage.",
         "A new earth embankment and a pumping station will cost £{m}.{n} million.",
         "{person}, whose cellar flooded for the third time in five years, said the "
         "village had been promised help too often.",
         "The parish council has asked for a flood warden on every street.",
         "Drainage engineers blamed blocked culverts under the old railway line.",
         "Farmland upstream will be allowed to flood in future to protect the town centre.",
         "Schools in {town} stayed shut on Monday while the roads were checked.",
         "The county's emergency fund will pay up to £{n}00 to each flooded household."),
    ),
    "planning": (
        ("Plans for {n} new homes on {town} farmland go to appeal",
         "{town} supermarket plan rejected by councillors"),
        ("The developer wants to build {n} houses, a third of them affordable, on land north "
         "of the bypass.",
         "More than {m} objections were lodged, most about traffic on the narrow high street.",
         "Councillor {person} said the plans ignored the village design statement.",
         "The planning inspector will hold a public inquiry lasting {n} days in the spring.",
         "Supporters say young families are being priced out of {town}.",
         "Highways officers asked for a new roundabout and a crossing near the primary school.",
         "The site is home to a colony of great crested newts, ecologists found.",
         "Under the plans, the developer would pay £{m},000 towards a new GP surgery.",
         "Residents formed an action group and raised £{n},000 for a barrister.",
         "A decision is not expected before the autumn."),
    ),
    "sport": (
        ("{town} Rovers reach county cup final for first time in {n} years",
         "Late goal sends {town} top of the league"),
        ("Striker {person} scored twice in the last ten minutes to settle the tie.",
         "A crowd of {m} packed the small ground, the biggest since the club moved there.",
         "The manager praised a defence that has kept {n} clean sheets this season.",
         "The final will be played at the county ground on a {day} evening in May.",
         "The club's volunteers repainted the stand and relaid the pitch last summer.",
         "Rovers' under-18 side has supplied four of the players who started on Saturday.",
         "The visitors hit the post twice before half-time.",
         "Tickets for the final go on sale at the clubhouse on {day}, priced at £{n}.",
         "The goalkeeper, who works night shifts as a paramedic, saved a penalty.",
         "Rovers were bottom of the league just three seasons ago."),
    ),
    "business": (
        ("{town} bakery doubles in size with new production line",
         "{n} jobs at risk as {town} printing works consults on closure"),
        ("The family firm was founded by {person}'s grandfather in a terraced house.",
         "Turnover rose to £{m},000 last year, helped by orders from farm shops.",
         "The company has taken on {n} apprentices from the local college.",
         "Energy bills trebled over two winters, the managing director said.",
         "A new oven and packing machine were paid for with a regional growth grant.",
         "Union officials are meeting managers on {day} to discuss redundancy terms.",
         "The site has printed catalogues and bus timetables since the 1950s.",
         "Customers now order online, and the firm ships to {n} countries.",
         "Staff were told the news at a meeting in the canteen.",
         "The business hopes to open a shop and café on the high street next year."),
    ),
    "health": (
        ("New minor injuries unit opens at {town} community hospital",
         "{town} surgery to close its doors to new patients"),
        ("The unit will treat sprains, cuts and minor burns from eight in the morning until "
         "eight at night.",
         "Patients waited an average of {n} minutes during a trial in the autumn.",
         "The health board said the change would ease pressure on the county A&E.",
         "The practice has {m} registered patients and only {n} full-time doctors.",
         "Dr {person} said recruiting GPs to rural practices had never been harder.",
         "Patients will be able to book blood tests online from next month.",
         "A consultation on moving services to the new health centre closes on {day}.",
         "The building was refurbished at a cost of £{n}.{m} million.",
         "Volunteer drivers take elderly patients to appointments free of charge.",
         "The pharmacy next door will extend its opening hours."),
    ),
    "culture": (
        ("{town} museum reopens with a gallery of local Roman finds",
         "Community choir from {town} wins national competition"),
        ("The collection includes a mosaic floor found by a farmer ploughing in {n}.",
         "Curator {person} spent two years cataloguing the finds with volunteers.",
         "Entry is free, and the museum expects {m} visitors in its first year.",
         "The choir has {n} members, the youngest fifteen and the oldest ninety-one.",
         "They sang a medley of mining songs and a piece written by their conductor.",
         "Rehearsals are held every {day} evening in the church hall.",
         "A lottery grant of £{m},000 paid for a lift and new display cases.",
         "Schoolchildren helped to design the interactive displays.",
         "The prize includes a recording session at a London studio.",
         "An exhibition of photographs of the town in the 1920s opens in the summer."),
    ),
    "transport": (
        ("Bus route to {town} saved after {n}-signature petition",
         "Rail bridge at {town} to close for {n} weeks of repairs"),
        ("The operator had planned to cut the evening buses because fewer than {n} passengers "
         "used them.",
         "The county council will pay £{m},000 a year to keep the service running until 2027.",
         "Pensioner {person} said the bus was her only way of reaching the market.",
         "Replacement coaches will run every half hour between the two stations.",
         "Network Rail found cracks in the ironwork of the Victorian viaduct during an "
         "inspection in {day}'s heavy frost.",
         "Drivers face a diversion of {n} miles while the level crossing is rebuilt.",
         "Cyclists have asked for a protected lane on the new bridge deck.",
         "Timetables at the stops will be updated by the end of the month.",
         "The last bus from the town centre will now leave at half past eleven.",
         "Engineers will work through the night to finish before the Easter holidays."),
    ),
    "school": (
        ("{town} primary rated outstanding for the first time",
         "New sixth-form centre for {town} students opens its doors"),
        ("Inspectors praised the school's reading programme and its forest school lessons.",
         "Head teacher {person} said the result belonged to the pupils and their parents.",
         "The school has {m} pupils, up from {n} when it was threatened with closure a decade ago.",
         "The sixth-form centre has science laboratories, a library and a recording studio.",
         "Students will be able to choose from {n} A-level and vocational courses.",
         "A breakfast club opens at half past seven for working families.",
         "Pupils planted {m} trees on the playing field to mark the occasion.",
         "The building was designed to use a third of the energy of the old block.",
         "Parents raised money for a minibus with a sponsored walk over the moors.",
         "The next inspection is not expected for another four years."),
    ),
    "court": (
        ("{town} man jailed for stealing lead from church roofs",
         "Landlord fined £{n},000 over damp and mould in {town} flats"),
        ("The court heard that {m} kilograms of lead were taken from three churches.",
         "Police traced the metal to a scrapyard using forensic marking paint.",
         "The judge said the thefts had caused distress out of all proportion to their value.",
         "Repairs to the roofs will cost the parishes more than £{n}0,000.",
         "Tenants complained for {n} months before the council took action.",
         "Environmental health officers found black mould in a child's bedroom.",
         "The landlord, who owns {n} properties in the area, admitted the offences.",
         "Magistrates also ordered him to pay costs of £{m}.",
         "Detective Constable {person} thanked residents who reported a van at night.",
         "The defendant was jailed for two years and eight months."),
    ),
    "wildlife": (
        ("Otters return to the river at {town} after forty years",
         "Rare orchids found on {town} road verge"),
        ("Volunteers spotted spraint and paw prints under the old mill bridge.",
         "Water quality has improved since the sewage works was upgraded in {n}.",
         "Ecologist {person} said the otters were a sign of a healthy river.",
         "A trail camera recorded a mother and two cubs on a {day} night in March.",
         "The bee orchids were found by a botanist waiting at the bus stop.",
         "The council has agreed not to cut the verge until the seeds have set.",
         "More than {m} plants were counted along a stretch of {n}00 metres.",
         "Dog walkers are asked to keep to the footpath along the bank.",
         "The wildlife trust will run guided walks on the first Sunday of each month.",
         "Anglers had long suspected that the otters were back."),
    ),
}
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
PER_TOPIC_SENTENCES = 4


def articles(count: int = 30) -> list[Page]:
    """``count`` distinct articles of one local newspaper."""
    rng = random.Random("hardneg:news")
    topics = list(TOPICS)
    pages = []
    for index in range(count):
        topic = topics[index % len(topics)]
        headlines, sentences = TOPICS[topic]
        town = TOWNS[(index + index // len(TOWNS)) % len(TOWNS)]  # never one topic twice

        def fill(template: str, town: str = town) -> str:
            return template.format(
                town=town, person=f"{rng.choice(FIRST)} {rng.choice(LAST)}",
                n=rng.randint(3, 60), m=rng.randint(120, 950), day=rng.choice(DAYS),
            )

        headline = fill(headlines[(index // len(topics)) % len(headlines)])
        chosen = rng.sample(sentences, PER_TOPIC_SENTENCES)
        paragraphs = [" ".join(fill(s) for s in chosen[i:i + 2])
                      for i in range(0, len(chosen), 2)]
        body = "".join(f"<p>{esc(p)}</p>" for p in paragraphs)
        main = (f"<article><h1>{esc(headline)}</h1>"
                f'<p class="byline">By {esc(rng.choice(FIRST))} {esc(rng.choice(LAST))}, '
                f"{esc(town)} reporter</p>{body}</article>")
        pages.append((
            f"https://{PAPER.domain}/news/{index + 1}-{slug(headline)[:50]}",
            render(PAPER, title=headline, main=main, breadcrumbs=[("News", "/news")]),
        ))
    return pages


def interstitial() -> str:
    """The page a bot-protection service answers with (status 200), the same for every URL."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<title>Just a moment...</title><meta name=\"robots\" content=\"noindex,nofollow\">"
        "</head><body><div class=\"challenge\"><h1>Access denied</h1>"
        "<h2>Please verify you are human</h2>"
        "<p>We have detected unusual activity from your network. To continue to the site, "
        "complete the security check below. This helps us protect our readers and our servers "
        "from automated abuse.</p><p>If you are using a VPN, a proxy or a browser extension "
        "that blocks scripts, try turning it off and reloading the page.</p>"
        '<form action="/challenge" method="post"><label><input type="checkbox"> '
        "I am not a robot</label><button>Continue</button></form>"
        "<p class=\"footer\">Security check by ShieldGate. Performance and security by "
        "ShieldGate CDN. Your request has been logged.</p></div></body></html>"
    )
