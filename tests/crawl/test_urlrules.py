"""URL rewrite rules learned from drops: what is learned, when it goes live, what retires it."""

from __future__ import annotations

from scrapy_simhash.crawl.urlrules import Rewrite, UrlRules, explanations, normalized

SITE = "https://news.example"


def test_a_drop_is_explained_by_the_parameters_or_the_segment_it_adds():
    assert explanations(f"{SITE}/a?utm_source=x&id=3", f"{SITE}/a?id=3") == [
        Rewrite("news.example", "param", "utm_source")
    ]
    assert explanations(f"{SITE}/print/a", f"{SITE}/a") == [
        Rewrite("news.example", "segment", "print")
    ]
    assert explanations(f"{SITE}/a/amp", f"{SITE}/a") == [Rewrite("news.example", "segment", "amp")]
    assert explanations(f"{SITE}/a/index.html", f"{SITE}/a/") == [
        Rewrite("news.example", "index", "index.html")
    ]
    # a parameter whose value differs explains nothing; nor does another host
    assert explanations(f"{SITE}/list?page=2", f"{SITE}/list?page=1") == []
    assert explanations("https://other.example/a?x=1", f"{SITE}/a") == []


def test_a_rule_goes_live_after_three_confirming_pairs_and_skips_only_fetched_targets():
    rules = UrlRules()
    for name in ("a", "b"):
        rules.fetched(f"{SITE}/{name}")
        rules.fetched(f"{SITE}/{name}?ref=home")
        assert rules.dropped(f"{SITE}/{name}?ref=home", f"{SITE}/{name}") == []
    rules.fetched(f"{SITE}/c")
    assert rules.dropped(f"{SITE}/c?ref=home", f"{SITE}/c") == [
        Rewrite("news.example", "param", "ref")
    ]
    rules.fetched(f"{SITE}/d")
    rule, target = rules.skip(f"{SITE}/d?ref=side")
    assert rule.name == "ref" and target == normalized(f"{SITE}/d")
    assert rules.skip(f"{SITE}/e?ref=side") is None  # /e was never fetched: fetch it


def test_one_in_ten_is_fetched_anyway_and_a_contradiction_retires_the_rule():
    rules = UrlRules()
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?sid=1", f"{SITE}/{name}")
    decisions = [rules.skip(f"{SITE}/a?sid={n}") for n in range(2, 22)]
    # two sampled, and the first value after another on /a (see the facets' test below)
    assert sum(d is None for d in decisions) == 3
    # a sampled request came back distinct from /a: the rule is wrong here
    rules.fetched(f"{SITE}/a?sid=99")
    assert rules.kept(f"{SITE}/a?sid=99") == [Rewrite("news.example", "param", "sid")]
    assert rules.skip(f"{SITE}/a?sid=100") is None


def test_a_parameter_that_changes_the_content_never_goes_live():
    rules = UrlRules()
    rules.fetched(f"{SITE}/shop")
    rules.kept(f"{SITE}/shop")
    for page in range(2, 9):  # every page of the listing is kept as distinct
        rules.fetched(f"{SITE}/shop?page={page}")
        assert rules.kept(f"{SITE}/shop?page={page}") == []
    assert rules.live() == []
    assert all(rules.skip(f"{SITE}/shop?page={page}") is None for page in range(9, 12))


def test_a_withdrawn_drop_confirms_nothing():
    rules = UrlRules()
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?x=1", f"{SITE}/{name}")
    assert rules.live()
    rules.withdrawn(f"{SITE}/c?x=1", f"{SITE}/c")
    assert rules.live() == []


def test_a_rewrite_first_seen_after_a_page_that_contradicts_it_never_goes_live():
    rules = UrlRules()
    rules.fetched(f"{SITE}/shop")
    rules.kept(f"{SITE}/shop")
    rules.fetched(f"{SITE}/shop?sort=price")
    rules.kept(f"{SITE}/shop?sort=price")  # another order of the products: distinct
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?sort=price", f"{SITE}/{name}")
    assert rules.live() == []


