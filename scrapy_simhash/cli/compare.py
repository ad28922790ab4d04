"""``scrapy-simhash compare``: explain one decision, two documents side by side."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path
from typing import Any

from scrapy_simhash import evidence as ev
from scrapy_simhash.cli.common import CliError, build_detector, detector_options


def cmd_compare(args: argparse.Namespace) -> int:
    """Print both pages' main texts and fingerprints, their distance and the crawl's verdict:
    near-duplicates when the distance is within the threshold and the evidence confirms."""
    detector = build_detector(args.algorithm, detector_options(args))
    fingerprinter = detector.fingerprinter
    sides = []
    shown = []  # (label, name, the HTML or None, the main text)
    given = (("A", args.a, args.url_a, _charset(args.encoding_a, "--encoding-a")),
             ("B", args.b, args.url_b, _charset(args.encoding_b, "--encoding-b")))
    for label, name, url, encoding in given:
        data = _read_input_file(name)
        if args.text:
            text = data.decode(encoding or "utf-8", "replace")
            signed = detector.sign_text(text)
        else:
            text = fingerprinter.extract(data, encoding, url)
            signed = detector.sign_html(data, encoding, url)
        sides.append((label, name, text, signed))
        shown.append((label, name, None if args.text else data, text))
    for label, name, text, signed in sides:
        print(f"{label}: {name}")
        print(f"  main text    {len(text)} characters, {len(fingerprinter.tokens(text))} tokens")
        if signed.signature is not None:
            print(f"  fingerprint  {_signature_hex(detector, signed.signature)}")
        elif detector.signature(text) is None:
            print(f"  fingerprint  none (fewer than {fingerprinter.min_tokens} tokens)")
        else:  # the extractor found no main text: its links and furniture stand in
            print("  fingerprint  none (no main text found: a hub or front page, never dropped)")
    (_, _, text_a, a), (_, _, text_b, b) = sides
    if a.signature is None or b.signature is None:
        print("distance     not computed (a side has no fingerprint)")
        print("verdict      not comparable: no fingerprint to compare")
    else:
        print(f"distance     {_distance_text(detector, a.signature, b.signature)}")
        same_site = ev.same_site(args.url_a, args.url_b)
        urls = ev.urls_part(args.url_a, args.url_b, a.evidence, b.evidence)
        duplicate = not urls and detector.is_duplicate(a, b, same_site)
        if urls == "versions":
            print("evidence     not compared: the URLs name two versions of a page (each one "
                  "a version the other lacks)")
        elif urls == "dates":
            print("evidence     not compared: the URLs name two days (each one a date the "
                  "other lacks: a recurring event's, a day's forecast or fixtures)")
        elif urls == "selections":
            print("evidence     not compared: each URL has a word the other lacks that its own "
                  "page's text names (what the URL selects: another city, size or strength)")
        elif urls == "choices":
            print("evidence     not compared: the URLs give one query parameter two values "
                  "and the texts differ with it (another region, room or record)")
        elif urls == "editions":
            print("evidence     not compared: the URLs name two editions of one page (two "
                  "locales: /en-gb/ and /en-au/, ?lang=; two releases: /5.0/ and /latest/) "
                  "and the texts differ with them (another seller or law, a release's "
                  "paragraph)")
        elif urls == "destinations":
            print("evidence     not compared: two pages of little text whose URLs lead to two "
                  "pages (?next=, ?continue=: a consent wall or an age check in front of "
                  "each)")
        elif urls:
            print("evidence     not compared: a page of next to no text of its own (an "
                  "interstitial, an error page, a form) in another part of the site (the "
                  "paths' first folders differ)")
        elif detector.within_threshold(a.signature, b.signature) and not duplicate:
            why = refusal(a.evidence, b.evidence, same_site)
            if why == _FIELDS_REFUSAL and not args.text:
                why += _differing_field(shown[0][2], shown[1][2])
            print(f"evidence     {_within_text(detector, a.signature, b.signature)} but the "
                  f"evidence says distinct: {why}")
        elif duplicate and a.evidence is not None and b.evidence is not None:
            print(f"evidence     confirms: {agreement(a.evidence, b.evidence, same_site)}")
        print(f"verdict      {'near-duplicate' if duplicate else 'different'}")
    if getattr(args, "show", False):
        for label, name, data, text in shown:
            print()
            print(f"{label}: {name}, main text:")
            print(_indented(text))
            if data is not None and fingerprinter.extractor_name == "builtin":
                extraction = _extraction(data)
                if extraction is not None:
                    for part, lines in (("content beside it", extraction.rest_lines()),
                                        ("its own comments",
                                         extraction.comment_text().splitlines())):
                        if lines:
                            print(f"{label}: {part}:")
                            print(_indented("\n".join(lines)))
    if args.diff:
        diff = difflib.unified_diff(
            text_a.splitlines(), text_b.splitlines(),
            fromfile=f"A: {args.a}", tofile=f"B: {args.b}", lineterm="",
        )
        lines = list(diff)
        print()
        print("\n".join(lines) if lines else "(the extracted texts are identical)")
    return 0


_FIELDS_REFUSAL = ("two pages on one site, and a field both have (a \"Label: value\" line, a "
                   "description list's term, a table's label cell) has another value on each "
                   "(another region, model or colour: \"Region: Seoul\", \"Region: Incheon\")")


def refusal(a: Any, b: Any, same_site: bool | None) -> str:
    """Why the evidence of two pages whose signatures match does not confirm them (the
    branches of :func:`scrapy_simhash.evidence.confirms`, in words)."""
    if a is None or b is None:
        return "a side has no evidence"
    main = ev.jaccard(a.sketch, a.size, b.sketch, b.size)
    if same_site is True and ev.other_canonicals(a, b):
        return ("two pages on one site that declare two canonical URLs (`<link "
                "rel=\"canonical\">`): the site says they are two pages")
    if ev.titles_part(a, b, same_site):
        if not ev._each_lacks(a.title, b.title, ev.TITLE_SKETCH_SIZE):
            return ("one title holds the other's and a word more, and its text grows with it, "
                    "or each text has 3-grams or a line the other lacks (a variant: another "
                    "ingredient, region or edition)")
        if not (a.short or a.weak or b.short or b.weak):
            return ("two long pages on one site, and each title has a word the other lacks that "
                    "its own text names, or over texts that each have 3-grams or a line the "
                    "other lacks (another place, colour, version or variant)")
        return ("a page with little text of its own on one site, and each title has a word the "
                "other lacks (another product, place or entry)")
    if ev.entries_part(a, b, same_site):
        return ("two listings on one site in one template, and one links an entry the other "
                "does not even nearly link (a new thread, product or article: dropped, the "
                "page would take it with it)")
    if ev.embeds_part(a, b, same_site):  # (only short and weak pages keep what they embed)
        return ("two pages with little text of their own on one site, and each embeds a "
                "document the other does not (another frame, viewer or player)")
    if same_site is True and ev.comments_part(a, b) and (
            (not (a.short or b.short) and ev._one_template(a, b))
            or (a.short and b.short and not ev._two_chromes(a, b)
                and not ev._foreign(a, b, same_site))):
        j = ev.jaccard(a.comments, a.comments_size, b.comments, b.comments_size)
        return (f"two pages of one template whose own comments share "
                f"{ev.containment(j, a.comments_size, b.comments_size):.0%} of the smaller "
                f"set's word 3-grams (another page of an article's comments)")
    if (a.weak or b.weak) and ev.fields_part(a, b, same_site):
        return _FIELDS_REFUSAL
    if a.weak or b.weak:
        if a.figures is not None and b.figures is not None and ev.other_figures(a, b):
            return ("a page with little text of its own, and each has a figure the other "
                    "lacks (a class's number, a day, a price or a SKU)")
        return (f"a page with little text of its own, and the two pages share {main:.0%} of "
                f"their word 3-grams, under the {ev.MIN_WEAK_JACCARD:.0%} the same content "
                f"needs")
    shared = ev.containment(main, a.size, b.size)
    if main < ev.MIN_JACCARD or shared < ev.MIN_CONTAINMENT:
        return (f"the main texts share {shared:.0%} of the smaller one's word 3-grams and "
                f"{main:.0%} of both, under the {ev.MIN_CONTAINMENT:.0%} and "
                f"{ev.MIN_JACCARD:.0%} the same content needs")
    if ev.figures_part(a, b, same_site) and not (a.short or b.short):
        return ("two long pages on one site laid out alike, and each has a figure the other "
                "lacks (a price, an address's number, a version)")
    if ev.rests_part(a, b, same_site) and not (a.short or b.short):
        rest = ev.jaccard(a.long_rest, a.long_rest_size, b.long_rest, b.long_rest_size)
        return (f"two long pages on one site laid out alike, and the content beside their main "
                f"texts shares {ev.containment(rest, a.long_rest_size, b.long_rest_size):.0%} of "
                f"the smaller one's word 3-grams (other fields, products or figures)")
    if ev.fields_part(a, b, same_site):
        return _FIELDS_REFUSAL
    if not a.short or not b.short:
        if ev._mixed_titles_part(a, b, same_site):
            return (f"a short main text (under {ev.SHORT_WORDS} words) and a long one on one "
                    "site, and each title has a word the other lacks, one that the long page's "
                    "text names (another episode, entry or place)")
        return (f"a short main text (under {ev.SHORT_WORDS} words) and a long one that share "
                f"{main:.0%} of their word 3-grams (one text at "
                f"{ev.MIN_SHORT_LONG_JACCARD:.0%} or more)")
    if ev._marks_part(a, b, same_site):
        return ("two short main texts whose headings each have a word the other lacks, or, in "
                "one template, each with figures the other lacks in the text itself")
    if ev.other_figures(a, b) and not ev._foreign(a, b, same_site):
        return ("two short main texts in one template, and each page has a figure the other "
                "lacks outside links (a price, a plot or floor number, a date)")
    if (same_site is True and ev._each_lacks(a.title, b.title, ev.TITLE_SKETCH_SIZE)
            and not ev._nearly_within(a, b)):
        return ("two short main texts on one site under titles that each have a word the other "
                "lacks, and neither text is nearly all within the other (another product "
                "beside a shared story)")
    rest = ev.jaccard(a.rest, a.rest_size, b.rest, b.rest_size)
    where = "" if same_site is None else (" on one site" if same_site else " on two sites")
    return (f"the same short main text beside other content{where}: the rest of the pages "
            f"shares {ev.containment(rest, a.rest_size, b.rest_size):.0%} of the smaller one's "
            f"word 3-grams (one template with other data)")


def agreement(a: Any, b: Any, same_site: bool | None) -> str:
    """Why the evidence of two pages whose signatures match confirms them, and what would have
    made them two (the branches of :func:`scrapy_simhash.evidence.confirms`, in words)."""
    main = ev.jaccard(a.sketch, a.size, b.sketch, b.size)
    if a.weak or b.weak:
        return (f"a page with little text of its own, and the two pages share {main:.0%} of "
                f"their word 3-grams (the same content at {ev.MIN_WEAK_JACCARD:.0%} or more); "
                f"{_titles_note(a, b, same_site)}")
    shared = ev.containment(main, a.size, b.size)
    texts = (f"the main texts share {shared:.0%} of the smaller one's word 3-grams and "
             f"{main:.0%} of both{_lines_note(a, b)}")
    if a.short != b.short:
        return (f"a short main text (under {ev.SHORT_WORDS} words) and a long one, one text: "
                f"{texts}; {_titles_note(a, b, same_site)}")
    if not a.short:
        if a.long_rest is None or b.long_rest is None:
            beside = ("their figures and the content beside them are not known (a text's "
                      "evidence, or a page's stored without them): not compared")
        elif same_site:
            beside = ("no figure differs on both sides (one page may add some: a date, a "
                      "counter), and nothing beside the main texts tells them apart")
        else:
            beside = "figures and the content beside the main texts are compared on one site only"
        return f"{texts}; {_titles_note(a, b, same_site)}; {beside}{_comments_note(a, b)}"
    if ev.other_figures(a, b):  # (the same text in two templates: see confirms)
        where = "on two sites" if same_site is False else "in two templates"
        figures = (f"each page has a figure the other lacks (a price, a SKU, a date), but they "
                   f"are the same text {where}, whose content beside it shares nothing: a "
                   f"copy's site shows figures of its own there")
    else:
        figures = ("no figure (price, SKU, date) outside links differs on both sides (one page "
                   "may add some: a date, a counter), and the rest of the pages agrees or is "
                   "next to nothing")
    return f"{texts}, {figures}; {_titles_note(a, b, same_site)}{_comments_note(a, b)}"


def _lines_note(a: Any, b: Any) -> str:
    """How many lines of each main text the other's lacks, when any does: the 3-grams above are
    a sample's, which may miss a line swapped for another."""
    if a.lines is None or b.lines is None:
        return ""
    own_a, own_b = (int.from_bytes((x.lines & ~y.lines).tobytes(), "little").bit_count()
                    for x, y in ((a, b), (b, a)))
    if not own_a and not own_b:
        return ""
    return (f" (in samples of {ev.SKETCH_SIZE} each; lines of its own: {own_a} in A, {own_b} "
            "in B)")


