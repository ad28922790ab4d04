"""Detector contracts: self-matches, unrelated pages never match, MinHash error bound, indexes."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scrapy.http import HtmlResponse

from scrapy_simhash.crawl.signing import is_near_duplicate, page_signature
from scrapy_simhash.detectors import (
    ALGORITHMS,
    Detector,
    ExactDetector,
    KSentenceDetector,
    MinHashDetector,
    SimHashDetector,
    get_detector,
    optimal_bands,
)
from scrapy_simhash.evidence import urls_part
from scrapy_simhash.index.base import IndexParameterMismatch, NearDuplicateIndexError

ARTICLE_EN = """The harbour town voted on Tuesday to rebuild its old stone pier, ending a debate
that had divided fishermen, shop owners and the council for nearly a decade. Supporters argued that
the pier, damaged by two winter storms, protects the inner harbour and draws summer
visitors who fill the cafes along the front. Opponents wanted the money spent on the
school roof and a new bus route to the hospital in the valley. The engineers' report
estimates the work at four million pounds, most of it covered by a coastal protection
grant. Construction should begin next spring and last about eighteen months, during which
the ferry will dock at the northern quay. The harbour master said boats would keep their
moorings and that the fish market would stay open throughout."""

ARTICLE_EN_OTHER = """A small bakery in the old quarter has been named the best in the region by a
panel of judges who tasted more than two hundred loaves over three weekends. The owner, who opened
the shop with her brother after losing her office job, bakes rye and sourdough through the
night in a wood oven built by their grandfather. Queues now form before dawn, and the
bakery has hired four young apprentices from the technical college. She plans to keep
prices unchanged and to give unsold bread to the shelter near the railway station, as she
has done every evening since the first winter."""

ARTICLE_ZH = """
本市今天正式启用新建的城市图书馆，馆内藏书超过一百二十万册，并设有儿童阅
读区、古籍修复工作室和二十四小时自助借还书服务。图书馆由一座旧纺织厂改建
而成，设计团队保留了原有的红砖外墙和钢结构屋顶，同时加装了太阳能板和雨水
回收系统。馆长介绍说，开馆第一个月将举办一系列讲座和展览，邀请作家、历史
学者和本地居民分享城市的变迁。市民只需持身份证即可免费办理借书证，每人最
多可借十本图书，借期为一个月。周边的公交线路也将调整，新增两个站点方便读
者前往。"""

ARTICLE_ZH_OTHER = """
山区的一所小学今年秋天迎来了第一批使用新操场的学生。过去孩子们只能在泥地
上踢球，下雨天就无法上体育课。在当地企业和校友的资助下，学校铺设了塑胶跑
道，修建了篮球场和一间小型室内活动室。校长说，新的体育设施让学生更愿意留
在学校参加课后活动，家长们也组织了志愿者轮流照看孩子。县教育局表示，明年
还将为附近三所学校改善供暖和饮水设施，并为乡村教师提供更多培训机会。"""

UNRELATED_TEXTS = [ARTICLE_EN, ARTICLE_EN_OTHER, ARTICLE_ZH, ARTICLE_ZH_OTHER]


def page(article: str, *, site: str = "Harbour Herald", extra: str = "") -> str:
    """A small news page: navigation, the article, a footer."""
    joined = article.strip().replace("\n", " " if article.isascii() else "")
    paragraphs = "".join(f"<p>{sentence}.</p>" for sentence in joined.split(". ") if sentence)
    nav = "".join(f'<li><a href="/s/{i}">Section {i}</a></li>' for i in range(12))
    return (
        f"<html><head><title>{site}</title></head><body><header><h2>{site}</h2><ul>{nav}</ul>"
        f"</header>{extra}<article><h1>News of the day</h1>{paragraphs}</article>"
        f"<footer><p>Copyright {site}. All rights reserved.</p></footer></body></html>"
    )


def detectors():
    return [SimHashDetector(), MinHashDetector(0.5), KSentenceDetector(3), ExactDetector()]


@pytest.mark.parametrize("detector", detectors(), ids=lambda d: d.name)
def test_a_text_always_matches_itself(detector):
    for text in UNRELATED_TEXTS:
        first, second = detector.signature(text), detector.signature(text)
        assert first is not None
        assert detector.is_duplicate(first, second)
        assert detector.distance(first, second) == 0


@pytest.mark.parametrize("detector", detectors(), ids=lambda d: d.name)
def test_unrelated_texts_never_match(detector):
    signatures = [detector.signature(t) for t in UNRELATED_TEXTS]
    for i, a in enumerate(signatures):
        for b in signatures[i + 1 :]:
            assert not detector.is_duplicate(a, b)


@pytest.mark.parametrize("detector", detectors(), ids=lambda d: d.name)
def test_too_short_text_has_no_signature_and_never_matches(detector):
    assert detector.signature("Too short.") is None
    assert not detector.is_duplicate(None, None)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_signatures_do_not_depend_on_the_instance(algorithm):
    a, b = get_detector(algorithm), get_detector(algorithm)
    sig_a, sig_b = a.signature(ARTICLE_EN), b.signature(ARTICLE_EN)
    assert a.distance(sig_a, sig_b) == 0


def test_get_detector_rejects_unknown_names():
    with pytest.raises(ValueError, match="algorithm must be one of"):
        get_detector("bloom")


def test_near_duplicate_text_matches_with_simhash_and_minhash():
    edited = ARTICLE_EN.replace("Tuesday", "Wednesday").replace("four million", "five million")
    for detector in (SimHashDetector(bits=128, max_distance=16), MinHashDetector(0.5)):
        assert detector.is_duplicate(detector.signature(ARTICLE_EN), detector.signature(edited))
    exact = ExactDetector()
    assert not exact.is_duplicate(exact.signature(ARTICLE_EN), exact.signature(edited))


def test_ksentence_ignores_edits_outside_its_longest_sentences():
    detector = KSentenceDetector(3)
    text = ARTICLE_EN.replace("\n", " ")  # one paragraph: sentences end at full stops
    assert len(detector.sentences(text)) == 6
    with_short_sentence = text + " Tea was served afterwards."
    assert detector.is_duplicate(detector.signature(text), detector.signature(with_short_sentence))
    longest = max(text.split(". "), key=len)
    word = next(w for w in longest.split() if len(w) >= 6 and w.isalpha())
    changed = text.replace(longest, longest.replace(word, "lighthouse", 1))
    assert not detector.is_duplicate(detector.signature(text), detector.signature(changed))


def test_ksentence_splits_at_full_stops_not_inside_numbers_names_or_abbreviations():
    detector = KSentenceDetector(3)
    text = ('Shares rose 3.14 percent at example.com on Monday, e.g. after the report. '
            '"We expected it." Analysts agreed!  Others did not; prices fell')
    assert detector.sentences(text) == [
        "shares rose 14 percent example com monday report",
        "expected", "analysts agreed", "others prices fell",
    ]


def test_ksentence_splits_chinese_text_at_every_full_stop_form():
    detector = KSentenceDetector(3)
    text = "今天下雨。公园关门……图书馆开放！博物馆呢？美术馆；医院．学校｡工厂"
    assert detector.sentences(text) == [
        "今天 下雨", "公园 关门", "图书馆 开放", "博物馆", "美术馆", "医院", "学校", "工厂",
    ]


VACCINE = ("Regulators said on Tuesday that the new vaccine {verb} safe for children aged {age}, "
           "citing trial data gathered across several countries, hospitals and clinics during the "
           "autumn season, according to officials who briefed reporters in the capital{end}")


@pytest.mark.parametrize(
    "edit",
    [{"verb": "is not"}, {"age": "9"}, {"end": "!"}],
    ids=["stop word", "digit", "punctuation"],
)
def test_exact_tells_apart_texts_that_differ_only_in_words_without_content(edit):
    detector = ExactDetector()
    original = VACCINE.format(verb="is", age="5", end=".")
    edited = VACCINE.format(**{"verb": "is", "age": "5", "end": ".", **edit})
    assert detector.fingerprinter.tokens(original) == detector.fingerprinter.tokens(edited)
    assert not detector.is_duplicate(detector.signature(original), detector.signature(edited))


def test_exact_ignores_only_case_unicode_normalisation_and_whitespace():
    detector = ExactDetector()
    original = VACCINE.format(verb="is", age="5", end=".")
    variants = [
        original.upper(),
        "  " + original.replace(" ", " \n\t ") + "\n",
        original.replace("5", "\uff15").replace("safe", "\uff53afe"),  # full-width: NFKC
    ]
    for variant in variants:
        assert detector.signature(variant) == detector.signature(original)


# --------------------------------------------------------------------------- MinHash


def test_minhash_estimate_is_within_its_stated_error():
    detector = MinHashDetector(0.5, num_perm=128)
    bound = 3 / math.sqrt(detector.num_perm)  # six standard errors at J = 0.5
    rng = random.Random(20240501)
    worst = 0.0
    for trial in range(150):
        universe = [f"w{trial}-{i}" for i in range(rng.randint(40, 600))]
        a = set(rng.sample(universe, rng.randint(10, len(universe))))
        b = set(rng.sample(universe, rng.randint(10, len(universe))))
        true = len(a & b) / len(a | b)
        estimate = detector.estimate(detector.signature_of_set(a), detector.signature_of_set(b))
        worst = max(worst, abs(estimate - true))
    assert worst <= bound


def test_minhash_identical_and_disjoint_sets():
    detector = MinHashDetector(0.5, num_perm=64)
    items = {f"x{i}" for i in range(100)}
    other = {f"y{i}" for i in range(100)}
    signature = detector.signature_of_set
    assert detector.estimate(signature(items), signature(items)) == 1
    assert detector.estimate(signature(items), signature(other)) < 0.1


@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.7, 0.9])
def test_optimal_bands_fit_the_permutations_and_put_the_s_curve_near_the_threshold(threshold):
    bands, rows = optimal_bands(threshold, 128)
    assert bands * rows <= 128
    midpoint = (1 / bands) ** (1 / rows)  # where P(candidate) rises fastest
    assert abs(midpoint - threshold) < 0.15


def test_more_rows_for_higher_thresholds():
    assert optimal_bands(0.9, 128)[1] > optimal_bands(0.3, 128)[1]


@pytest.mark.parametrize(
    "bad", [{"threshold": 0}, {"threshold": 1.5}, {"num_perm": 1}, {"shingle_size": 0}]
)
def test_minhash_rejects_bad_parameters(bad):
    with pytest.raises(ValueError):
        MinHashDetector(**bad)


@pytest.mark.parametrize("threshold", ["0.5", None, True, float("nan"), 0.0, 1.0, [0.5]])
def test_minhash_threshold_must_be_a_number_strictly_between_0_and_1(threshold):
    with pytest.raises(ValueError, match="threshold must be a number strictly between 0 and 1"):
        MinHashDetector(threshold)


@pytest.mark.parametrize("threshold", [0.7, np.float64(0.7), Fraction(7, 10)])
def test_minhash_threshold_takes_any_real_number(threshold):
    assert MinHashDetector(threshold).threshold == 0.7


@pytest.mark.parametrize(
    ("cls", "option", "value"),
    [(MinHashDetector, "num_perm", "128"), (MinHashDetector, "num_perm", 64.0),
     (MinHashDetector, "shingle_size", True), (KSentenceDetector, "k", "3"),
     (KSentenceDetector, "k", True), (KSentenceDetector, "k", 0)],
)
def test_integer_options_reject_other_types(cls, option, value):
    with pytest.raises(ValueError, match=f"{option} must be"):
        cls(**{option: value})


# --------------------------------------------------------------------------- indexes


@pytest.mark.parametrize("detector", detectors(), ids=lambda d: d.name)
def test_index_check_and_add(detector):
    index = detector.open_index("memory://")
    sig = detector.signature(ARTICLE_EN)
    assert index.check_and_add("https://a.example/1", sig) is None
    match = index.check_and_add("https://b.example/1", detector.signature(ARTICLE_EN))
    assert match is not None and match.key == "https://a.example/1" and match.distance == 0
    assert index.check_and_add("https://c.example/1", detector.signature(ARTICLE_ZH)) is None
    assert len(index) == 2
    index.close()


@pytest.mark.parametrize(
    "detector", [MinHashDetector(0.5), KSentenceDetector(), ExactDetector()], ids=lambda d: d.name
)
def test_sqlite_band_index_persists_and_checks_parameters(tmp_path, detector):
    uri = f"sqlite:///{tmp_path / 'dedup.db'}"
    with detector.open_index(uri) as index:
        assert index.check_and_add("first", detector.signature(ARTICLE_EN)) is None
    with detector.open_index(uri) as index:
        assert len(index) == 1
        match = index.check_and_add("second", detector.signature(ARTICLE_EN))
        assert match is not None and match.key == "first"
    with pytest.raises(IndexParameterMismatch):
        type(detector)(tokenizer="words").open_index(uri)


def without_version(detector_class: type[Detector], version_key: str) -> type[Detector]:
    """The detector with the parameters its index was stored with before ``version_key``
    existed (version 1: exact hashed tokens only; ksentence split after every full stop)."""

    class BeforeVersions(detector_class):
        @property
        def params(self) -> dict[str, Any]:
            return {k: v for k, v in super().params.items() if k != version_key}

    return BeforeVersions


@pytest.mark.parametrize(
    ("detector_class", "version_key"),
    [(ExactDetector, "exact_version"), (KSentenceDetector, "ksentence_version")],
)
def test_index_built_before_a_signature_change_is_refused(tmp_path, detector_class, version_key):
    uri = f"sqlite:///{tmp_path / 'dedup.db'}"
    with without_version(detector_class, version_key)().open_index(uri) as index:
        index.add("old", 1)
    with pytest.raises(IndexParameterMismatch, match=f"{version_key}: stored None, requested 2"):
        detector_class().open_index(uri)


def test_sqlite_band_index_rolls_back_what_is_not_committed(tmp_path):
    detector = ExactDetector()
    uri = f"sqlite:///{tmp_path / 'dedup.db'}"
    with detector.open_index(uri) as index:
        index.add("kept", detector.signature(ARTICLE_EN))
        index.flush()
        index.add("undone", detector.signature(ARTICLE_ZH))
        index.rollback()
        assert (len(index), index.query(detector.signature(ARTICLE_ZH))) == (1, [])
    with detector.open_index(uri) as index:
        assert len(index) == 1
    with detector.open_index("memory://") as memory, pytest.raises(
        NearDuplicateIndexError, match="memory://pages cannot roll back"
    ):
        memory.rollback()


def test_band_index_namespaces_are_separate(tmp_path):
    detector = ExactDetector()
    uri = f"sqlite:///{tmp_path / 'dedup.db'}"
    with detector.open_index(uri, namespace="pages") as pages:
        pages.add("page", detector.signature(ARTICLE_EN))
    with detector.open_index(uri, namespace="items") as items:
        assert len(items) == 0
        items.add("item", detector.signature(ARTICLE_ZH))
    with detector.open_index(uri, namespace="pages") as pages:
        assert len(pages) == 1
        assert [m.key for m in pages.query(detector.signature(ARTICLE_EN))] == ["page"]
        assert pages.query(detector.signature(ARTICLE_ZH)) == []


def test_band_index_rejects_unknown_schemes():
    with pytest.raises(ValueError, match="memory://"):
        ExactDetector().open_index("ftp://nowhere")


# --------------------------------------------------------------------------- whole documents


def test_is_near_duplicate_on_whole_pages():
    original = page(ARTICLE_EN)
    assert is_near_duplicate(original, original, url_a="https://h.example/a",
                             url_b="https://h.example/a?utm_source=x")
    links = "".join(f'<li><a href="/r/{i}">Related story number {i}</a></li>' for i in range(30))
    assert is_near_duplicate(original, page(ARTICLE_EN, extra=f"<ul>{links}</ul>"))
    assert is_near_duplicate(original, page(ARTICLE_EN, site="Coast Daily"))
    assert not is_near_duplicate(original, page(ARTICLE_EN_OTHER))


def test_is_near_duplicate_on_chinese_pages():
    original = page(ARTICLE_ZH, site="城市日报")
    assert is_near_duplicate(original, page(ARTICLE_ZH, site="晚报"))
    assert not is_near_duplicate(original, page(ARTICLE_ZH_OTHER, site="城市日报"))


def test_is_near_duplicate_of_empty_pages_is_false():
    assert not is_near_duplicate("<html><body></body></html>", "<html><body></body></html>")


def chinese_page(charset: str) -> bytes:
    """A Chinese news page in UTF-8 whose ``<meta charset>`` says ``charset``."""
    paragraphs = "".join(f"<p>{line}</p>" for line in ARTICLE_ZH.strip().splitlines())
    return (
        f'<html><head><meta charset="{charset}"><title>城市日报</title></head><body><article>'
        f"<h1>城市图书馆开馆</h1>{paragraphs}</article></body></html>"
    ).encode()


def test_is_near_duplicate_decodes_bytes_as_the_crawl_does():
    mislabelled, labelled = chinese_page("gb2312"), chinese_page("utf-8")
    detector = SimHashDetector()
    pages = (("https://a.example/x", mislabelled), ("https://b.example/y", labelled))
    crawl = [page_signature(detector, HtmlResponse(url, body=body))[0] for url, body in pages]
    # Scrapy believes the label (gb18030 mojibake); the crawl's check reads the UTF-8 it is
    assert HtmlResponse(pages[0][0], body=mislabelled).encoding != "utf-8"
    assert detector.is_duplicate(*crawl)
    assert is_near_duplicate(mislabelled, labelled, url_a="https://a.example/x",
                             url_b="https://b.example/y")
    assert is_near_duplicate(labelled, chinese_page("UTF-8"))


def test_is_near_duplicate_reads_text_as_utf8_whatever_its_meta_charset():
    mislabelled, labelled = chinese_page("gb2312"), chinese_page("utf-8")
    assert is_near_duplicate(mislabelled.decode("utf-8"), labelled)


@pytest.mark.parametrize("uri", ["memory://", "sqlite"])
def test_minhash_with_more_than_256_bands_stores_and_finds_pages(tmp_path, uri):
    detector = MinHashDetector(threshold=0.05, num_perm=1024)
    assert detector.band_count > 256
    uri = f"sqlite:///{tmp_path / 'bands.db'}" if uri == "sqlite" else uri
    with detector.open_index(uri) as index:
        assert index.check_and_add("first", detector.signature(ARTICLE_EN)) is None
        match = index.check_and_add("again", detector.signature(ARTICLE_EN))
        assert match is not None and match.key == "first"
        assert index.check_and_add("other", detector.signature(ARTICLE_ZH)) is None


def test_minhash_band_hashes_below_256_bands_are_unchanged():
    """Stored band hashes stay valid: band b < 256 still hashes bytes([b]) + its rows."""
    from scrapy_simhash.detectors import _digest64

    detector = MinHashDetector(threshold=0.05, num_perm=1024)
    signature = detector.signature(ARTICLE_EN)
    raw, width = signature.astype("<u4").tobytes(), detector.rows * 4
    bands = detector.bands(signature)
    assert bands[:256] == [_digest64(bytes([b]) + raw[b * width : (b + 1) * width])
                           for b in range(256)]
    assert len(bands) == detector.band_count


def test_is_near_duplicate_takes_any_bytes_like_document():
    original = page(ARTICLE_EN).encode()
    assert is_near_duplicate(bytearray(original), memoryview(original))
    assert not is_near_duplicate(bytearray(original), memoryview(page(ARTICLE_EN_OTHER).encode()))


def test_is_near_duplicate_refuses_other_types_naming_the_argument():
    with pytest.raises(TypeError, match="html_b must be str or bytes; got int"):
        is_near_duplicate(page(ARTICLE_EN), 42)


def test_is_near_duplicate_of_documents_a_crawl_never_parses_is_false():
    # An article behind a run of control bytes: binary to the crawl, which keeps it unparsed.
    binary = bytes(range(1, 9)) * 512 + page(ARTICLE_EN).encode()
    assert not is_near_duplicate(binary, binary)
    # Over SIMHASH_MAX_BODY_SIZE's default: never parsed either.
    huge = page(ARTICLE_EN, extra=f"<!-- {'x' * 10 * 1024 * 1024} -->")
    assert not is_near_duplicate(huge, huge)
    assert is_near_duplicate(page(ARTICLE_EN), page(ARTICLE_EN))  # the same article, parsed


SHOP_INTRO = (
    "Welcome to our garden furniture collection. Every chair, table and bench in this category "
    "is made from sustainably sourced hardwood, treated against weather and delivered free of "
    "charge within five working days. Browse the products below, compare prices and materials, "
    "and contact our team if you need advice on sizes or care."
)


def shop_page(n: int, names: list[str], footer: str = "") -> str:
    rows = "".join(f"<li><a href='/p/{n}{k}'>{name}</a> <span>EUR {100 + n * 37 + k * 11}.00"
                   "</span></li>" for k, name in enumerate(names))
    return (f"<html><head><title>Garden furniture - page {n}</title></head><body><main>"
            f"<h1>Garden furniture</h1><p>{SHOP_INTRO}</p><ul>{rows}</ul></main>{footer}"
            "</body></html>")


def test_pages_of_one_listing_with_other_products_are_distinct():
    one = shop_page(1, ["Hazel stool", "Alder shelf", "Spruce planter", "Fir lounger", "Yew bench"])
    two = shop_page(2, ["Rowan table", "Sycamore chair", "Olive planter", "Willow stool", "Maple"])
    assert not is_near_duplicate(one, two)
    assert not is_near_duplicate(one, two, url_a="https://shop.example/garden?page=1",
                                 url_b="https://shop.example/garden?page=2")
    assert is_near_duplicate(one, one, url_a="https://shop.example/garden?page=1",
                             url_b="https://shop.example/garden?page=1&utm_source=x")


def test_two_unrelated_spanish_articles_are_not_near_duplicates(corpora_root):
    """Their heaviest words are de, la, que, el, los: the fingerprints alone came within the
    threshold; the 3-grams they do not share tell them apart."""
    folder = corpora_root / "readability-test-pages"
    a = (folder / "nytimes-5.html").read_bytes()
    b = (folder / "la-nacion.html").read_bytes()
    assert not is_near_duplicate(a, b)
    assert is_near_duplicate(a, a, url_a="https://a.example/x", url_b="https://a.example/x?s=1")


_HUB = ("<html><head><title>Harbour Courier</title></head><body><nav><a href='/'>Home</a>"
        "<a href='/news'>News</a></nav><main><ul>" + "".join(
            f"<li><a href='/news/{i}'>Headline number {i} about the harbour and its ferry</a></li>"
            for i in range(12)) + "</ul></main></body></html>")


@pytest.mark.parametrize("name", ALGORITHMS)
def test_a_page_without_main_text_is_not_signed_for_the_crawl(name):
    # its extraction falls back to its links' text, but that is no content to compare: a hub
    # dropped as a duplicate would take the links behind it with it
    from scrapy_simhash.extract import extraction_from_tree, parse_html

    root = parse_html(_HUB)
    extraction = extraction_from_tree(root)
    assert extraction.fallback and "Headline number 3" in extraction.text
    assert get_detector(name).sign_tree(root).signature is None


def _confirmed_pairs(detector, family) -> list[tuple[str, str]]:
    signed = [(url, detector.sign_html(html, None, url)) for url, html in family]
    # as the crawl judges them: what the URLs say first (two versions of a page, weak pages in
    # unrelated parts of a site)
    return [(url_a, url_b) for i, (url_a, a) in enumerate(signed) for url_b, b in signed[i + 1:]
            if not urls_part(url_a, url_b, a.evidence, b.evidence)
            and detector.is_duplicate(a, b, same_site=True)]


@pytest.mark.parametrize("make", [MinHashDetector, KSentenceDetector, ExactDetector],
                         ids=lambda make: make.name)
def test_every_algorithms_candidates_are_confirmed_by_the_evidence(make):
    """Distinct pages of one template (a listing's pages, job ads, tables, entity pages) share
    the short text a signature sees; the evidence tells them apart for every algorithm."""
    from benchmarks.hardneg.families import STILL_ALIKE, generated_families
    from benchmarks.hardneg.news import articles

    detector = make()
    families = generated_families()
    known = {(families[name][i][0], families[name][j][0])
             for name, pairs in STILL_ALIKE.items() for i, j in pairs}
    lost = {name: pairs for name, family in families.items()
            if (pairs := set(_confirmed_pairs(detector, family)) - known)}
    assert not lost
    # what the signatures alone would have taken for one (hundreds of pairs for MinHash)
    alike = 0
    for family in families.values():
        signatures = [detector.signature_html(html, None, url) for url, html in family]
        signatures = [signature for signature in signatures if signature is not None]
        alike += sum(detector.within_threshold(a, b) for i, a in enumerate(signatures)
                     for b in signatures[i + 1:])
    assert alike > 0
    url, article = articles(1)[0]
    reprint = article.replace("<body>", "<body><div class='share'>Share: Facebook, X</div>", 1)
    a, b = detector.sign_html(article, None, url), detector.sign_html(reprint, None, url + "?p")
    assert a.evidence is not None and detector.is_duplicate(a, b, same_site=True)


def test_short_items_with_other_figures_or_fields_are_two_records():
    """An item is its fields joined, one a line: a job in two cities, a shoe in two sizes."""
    detector = SimHashDetector()
    body = ("We are looking for reliable warehouse operatives to join our fulfilment team. You "
            "will pick, pack and dispatch orders, load deliveries and keep the warehouse tidy. "
            "Full training is given, overtime is paid at time and a half. Benefits include "
            "holidays that grow with your service, a pension with an employer contribution, "
            "free parking beside the depot, an on-site canteen and a discount on everything we "
            "sell in our shops and online. To apply, send your details through the form below; "
            "we answer every application within a week and invite most applicants to visit the "
            "warehouse before their first shift, with a colleague to show them around.")

    def item(*fields: str) -> Any:
        return detector.sign_text("\n".join(["Warehouse Operative", *fields, body]))

    leeds = item("Leeds, UK", "£12.10 per hour")
    site = "https://jobs.example/"
    assert detector.is_duplicate(leeds, item("Leeds, UK", "£12.10 per hour"), same_site=True)
    assert not detector.is_duplicate(leeds, item("Leeds, UK", "£12.40 per hour"),
                                     same_site=True)  # another figure: even on two sites
    assert not detector.is_duplicate(leeds, item("Leeds, UK", "£12.40 per hour"),
                                     same_site=False)
    assert not detector.is_duplicate(leeds, item("Glasgow, UK", "£12.10 per hour"),
                                     same_site=True)  # another field's word, on one site
    assert urls_part(site + "a", site + "b", leeds.evidence, leeds.evidence) is None
    # an edit in the long field is the same record
    edited = detector.sign_text("\n".join(["Warehouse Operative", "Leeds, UK",
                                           "£12.10 per hour", body.replace("tidy", "clean")]))
    assert detector.is_duplicate(leeds, edited, same_site=True)


def test_one_shell_around_other_embedded_documents_is_two_pages():
    """A site's viewer page, the same title and notice on every one, around another article
    in a frame (dropped, the crawl would never fetch the article)."""
    def viewer(number: int) -> str:
        return ("<html><head><title>Reader</title></head><body><header><a href='/'>Harbour "
                "Times</a></header><main><p>Reader mode is on. The article below is shown in "
                "a frame; use the buttons to change the text size, switch to night colours "
                "or print it, and the arrows to go to the next article in this section."
                f"</p><iframe src='/content/{number}'></iframe></main></body></html>")
    assert not is_near_duplicate(viewer(3), viewer(4), url_a="https://a.example/read/3",
                                 url_b="https://a.example/read/4")
    assert is_near_duplicate(viewer(3), viewer(3), url_a="https://a.example/read/3",
                             url_b="https://a.example/read/3?utm_source=x")


def test_pages_with_little_text_and_other_figures_are_two_pages():
    """Two classes of one grade: one notice, one timetable, another class number and room."""
    def class_page(number: int) -> str:
        return ("<html><head><title>Class homepage</title></head><body><header><a href='/'>"
                "Hill School</a></header><main><h1>Class homepage</h1><p>Wednesday is a "
                "holiday for the school's founding day. Hand in the trip form to your teacher "
                "by Friday. Lunch menus and after-school clubs are on the school's notice "
                f"board.</p><p>Class 2-{number}, room 2{number}0</p></main></body></html>")
    assert not is_near_duplicate(class_page(1), class_page(3), url_a="https://s.example/c/1",
                                 url_b="https://s.example/c/3")
    assert is_near_duplicate(class_page(1), class_page(1), url_a="https://s.example/c/1",
                             url_b="https://s.example/c/1?utm_source=x")


def test_short_pages_are_told_apart_by_the_figures_of_their_asides():
    """Two flats of one building, one description: each flat's floor and price only in the
    summary box in the page's ``<aside>``, which the main text leaves out with the sidebars; a
    copy at another URL has the same box."""
    from benchmarks.hardneg.siblings import summary_asides

    pages = summary_asides()
    (url_a, a), (url_b, b) = pages[2], pages[3]  # (one price, another floor and aspect)
    assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
    (url_a, a), (url_b, b) = pages[2], pages[5]  # (one price, another floor)
    assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
    assert is_near_duplicate(a, a, url_a=url_a, url_b=url_a + "?utm_source=feed")


def test_short_pages_are_told_apart_by_the_figures_of_a_div_sidebar():
    """The same, the facts in a ``<div class="sidebar">`` or ``<div id="sidebar">``: the
    markup of sidebars before ``<aside>``."""
    from benchmarks.hardneg.siblings import frame_sizes_fr, sidebar_plots

    for pages in (sidebar_plots(), frame_sizes_fr()):
        (url_a, a), (url_b, b) = pages[:2]
        assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
        assert is_near_duplicate(a, a, url_a=url_a, url_b=url_a + "&utm_source=feed"
                                 if "?" in url_a else url_a + "?utm_source=feed")


def test_an_archives_pages_are_distinct_however_its_cards_are_read():
    """A category archive's pages under one introduction: the last page's two cards are read as
    its text, a full page's four as its chrome; each links posts the other does not."""
    from benchmarks.hardneg.listing_states import archive_pages

    (url_last, last), (url_1, first), (url_2, second) = archive_pages()[:3]
    assert not is_near_duplicate(last, first, url_a=url_last, url_b=url_1)
    assert not is_near_duplicate(first, second, url_a=url_1, url_b=url_2)
    assert is_near_duplicate(first, first, url_a=url_1, url_b=url_1 + "?utm_source=feed")
    assert is_near_duplicate(last, last, url_a=url_last, url_b=url_last + "?utm_source=feed")


def test_pages_that_a_query_parameter_chooses_are_distinct():
    """A status page per region (``?region=fra1``): one title and text but the region's name,
    which the URL gives as a code; a copy under a campaign's URL is the same page."""
    from benchmarks.hardneg.choices import status_regions

    (url_a, a), (url_b, b) = status_regions()[:2]
    assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
    assert is_near_duplicate(a, a, url_a=url_a, url_b=url_a + "&utm_source=feed")


def test_pages_that_declare_their_own_canonical_urls_are_distinct():
    """A shop's terms of sale per country: one long text but another seller, law and authority
    in two sentences, each page its own canonical URL; a tracking copy declares the same one,
    a print version none."""
    from benchmarks.hardneg.choices import terms_per_country

    (url_a, a), (url_b, b) = terms_per_country()[:2]
    assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
    # (one canonical URL for both: at another locale's URL, the locale's edition still)
    assert is_near_duplicate(a, b.replace(url_b, url_a), url_a=url_a,
                             url_b=url_a + "?utm_source=feed")
    assert not is_near_duplicate(a, b.replace(url_b, url_a), url_a=url_a, url_b=url_b)
    assert is_near_duplicate(a, a, url_a=url_a, url_b=url_a + "?utm_source=feed")
    printed = a.replace(f'<link rel="canonical" href="{url_a}">', "")
    assert is_near_duplicate(a, printed, url_a=url_a, url_b=url_a + "/print")


def test_shells_are_told_apart_by_the_figures_of_their_data():
    """Client-rendered shells with the same notice on every page, each product's id and price
    only in a data script of a few short fields: too little of a rest to compare, but other
    figures; a copy at another URL has the same data."""
    from benchmarks.hardneg.shells import short_data_shells

    (url_a, a), (url_b, b) = short_data_shells()[:2]
    assert not is_near_duplicate(a, b, url_a=url_a, url_b=url_b)
    assert is_near_duplicate(a, a, url_a=url_a, url_b=url_a + "?utm_source=feed")