def test_a_variant_fetched_before_its_page_teaches_the_rule_and_skips_the_page():
    rules = UrlRules()
    for name in ("a", "b", "c"):  # the tracked link came first: the page is its duplicate
        rules.fetched(f"{SITE}/{name}?ref=home")
        rules.kept(f"{SITE}/{name}?ref=home")
        rules.fetched(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}", f"{SITE}/{name}?ref=home")
    assert rules.live() == [Rewrite("news.example", "param", "ref")]
    rules.fetched(f"{SITE}/d?ref=home")
    rules.kept(f"{SITE}/d?ref=home")
    assert rules.skip(f"{SITE}/d") is not None
    assert rules.skip(f"{SITE}/e") is None


def _fbclid_learned(sample_every: int):
    """Rules that learned ``fbclid`` from four pages, and a crawl's stats."""
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    rules = UrlRules(sample_every=sample_every)
    for name in ("a", "b", "c", "d"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.dropped(f"{SITE}/{name}?fbclid=1", f"{SITE}/{name}")
    return rules, MemoryStatsCollector(get_crawler())


def test_requests_with_dont_filter_or_dont_simhash_are_never_skipped():
    from scrapy import Request

    from scrapy_simhash.crawl.downloader import skip_by_rules

    rules, stats = _fbclid_learned(sample_every=1000)
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2", dont_filter=True), stats) is None
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2", meta={"dont_simhash": True}),
                         stats) is None
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2"), stats) is not None
    assert stats.get_value("simhash/urls/skipped") == 1
    assert stats.get_value("simhash/urls/skipped/news.example/param/fbclid") == 1


def test_the_canonical_link_or_og_url_is_read_from_the_head_only():
    from scrapy_simhash.crawl.urlrules import declared_canonical

    page = f"{SITE}/print/a?x=1"
    head = ('<html><head><meta charset="utf-8"><meta property="og:url" content="/og">'
            "<LINK href='/a?b=1&amp;c=2' REL='alternate canonical'>{}</head><body>{}</body>")
    assert declared_canonical(head.format("", "").encode(), page) == f"{SITE}/a?b=1&c=2"
    assert declared_canonical(b'<head><meta property="og:url" content="/og"></head>',
                              page) == f"{SITE}/og"
    in_body = '<head></head><body><link rel="canonical" href="/elsewhere"></body>'
    assert declared_canonical(in_body.encode(), page) is None  # (a page's own markup, not its head)
    assert declared_canonical(b'<link rel="canonical" href="javascript:x">', page) is None
    assert declared_canonical(b"<p>no head at all</p>", page) is None
    # a head closed in capitals, or only by the body's opening: read up to there
    for end in (b"</HEAD>", b"<Body class='x'>", b"<BODY><HEAD></HEAD>"):
        declared = b'<HEAD><LINK REL=canonical HREF="/up">' + end
        assert declared_canonical(declared + b'<link rel="canonical" href="/b">', page) == (
            f"{SITE}/up")
        assert declared_canonical(end + b'<link rel="canonical" href="/b">', page) is None


def _decided(rules: UrlRules, url: str, duplicate_of: str | None, canonical: str | None
             ) -> None:
    """What the downloader middleware tells the rules of one page."""
    rules.fetched(url)
    if duplicate_of is None:
        rules.kept(url)
    else:
        rules.dropped(url, duplicate_of)
    if canonical is not None:
        rules.declared(url, canonical)


def test_print_variants_that_declare_their_canonical_teach_the_rule_drops_do_not():
    rules = UrlRules()
    for n in range(1, 4):
        story, short, printed = f"{SITE}/story/{n}-slug", f"{SITE}/a/{n}", f"{SITE}/print/a/{n}"
        _decided(rules, story, None, short)
        # both dropped against the slug URL: no rewrite explains those drops
        _decided(rules, printed, story, short)  # (its canonical page is not fetched yet)
        assert rules.live() == []
        _decided(rules, short, story, short)
    assert rules.live() == [Rewrite("news.example", "segment", "print")]
    assert rules.canonical_outcomes == {"confirmed": 6, "ignored": 0}  # the slug URLs too
    _decided(rules, f"{SITE}/a/9", None, None)
    assert rules.skip(f"{SITE}/print/a/9") is not None