def _comments_note(a: Any, b: Any) -> str:
    """What the pages' own comments said, when both have some."""
    if a.comments is None or b.comments is None:
        return ""
    j = ev.jaccard(a.comments, a.comments_size, b.comments, b.comments_size)
    shared = ev.containment(j, a.comments_size, b.comments_size)
    return (f"; their own comments share {shared:.0%} of the smaller set's word 3-grams (one "
            f"page's at {ev.MAX_COMMENTS_CONTAINMENT:.0%} or more)")


def _titles_note(a: Any, b: Any, same_site: bool | None) -> str:
    """What the titles said: why they did not make two pages."""
    if same_site is None:
        return "titles not compared (give --url-a and --url-b: they are compared on one site)"
    if not same_site:
        return "titles not compared (two sites: each title names its own)"
    if a.title is None or b.title is None:
        return "titles not compared (a side has none)"
    if not ev._each_lacks(a.title, b.title, ev.TITLE_SKETCH_SIZE):
        if any(ev._lacks(a.title, b.title, ev.TITLE_SKETCH_SIZE)):
            return ("one title holds the other's and a word more, but its text does not grow "
                    "with it or, on a long page, name it, and the texts show no line swapped for "
                    "another (a decoration: \"Print\", a counter, the site's name)")
        return "neither title has a word the other lacks"
    if a.weak or b.weak or a.short or b.short:
        return "the titles differ, but the pages are not in one template"
    if not ev.laid_out_alike(a, b):
        return "the titles differ, but the pages are not laid out alike"
    return ("the titles differ, but not each in a word that its own page's text names, and the "
            "texts show no line swapped for another")


