"""``dedup`` and ``compare`` judge as a crawl does: a candidate within the threshold is a
duplicate only when the evidence confirms it. Run as subprocesses on files the tests write.

The case: two listing pages of one shop, one template, the same intro above different product
rows. Their signatures match (the intro dominates), the crawl keeps both; a copy of one with a
share bar, or under a tracking-parameter URL, is still dropped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import scrapy_simhash
from scrapy_simhash.detectors import get_detector

from .conftest import dedup_every_way, run_cli, sample_rows, write_jsonl
from .test_cli import UNCONFIRMED, dups_text, reference, summary_of

INTRO = (
    "Our workshop builds every piece of furniture by hand from solid oak, walnut and cherry "
    "sourced from managed forests within two hundred miles of the town. Each table, chair and "
    "cabinet is joined with traditional mortise and tenon joints, finished with natural oils and "
    "delivered by our own van. Browse the catalogue below, compare sizes and finishes, and ask us "
    "about custom dimensions: most orders ship within three weeks of the deposit.",
    "Every piece carries the initials of the maker who built it and a ten year guarantee against "
    "splits, loose joints and warping. We restore our own furniture free of charge for the first "
    "two years, and visitors are welcome in the showroom beside the mill from Tuesday to "
    "Saturday, where most of the catalogue can be seen, touched and sat on.",
    "Orders over five hundred pounds are delivered free anywhere on the mainland, and our drivers "
    "carry every piece into the room of your choice, unwrap it and take the packaging away for "
    "recycling. Payment can be spread over twelve months without interest.",
)
PRODUCTS = (
    ("Harbour dining table", "Walnut writing desk", "Cherry bookcase", "Oak bench",
     "Linen chest", "Garden chair", "Hall stand", "Bedside cabinet"),
    ("Refectory table", "Drop-leaf side table", "Corner cupboard", "Windsor armchair",
     "Blanket box", "Coffee table", "Plate rack", "Wardrobe with drawers"),
)
WOODS = ("oak", "walnut", "cherry", "ash")
TITLE = "Handmade furniture catalogue"
SHARE_BAR = "Share: Facebook Twitter Email Print"
PAGE_1 = "https://shop.example/products/page1.html"
PAGE_2 = "https://shop.example/products/page2.html"
TRACKED = PAGE_1 + "?utm_source=newsletter&utm_medium=email"


def product_rows(page: int) -> list[tuple[str, ...]]:
    return [
        (name, f"{(page + 1) * 100 + i * 37} pounds", f"{WOODS[(i + page) % 4]}, "
         f"{60 + i * 10 + page * 5} cm", f"ships in {i + 2} weeks")
        for i, name in enumerate(PRODUCTS[page])
    ]


def listing_body(page: int, share: bool = False) -> str:
    """The text a spider's item holds for a listing page: intro, then the product rows."""
    lines = [*INTRO, *(" | ".join(row) for row in product_rows(page))]
    return "\n".join(lines + ([SHARE_BAR] if share else []))


def listing_html(page: int, share: bool = False) -> str:
    table = "".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in product_rows(page)
    )
    intro = "".join(f"<p>{paragraph}</p>" for paragraph in INTRO)
    bar = f"<div class='share'>{SHARE_BAR}</div>" if share else ""
    return (
        "<html><head><title>Furniture catalogue - Oak and Thistle</title></head><body>"
        "<header><nav><a href='/'>Home</a> <a href='/products/'>Products</a> "
        "<a href='/about'>About us</a> <a href='/contact'>Contact</a></nav></header>"
        f"<main><h1>{TITLE}</h1>{intro}{bar}<table>{table}</table></main>"
        "<footer><p>Oak and Thistle Furniture, 12 Mill Lane, registered in England. Terms and "
        "conditions apply to every order. Privacy policy.</p></footer></body></html>"
    )