def test_a_canonical_to_a_page_of_other_content_is_ignored_never_learned_from():
    rules = UrlRules()
    _decided(rules, f"{SITE}/list", None, None)
    for page in range(2, 9):  # page n declares page 1: the decisions keep every page apart
        _decided(rules, f"{SITE}/list?page={page}", None, f"{SITE}/list")
    for product in range(1, 9):  # every product declares its category
        _decided(rules, f"{SITE}/list?product={product}", None, f"{SITE}/list")
    assert rules.summary() == [] and rules.live() == []
    assert rules.canonical_outcomes == {"confirmed": 0, "ignored": 15}
    # a declaration whose page is never fetched confirms nothing either
    for n in range(5):
        _decided(rules, f"{SITE}/b{n}?utm_source=x", None, f"{SITE}/b{n}")
    assert rules.summary() == []


def test_a_withdrawn_drop_takes_back_the_canonical_confirmations_weighed_on_it():
    rules = UrlRules()
    for n in range(1, 4):
        story, short = f"{SITE}/story/{n}", f"{SITE}/a/{n}"
        _decided(rules, story, None, None)
        _decided(rules, short, story, None)
        _decided(rules, f"{SITE}/print/a/{n}", story, short)
    assert rules.live()
    rules.withdrawn(f"{SITE}/print/a/3", f"{SITE}/story/3")  # /story/3 was a ban page
    assert rules.live() == []
    assert rules.summary()[0][1] == 2


def test_a_request_let_through_to_check_a_rule_is_not_skipped_further_down():
    from scrapy import Request

    from scrapy_simhash.crawl.downloader import skip_by_rules

    rules, stats = _fbclid_learned(sample_every=2)
    assert skip_by_rules(rules, Request(f"{SITE}/d?fbclid=2"), stats) is not None
    sampled = Request(f"{SITE}/d?fbclid=3")
    assert skip_by_rules(rules, sampled, stats) is None  # the spider middleware lets it through
    assert skip_by_rules(rules, sampled, stats) is None  # and the downloader middleware too
    assert stats.get_value("simhash/urls/checked") == 1
    assert stats.get_value("simhash/urls/skipped") == 1


def _live_ref_rule(rules: UrlRules) -> Rewrite:
    for name in ("a", "b", "c"):
        rules.fetched(f"{SITE}/{name}")
        rules.fetched(f"{SITE}/{name}?ref=home")
        went_live = rules.dropped(f"{SITE}/{name}?ref=home", f"{SITE}/{name}")
    (rule,) = went_live
    return rule


def test_a_site_is_its_host_and_port():
    assert explanations("http://h.example:8765/a?x=1", "http://h.example:8766/a") == []
    assert explanations("http://h.example:8765/a?x=1", "http://h.example:8765/a") == [
        Rewrite("h.example:8765", "param", "x")
    ]
    assert explanations("https://h.example:443/a?x=1", "https://h.example/a") == [
        Rewrite("h.example", "param", "x")
    ]
    rule = Rewrite("h.example:8765", "param", "x")
    assert rule.apply("http://h.example:8766/a?x=1") is None
    assert rule.apply("http://h.example:8765/a?x=1") == "http://h.example:8765/a"