def _differing_field(data_a: bytes, data_b: bytes) -> str:
    """The words naming the first field of two saved pages whose values differ (case aside),
    ``': here "label: one" and "label: other"'``, read as the evidence reads fields (their own
    lines and their markup's pairs); "" when none is found (the evidence keeps hashes of a
    value's words only, so the pages are read again)."""
    found = [_page_fields(data) for data in (data_a, data_b)]
    for label, values in found[0].items():
        other = found[1].get(label)
        if other and not {v.casefold() for v in values} & {v.casefold() for v in other}:
            return f': here "{label}: {min(values)}" and "{label}: {min(other)}"'
    return ""


def _page_fields(data: bytes) -> dict[str, set[str]]:
    """A saved page's fields: label (case folded) -> its values."""
    from scrapy_simhash.extract import extraction_from_tree
    from scrapy_simhash.extract.parsing import parse_html
    from scrapy_simhash.extract.structured import markup_parts

    root = parse_html(data)
    if root is None:
        return {}
    fields: dict[str, set[str]] = {}
    for line in [*extraction_from_tree(root).colon_lines(), *markup_parts(root)[1]]:
        pair = ev.field_pair(line)
        if pair is not None:
            fields.setdefault(pair[0], set()).add(pair[1])
    return fields


def _extraction(data: bytes) -> Any | None:
    """The built-in extractor's reading of a saved page (None: nothing parsed)."""
    from scrapy_simhash.extract import extraction_from_tree
    from scrapy_simhash.extract.parsing import parse_html

    root = parse_html(data)
    return None if root is None else extraction_from_tree(root)