def listing_rows() -> list[dict[str, str]]:
    """A feed: page 1, page 2, page 1 again under a tracking URL, page 1 with a share bar."""
    return [
        {"url": PAGE_1, "title": TITLE, "body": listing_body(0)},
        {"url": PAGE_2, "title": TITLE, "body": listing_body(1)},
        {"url": TRACKED, "title": TITLE, "body": listing_body(0)},
        {"url": PAGE_1 + "#share", "title": TITLE, "body": listing_body(0, share=True)},
    ]


def test_the_two_listings_match_by_signature_alone() -> None:
    """The premise: without the evidence, page 2 would be taken for page 1."""
    detector = get_detector("simhash")
    texts = [f"{TITLE}\n{listing_body(page)}" for page in (0, 1)]
    assert detector.within_threshold(*map(detector.signature, texts))
    pages = [detector.signature_html(listing_html(page)) for page in (0, 1)]
    assert detector.within_threshold(*pages)
    assert not scrapy_simhash.is_near_duplicate(listing_html(0), listing_html(1))
    assert scrapy_simhash.is_near_duplicate(listing_html(0), listing_html(0, share=True))


def test_dedup_of_a_feed_keeps_both_listings_and_drops_the_copies(workdir: Path) -> None:
    write_jsonl(workdir / "out.jsonl", listing_rows())
    result = run_cli("dedup", "out.jsonl", "--field", "title", "--field", "body", "--id-field",
                     "url", "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    kept = [json.loads(line)["url"] for line in (workdir / "kept.jsonl").open(encoding="utf-8")]
    assert kept == [PAGE_1, PAGE_2]
    dups = [json.loads(line) for line in (workdir / "dups.jsonl").open(encoding="utf-8")]
    assert [(d["id"], d["duplicate_of"]) for d in dups] == [(TRACKED, PAGE_1),
                                                          (PAGE_1 + "#share", PAGE_1)]
    assert summary_of(result.stdout)[:3] == (4, 2, 2)
    assert UNCONFIRMED.search(result.stdout).group(1) == "1"  # page 2, beside page 1


@pytest.mark.parametrize("extra", [(), ("--html",)])
def test_dedup_of_a_folder_keeps_both_listings_and_drops_the_shared_copy(workdir: Path,
                                                                        extra) -> None:
    pages = workdir / "products"
    pages.mkdir()
    (pages / "page1.html").write_text(listing_html(0), encoding="utf-8")
    (pages / "page2.html").write_text(listing_html(1), encoding="utf-8")
    (pages / "page3-shared.html").write_text(listing_html(0, share=True), encoding="utf-8")
    result = run_cli("dedup", "products", *extra, "--out", "kept.txt", "--dups", "dups.jsonl",
                     cwd=workdir)
    assert result.code == 0, result.stderr
    assert (workdir / "kept.txt").read_text("utf-8") == "page1.html\npage2.html\n"
    dup = json.loads((workdir / "dups.jsonl").read_text("utf-8"))
    assert (dup["id"], dup["duplicate_of"], dup["distance"]) == ("page3-shared.html",
                                                                 "page1.html", 0)


def test_dedup_of_html_fields_weighs_the_records_urls(workdir: Path) -> None:
    rows = [{"url": PAGE_1, "html": listing_html(0)}, {"url": PAGE_2, "html": listing_html(1)},
            {"url": TRACKED, "html": listing_html(0, share=True)}]
    write_jsonl(workdir / "pages.jsonl", rows)
    result = run_cli("dedup", "pages.jsonl", "--field", "html", "--html", "--id-field", "url",
                     "--out", "kept.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert result.code == 0, result.stderr
    _, expected = reference([r["html"] for r in rows], [r["url"] for r in rows],
                            urls=[r["url"] for r in rows], html=True)
    assert (workdir / "dups.jsonl").read_text("utf-8") == dups_text(expected)
    assert [(d["id"], d["duplicate_of"]) for d in expected] == [(TRACKED, PAGE_1)]


def test_compare_gives_the_crawls_verdict_and_says_when_the_evidence_refuses(workdir: Path):
    (workdir / "page1.html").write_text(listing_html(0), encoding="utf-8")
    (workdir / "page2.html").write_text(listing_html(1), encoding="utf-8")
    (workdir / "shared.html").write_text(listing_html(0, share=True), encoding="utf-8")
    distinct = run_cli("compare", "page1.html", "page2.html", cwd=workdir)
    assert distinct.code == 0, distinct.stderr
    assert "distance     0 bits" in distinct.stdout
    assert re.search(r"^evidence     distance 0 bits \(within 16\) but the evidence says "
                     r"distinct: two short main texts in one template, and each page has a "
                     r"figure the other lacks", distinct.stdout, re.MULTILINE), distinct.stdout
    assert "verdict      different" in distinct.stdout

    same = run_cli("compare", "page1.html", "shared.html", cwd=workdir)
    assert same.code == 0, same.stderr
    assert "verdict      near-duplicate" in same.stdout and "evidence says" not in same.stdout
    # what confirmed it, and that the titles were not compared for want of the URLs
    assert re.search(r"^evidence     confirms: the main texts share 100% of the smaller one's "
                     r"word 3-grams .*titles not compared \(give --url-a and --url-b",
                     same.stdout, re.MULTILINE), same.stdout

    (workdir / "page1.txt").write_text(f"{TITLE}\n{listing_body(0)}", encoding="utf-8")
    (workdir / "page2.txt").write_text(f"{TITLE}\n{listing_body(1)}", encoding="utf-8")
    texts = run_cli("compare", "page1.txt", "page2.txt", "--text", cwd=workdir)
    assert texts.code == 0, texts.stderr
    assert "but the evidence says distinct: a page with little text of its own" in texts.stdout
    assert "verdict      different" in texts.stdout


def test_chunks_jobs_and_the_sequential_decision_agree_on_a_mixed_set(workdir: Path) -> None:
    """Articles, their planted copies, listings that the evidence refuses, repeated so that
    later records meet earlier chunks: every way of running gives the crawl's sequential
    answer."""
    rows = (sample_rows() + listing_rows()) * 2 + listing_rows()[1:] + sample_rows()[:4]
    write_jsonl(workdir / "mixed.jsonl", rows)
    outputs = [(kept, dups, summary_of(stdout), UNCONFIRMED.search(stdout).group(1))
               for kept, dups, stdout in dedup_every_way(workdir, "mixed.jsonl", (1, 5))]
    assert all(output == outputs[0] for output in outputs)
    kept, dups = reference([r["body"] for r in rows], [str(n) for n in range(1, len(rows) + 1)],
                           urls=[r["url"] for r in rows])
    assert outputs[0][1].decode("utf-8") == dups_text(dups)
    assert outputs[0][2][1:3] == (len(kept), len(dups))
    assert outputs[0][3] == "1"  # page 2 of the listings, beside page 1 (then its own copies)


def test_a_stored_index_confirms_against_the_evidence_of_an_earlier_run(workdir: Path) -> None:
    write_jsonl(workdir / "first.jsonl", listing_rows()[:1])
    write_jsonl(workdir / "second.jsonl", listing_rows()[1:])
    index = f"sqlite:///{workdir / 'seen.db'}"
    first = run_cli("dedup", "first.jsonl", "-f", "body", "--id-field", "url", "--index", index,
                    "--out", "kept1.jsonl", cwd=workdir)
    assert first.code == 0, first.stderr
    second = run_cli("dedup", "second.jsonl", "-f", "body", "--id-field", "url", "--index",
                     index, "--out", "kept2.jsonl", "--dups", "dups.jsonl", cwd=workdir)
    assert second.code == 0, second.stderr
    dups = [json.loads(line) for line in (workdir / "dups.jsonl").open(encoding="utf-8")]
    assert [(d["id"], d["duplicate_of"]) for d in dups] == [(TRACKED, PAGE_1),
                                                          (PAGE_1 + "#share", PAGE_1)]
    assert [json.loads(line)["url"] for line in (workdir / "kept2.jsonl").open()] == [PAGE_2]


def compare_first_two(workdir: Path, family, urls: bool = True, rename=None):
    """``scrapy-simhash compare`` on a hard-negative family's first two pages (given their URLs
    when ``urls``, each passed through ``rename`` when given)."""
    (url_a, a), (url_b, b) = family()[:2]
    if rename is not None:
        url_a, url_b = rename(url_a), rename(url_b)
    (workdir / "a.html").write_text(a, encoding="utf-8")
    (workdir / "b.html").write_text(b, encoding="utf-8")
    given = ["--url-a", url_a, "--url-b", url_b] if urls else []
    result = run_cli("compare", "a.html", "b.html", *given, cwd=workdir)
    assert result.code == 0, result.stderr
    return result


def test_compare_says_when_the_titles_make_two_pages(workdir: Path):
    from benchmarks.hardneg.names import job_locations

    one_site = compare_first_two(workdir, job_locations)
    assert "each title has a word the other lacks" in one_site.stdout
    assert "verdict      different" in one_site.stdout
    # without URLs the sites are not known, and the titles are not compared
    unknown = compare_first_two(workdir, job_locations, urls=False)
    assert "each title has a word" not in unknown.stdout


def test_compare_says_when_the_titles_of_long_pages_make_two(workdir: Path):
    from benchmarks.hardneg.names import job_ads_long

    one_site = compare_first_two(workdir, job_ads_long)
    assert "two long pages on one site" in one_site.stdout
    assert "verdict      different" in one_site.stdout


def test_compare_says_when_the_figures_of_long_pages_make_two(workdir: Path):
    from benchmarks.hardneg.inline_figures import versioned_install

    # the version only in the commands: its URL names a release ("/docs/v3.2.0/") in letters
    one_site = compare_first_two(
        workdir, versioned_install,
        rename=lambda url: re.sub(r"/v([\d.]+)/", lambda m: "/r" + m[1].replace(".", "-") + "/",
                                  url))
    assert "each has a figure the other lacks" in one_site.stdout
    assert "verdict      different" in one_site.stdout


def test_compare_says_when_the_urls_name_two_versions(workdir: Path):
    from benchmarks.hardneg.inline_figures import versioned_install

    result = compare_first_two(workdir, versioned_install)
    assert "the URLs name two versions" in result.stdout
    assert "verdict      different" in result.stdout


def test_compare_says_when_a_listing_links_another_entry(workdir: Path):
    from benchmarks.hardneg.listing_states import board_states

    result = compare_first_two(workdir, board_states)
    assert "one links an entry the other does not" in result.stdout
    assert "verdict      different" in result.stdout


def test_compare_says_when_a_weak_page_is_in_another_part_of_the_site(workdir: Path):
    notice = ("<html><head><title>Maintenance</title></head><body><h1>Back soon</h1><p>We are "
              "updating the Riverton Today site tonight and will be back shortly. Events, "
              "forums, shop orders and member accounts are safe. Thank you for your patience "
              "while our engineers finish the scheduled maintenance work.</p></body></html>")
    family = lambda: [("https://d.example/status", notice),  # noqa: E731
                      ("https://d.example/events/2026/06/11", notice)]
    result = compare_first_two(workdir, family)
    assert "in another part of the site" in result.stdout
    assert "verdict      different" in result.stdout


def test_compare_says_when_the_comments_or_the_days_make_two_pages(workdir: Path):
    from benchmarks.hardneg.collapsed import comment_pages
    from benchmarks.hardneg.siblings import recurring_events

    result = compare_first_two(workdir, comment_pages)
    assert "whose own comments share" in result.stdout
    assert "verdict      different" in result.stdout
    result = compare_first_two(workdir, recurring_events)
    assert "the URLs name two days" in result.stdout


def test_compare_shows_what_the_evidence_compares(workdir: Path):
    from benchmarks.hardneg.collapsed import comment_pages, product_tabs

    _, first = comment_pages()[0]
    (workdir / "a.html").write_text(first, encoding="utf-8")
    (workdir / "b.html").write_text(product_tabs()[0][1], encoding="utf-8")
    result = run_cli("compare", "a.html", "b.html", "--show", cwd=workdir)
    assert result.code == 0, result.stderr
    assert "A: a.html, main text:\n  How to Make a Sourdough Starter" in result.stdout
    assert "A: its own comments:" in result.stdout and "B: its own comments:" not in result.stdout
    assert "B: content beside it:" in result.stdout and "Part number CF190" in result.stdout


def _vacancies_without_figures():
    """Two vacancies of :func:`vacancies_one_title` whose fields differ in words only."""
    from benchmarks.hardneg.shared_text import vacancies_one_title

    (url_a, a), (url_b, b) = vacancies_one_title()[:2]
    for old, new in (("EUR 75,000 - 90,000 a year", "competitive"), ("R-2098", "payments")):
        a = a.replace(old, new)
    for old, new in (("PLN 28,000 - 34,000 a month", "equity and salary"),
                     ("R-2119", "risk and fraud team"), ("Full time, permanent", "part time")):
        b = b.replace(old, new)
    return [(url_a, a), (url_b, b)]


def test_compare_says_when_the_data_beside_long_texts_makes_two_pages(workdir: Path):
    one_site = compare_first_two(workdir, _vacancies_without_figures)
    assert "the content beside their main texts shares" in one_site.stdout
    assert "verdict      different" in one_site.stdout


def test_compare_says_when_a_field_makes_two_pages(workdir: Path):
    from benchmarks.hardneg.fields import job_regions_ko, manuals_pt

    seoul = 'here "근무지역: 서울 강남구" and "근무지역: 서울 송파구"'
    chosen = compare_first_two(workdir, job_regions_ko)
    assert "one query parameter two values" in chosen.stdout
    for family, named in ((job_regions_ko, seoul),
                          (manuals_pt, 'here "modelo: Onix" and "modelo: Onix Plus"')):
        # (under ?id= their URLs may choose them already, "the URLs give one query parameter
        # two values": as paths, the field tells)
        result = compare_first_two(workdir, family, rename=lambda url: url.replace("?id=", "/"))
        assert "a field both have" in result.stdout and "verdict      different" in result.stdout
        assert named in result.stdout  # (the field, read again from the saved pages)
        # on two sites, or sites not known, a field is not compared
        unknown = compare_first_two(workdir, family, urls=False)
        assert "verdict      near-duplicate" in unknown.stdout


def test_compare_says_when_the_urls_name_two_editions(workdir: Path):
    from benchmarks.hardneg.choices import terms_without_canonical

    result = compare_first_two(workdir, terms_without_canonical)
    assert "the URLs name two editions of one page" in result.stdout
    assert "verdict      different" in result.stdout


def test_compare_reads_each_page_in_the_charset_it_was_served_with(workdir: Path):
    """A page saved from a ``charset=utf-16`` response has no byte-order mark to tell it."""
    from benchmarks.hardneg.choices import terms_without_canonical

    (_, page), _ = terms_without_canonical()[:2]
    (workdir / "a.html").write_bytes(page.encode("utf-16-le"))
    (workdir / "b.html").write_text(page, encoding="utf-8")
    unread = run_cli("compare", "a.html", "b.html", cwd=workdir)
    assert "A: a.html\n  main text    0 characters" in unread.stdout
    result = run_cli("compare", "a.html", "b.html", "--encoding-a", "utf-16", cwd=workdir)
    assert result.code == 0, result.stderr
    assert "distance     0 bits" in result.stdout
    assert "verdict      near-duplicate" in result.stdout
    wrong = run_cli("compare", "a.html", "b.html", "--encoding-b", "no-such-charset",
                    cwd=workdir)
    assert wrong.code != 0 and "--encoding-b" in wrong.stderr