def test_requests_a_rule_skipped_come_back_when_it_is_retired():
    rules = UrlRules()
    rule = _live_ref_rule(rules)
    skipped = []
    for name in ("d", "e"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        assert rules.skip(f"{SITE}/{name}?ref=side") is not None
        assert rules.hold(rule, name)
        skipped.append(name)
    assert rules.take_released() == []
    # a page the rule says duplicates /f turns out distinct
    rules.fetched(f"{SITE}/f")
    rules.kept(f"{SITE}/f")
    rules.fetched(f"{SITE}/f?ref=side")
    assert rules.kept(f"{SITE}/f?ref=side") == [rule]
    assert rules.take_released() == skipped
    assert rules.take_released() == []
    assert not rules.hold(rule, "g")  # retired: nothing more held


def test_a_rule_with_too_few_checks_gets_held_requests_checked_until_it_has_enough():
    rules = UrlRules()
    rule = _live_ref_rule(rules)
    for name in ("d", "e", "f", "g"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        assert rules.skip(f"{SITE}/{name}?ref=x") is not None
        rules.hold(rule, name)
    assert rules.checks_due() == [(rule, "g")]  # the latest skipped
    rules.fetched(f"{SITE}/g?ref=x")
    rules.dropped(f"{SITE}/g?ref=x", f"{SITE}/g")  # the check confirms the rule
    assert rules.checks_due() == [(rule, "f")]
    rules.fetched(f"{SITE}/f?ref=x")
    rules.dropped(f"{SITE}/f?ref=x", f"{SITE}/f")
    assert rules.checks_due() == []  # MIN_CHECKS passed: /d and /e stay skipped
    assert rules.take_released() == []


def test_a_check_that_finds_another_page_retires_the_rule_and_releases_the_rest():
    rules = UrlRules()
    rule = _live_ref_rule(rules)
    for name in ("d", "e", "f"):
        rules.fetched(f"{SITE}/{name}")
        rules.kept(f"{SITE}/{name}")
        rules.skip(f"{SITE}/{name}?ref=x")
        rules.hold(rule, name)
    assert rules.checks_due() == [(rule, "f")]
    rules.fetched(f"{SITE}/f?ref=x")
    assert rules.kept(f"{SITE}/f?ref=x") == [rule]
    assert rules.take_released() == ["d", "e"]
    assert rules.checks_due() == []


def test_parameters_that_select_content_by_convention_are_never_learned():
    assert explanations(f"{SITE}/a?lang=fr", f"{SITE}/a") == []
    assert explanations(f"{SITE}/list?start=20", f"{SITE}/list") == []
    assert explanations(f"{SITE}/a?Page=2&utm_source=x", f"{SITE}/a") == [
        Rewrite("news.example", "param", "utm_source")
    ]
    assert explanations(f"{SITE}/a?edition=intl", f"{SITE}/a") == [
        Rewrite("news.example", "param", "edition")
    ]


def test_a_facets_choices_are_fetched_as_checks_where_the_rule_was_learned_on_other_pages():
    """A shop's categories of one brand: ?brand=acme is their page again, and the rule is
    learned; a category of three brands offers three values, which select other products."""
    shop = "https://shop.example"
    rules = UrlRules()
    for category in ("boots", "hats", "socks"):
        rules.fetched(f"{shop}/{category}/")
        rules.kept(f"{shop}/{category}/")
        rules.fetched(f"{shop}/{category}/?brand=acme")
        went_live = rules.dropped(f"{shop}/{category}/?brand=acme", f"{shop}/{category}/")
    (rule,) = went_live
    rules.fetched(f"{shop}/jackets/")
    rules.kept(f"{shop}/jackets/")
    assert rules.skip(f"{shop}/jackets/?brand=acme") is not None  # the first value: skipped
    assert rules.hold(rule, "acme")
    assert rules.skip(f"{shop}/jackets/?brand=peakline") is None  # another one: a check
    rules.fetched(f"{shop}/jackets/?brand=peakline")
    assert rules.kept(f"{shop}/jackets/?brand=peakline") == [rule]  # other products: retired
    assert rules.take_released() == ["acme"]
    assert rules.skip(f"{shop}/jackets/?brand=stormway") is None
    # a tracking parameter's other value is checked once a page, then skipped again
    rules = UrlRules()
    rule = _live_ref_rule(rules)
    rules.fetched(f"{SITE}/d")
    rules.kept(f"{SITE}/d")
    assert rules.skip(f"{SITE}/d?ref=side") is not None
    assert rules.skip(f"{SITE}/d?ref=footer") is None
    rules.fetched(f"{SITE}/d?ref=footer")
    rules.dropped(f"{SITE}/d?ref=footer", f"{SITE}/d")
    assert rules.skip(f"{SITE}/d?ref=menu") is not None