def _indented(text: str, width: int = 4000) -> str:
    """``text`` indented by two spaces, cut to ``width`` characters."""
    cut = text[:width] + (" ..." if len(text) > width else "")
    return "\n".join(f"  {line}" for line in cut.splitlines()) or "  (none)"


def _charset(label: str | None, option: str) -> str | None:
    """The Python codec of a charset given on the command line; a usage error naming the
    option when it is no charset."""
    from scrapy_simhash.extract.decoding import normalize_encoding

    if label is None:
        return None
    codec = normalize_encoding(label)
    if codec is None:
        raise CliError(f"{option}: {label!r} is no charset this tool knows (utf-8, "
                       "windows-1252, shift_jis, utf-16 ...)")
    return codec


def _read_input_file(name: str) -> bytes:
    if "://" in name and not name.startswith("file://"):
        raise CliError(
            f"{name}: compare reads saved pages; download it first (e.g. curl -o page.html URL)"
        )
    path = Path(name.removeprefix("file://"))
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a folder, not a file") from None


def _signature_hex(detector: Any, signature: Any) -> str:
    if detector.name == "simhash":
        return f"{signature:0{detector.bits // 4}x} ({detector.bits} bits)"
    return f"{detector.fingerprint_of(signature):016x} ({detector.name} signature digest)"


def _distance_text(detector: Any, a: Any, b: Any) -> str:
    if detector.name == "simhash":
        return (f"{detector.distance(a, b)} bits (near-duplicate at {detector.max_distance} "
                "or fewer)")
    if detector.name == "minhash":
        return (f"{detector.distance(a, b):.3f} (estimated Jaccard {detector.estimate(a, b):.3f}, "
                f"near-duplicate at {detector.threshold} or more)")
    return f"{detector.distance(a, b):g} ({detector.name}: 0 means equal)"


def _within_text(detector: Any, a: Any, b: Any) -> str:
    if detector.name == "simhash":
        return f"distance {detector.distance(a, b)} bits (within {detector.max_distance})"
    if detector.name == "minhash":
        return (f"estimated Jaccard {detector.estimate(a, b):.3f} (at least "
                f"{detector.threshold})")
    return f"distance {detector.distance(a, b):g} (within the threshold)"
