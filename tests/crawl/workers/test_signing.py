"""A worker computes what the inline path computes: the same text, the same tree, the same bits."""

from __future__ import annotations

import codecs

import pytest
from corpora import iter_pages
from lxml import etree
from scrapy.http import HtmlResponse

from scrapy_simhash.crawl.settings import SimhashConfig, build_detector
from scrapy_simhash.crawl.signing import (
    READ_AS_UTF8,
    TREE_UNAVAILABLE,
    meta_misleads_scrapy,
    page_signature,
    rebuilt_response,
    response_parts,
    tree_from_body,
)

ARTICLE = ("<html><head><title>潮汐</title></head><body><article><h1>潮汐为什么会转向</h1>"
           + "<p>月球的引力拉动海水，沿岸的水位每天上涨两次，渔民据此安排出海的时间。</p>" * 5
           + "</article></body></html>")


def _response(body: bytes, content_type: str, encoding: str | None = None) -> HtmlResponse:
    headers = {"Content-Type": content_type} if content_type else {}
    return HtmlResponse("http://example.com/a", body=body, headers=headers, encoding=encoding)


def _text(response: HtmlResponse) -> str | None:
    try:
        return response.text
    except Exception:
        return None


@pytest.mark.parametrize(("body", "content_type", "encoding"), [
    (ARTICLE.encode("utf-8"), "text/html; charset=utf-8", None),
    (ARTICLE.encode("gbk"), "text/html; charset=gbk", None),
    (ARTICLE.encode("gb18030"), "text/html", None),  # inferred: no declaration anywhere
    (ARTICLE.replace("<head>", "<head><meta charset='gb2312'>").encode("gb2312"), "", None),
    (b"\xef\xbb\xbf" + ARTICLE.encode("utf-8"), "text/html; charset=latin-1", None),  # BOM wins
    (ARTICLE.encode("big5", "replace"), "text/html; charset=big5", None),
    (ARTICLE.encode("gbk"), "text/html; charset=utf-8", "gbk"),  # given when the response was made
    (ARTICLE.encode("utf-8"), "text/html; charset=zlib", None),  # Scrapy cannot decode it
])
def test_the_rebuilt_response_decodes_and_signs_like_the_crawls(body, content_type, encoding):
    detector = build_detector(SimhashConfig())
    response = _response(body, content_type, encoding)
    rebuilt = rebuilt_response(*response_parts(response))
    assert _text(rebuilt) == _text(response)
    assert page_signature(detector, rebuilt) == page_signature(detector, response)


def test_an_undecodable_body_is_signed_from_the_raw_html_with_a_note():
    detector = build_detector(SimhashConfig())
    response = _response(ARTICLE.encode(), "text/html; charset=zlib")
    signature, note = page_signature(detector, response)
    # w3lib before 2.6 raises on a codec that is not a text encoding; 2.6 reads it as UTF-8
    assert note == (TREE_UNAVAILABLE if _text(response) is None else None)
    assert signature == detector.sign_html(ARTICLE.encode())


LABELLED = ARTICLE.replace("<head>", "<head><meta charset='{charset}'>")


@pytest.mark.parametrize(("body", "content_type"), [
    (LABELLED.format(charset="gb2312").encode("utf-8"), "text/html"),  # its <meta> lies
    (ARTICLE.encode("utf-8"), "text/html; charset=gbk"),  # its header lies
    (LABELLED.format(charset="shift_jis").encode("utf-8"), ""),
])
def test_a_utf8_body_under_a_legacy_label_is_read_as_utf8(body, content_type):
    detector = build_detector(SimhashConfig())
    lying = _response(body, content_type)
    assert "月球" not in lying.text  # Scrapy follows the label: mojibake
    signature, note = page_signature(detector, lying)
    assert note == READ_AS_UTF8
    true = _response(LABELLED.format(charset="utf-8").encode("utf-8"), "text/html")
    assert signature == page_signature(detector, true)[0]
    rebuilt = rebuilt_response(*response_parts(lying))  # a worker's copy: the same
    assert page_signature(detector, rebuilt, own_copy=True) == (signature, note)


def test_a_body_in_its_legacy_charset_keeps_scrapys_reading():
    detector = build_detector(SimhashConfig())
    for codec in ("gb2312", "gbk"):
        body = LABELLED.format(charset=codec).encode(codec)
        assert page_signature(detector, _response(body, "text/html"))[1] is None, codec
    latin = ENGLISH.replace("Tides", "Marées").format(charset="windows-1252").encode("cp1252")
    assert page_signature(detector, _response(latin, "text/html"))[1] is None


ENGLISH = ("<html><head><meta charset='{charset}'><title>Tides</title></head><body><article>"
           "<h1>Why the tide turns</h1>"
           + "<p>The moon pulls the sea, and the water along the coast rises twice a day, so the "
             "fishermen plan their trips by it.</p>" * 5
           + "</article></body></html>")


def test_a_page_whose_meta_names_utf16_is_signed_as_the_utf8_browsers_read():
    detector = build_detector(SimhashConfig())
    labelled = _response(ENGLISH.format(charset="utf-8").encode(), "text/html")
    misleading = _response(ENGLISH.format(charset="utf-16").encode(), "text/html")
    # w3lib before 2.6 believes the label (its text is noise); 2.6 reads UTF-8, as browsers do
    believed = misleading.encoding == "utf-16"
    signature, note = page_signature(detector, misleading)
    assert note == (TREE_UNAVAILABLE if believed else None)
    assert signature is not None
    assert detector.is_duplicate(signature, page_signature(detector, labelled)[0])
    rebuilt = rebuilt_response(*response_parts(misleading))  # a worker's copy: the same
    assert page_signature(detector, rebuilt, own_copy=True) == (signature, note)


def test_a_meta_naming_utf16_under_a_header_label_scrapy_ignores_is_read_as_utf8():
    """An unknown label in the header is no declaration to Scrapy: it reads the meta."""
    detector = build_detector(SimhashConfig())
    labelled = _response(ENGLISH.format(charset="utf-8").encode(), "text/html")
    misleading = _response(ENGLISH.format(charset="utf-16").encode(),
                           "text/html; charset=x-no-such-label")
    signature, _ = page_signature(detector, misleading)
    assert detector.is_duplicate(signature, page_signature(detector, labelled)[0])


@pytest.mark.parametrize(("body", "content_type", "encoding"), [
    (ENGLISH.format(charset="utf-16").encode("utf-16"), "text/html", None),  # byte-order mark
    (ENGLISH.format(charset="utf-16").encode("utf-32"), "text/html", None),  # UTF-32's mark
    (ENGLISH.format(charset="utf-16").encode("utf-32-be"), "text/html", "utf-32-be"),
    (ENGLISH.format(charset="utf-16").encode("utf-16-le"), "text/html; charset=utf-16le", None),
    (ENGLISH.format(charset="utf-16").encode("utf-16-le"), "text/html", "utf-16-le"),  # given
])
def test_a_utf16_page_declared_outside_its_meta_keeps_scrapys_tree(body, content_type, encoding):
    detector = build_detector(SimhashConfig())
    response = _response(body, content_type, encoding)
    signature, note = page_signature(detector, response)
    assert note is None
    assert signature == detector.sign_tree(response.selector.root)
    assert detector.is_duplicate(signature, page_signature(
        detector, _response(ENGLISH.format(charset="utf-8").encode(), "text/html"))[0])


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_wide_page_declared_without_byte_order_is_read_in_the_order_of_its_bytes(codec):
    """Scrapy reads a ``charset=utf-16`` body big-endian whatever its bytes say; the crawl's
    signature is the one of the same page in UTF-8."""
    detector = build_detector(SimhashConfig())
    family = codec[:6]
    html = ENGLISH.format(charset=family)
    response = _response(html.encode(codec), f"text/html; charset={family}")
    signature, note = page_signature(detector, response)
    assert note == TREE_UNAVAILABLE
    utf8 = page_signature(detector, _response(html.encode(), "text/html"))
    assert signature.signature == utf8[0].signature


@pytest.mark.parametrize("codec", ["utf-32-le", "utf-32-be", "utf-16-be"])
def test_a_wide_page_declared_with_its_byte_order_is_read_in_that_order(codec):
    """w3lib 2.6 knows no UTF-32 label and reads ``charset=utf-32le`` bodies as cp1252: the
    crawl's signature is still the one of the same page in UTF-8."""
    detector = build_detector(SimhashConfig())
    html = ENGLISH.format(charset=codec[:6])
    response = _response(html.encode(codec), f"text/html; charset={codec[:6] + codec[7:]}")
    signature, note = page_signature(detector, response)
    read_right = codecs.lookup(response.encoding).name == codecs.lookup(codec).name
    assert note == (None if read_right else TREE_UNAVAILABLE)
    utf8 = page_signature(detector, _response(html.encode(), "text/html"))
    assert signature.signature == utf8[0].signature


def test_a_byte_order_mark_scrapy_honours_is_believed_over_the_meta():
    """Every mark Scrapy reads (w3lib's read_bom), UTF-32's big-endian one included, even
    before an ASCII body: Scrapy and the library both decode by the mark."""
    body = ENGLISH.format(charset="utf-16").encode()
    for mark in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE,
                 codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE):
        assert not meta_misleads_scrapy(_response(mark + body, "text/html")), mark
    plain = _response(body, "text/html")
    assert meta_misleads_scrapy(plain) == (plain.encoding == "utf-16")  # w3lib < 2.6 only
    assert not meta_misleads_scrapy(_response(body, "text/html; charset=utf-16"))


def _same_tree_or_declined(response: HtmlResponse) -> bool:
    """tree_from_body gives the selector's very document, or declines; True when it did not
    decline."""
    fast = tree_from_body(response)
    if fast is None:
        return False
    assert etree.tostring(fast, encoding="unicode") == etree.tostring(
        response.selector.root, encoding="unicode"
    )
    return True


@pytest.mark.scrapy_version_independent
def test_every_corpus_page_gets_the_same_signature_in_a_worker(corpora_root):
    """Through the rebuilt response's selector, and through tree_from_body where it parses the
    body itself (the selector's very document)."""
    detector = build_detector(SimhashConfig())
    fast = checked = 0
    for page in iter_pages():
        for content_type in (f"text/html; charset={page.encoding}" if page.encoding else "",
                             "text/html"):
            response = _response(page.html, content_type)
            rebuilt = rebuilt_response(*response_parts(response))
            assert _text(rebuilt) == _text(response), page.id
            inline = page_signature(detector, response)
            assert page_signature(detector, rebuilt) == inline, page.id
            if _same_tree_or_declined(rebuilt):
                fast += 1
                assert page_signature(detector, rebuilt, own_copy=True) == inline, page.id
            checked += 1
    assert checked > 900
    assert fast > checked / 2  # most of the web is UTF-8


UTF8 = "text/html; charset=utf-8"


@pytest.mark.parametrize(("body", "content_type"), [
    (b"\xef\xbb\xbf" + ARTICLE.encode(), UTF8),  # byte-order mark
    (ARTICLE.encode().replace(b"<h1>", b"<h1>\x00"), UTF8),  # NUL: parsel removes it
    (("\u3000" + ARTICLE).encode(), UTF8),  # str.strip() removes more than bytes.strip()
    (("\xa0" + ARTICLE).encode(), UTF8),
    (("\x1c" + ARTICLE).encode(), UTF8),
    ((ARTICLE + "\x85").encode(), UTF8),
    (ARTICLE.encode().replace("潮".encode(), b"\xe6\xbd"), UTF8),  # invalid UTF-8
    (ARTICLE.encode("gbk"), "text/html; charset=gbk"),
    (ARTICLE.encode("gbk"), UTF8),  # mislabelled: not UTF-8 at all
    (ARTICLE.encode(), "text/html; charset=zlib"),  # Scrapy cannot decode it (w3lib < 2.6)
])
def test_declines_where_the_selector_would_read_other_bytes(body, content_type):
    response = _response(body, content_type)
    assert tree_from_body(response) is None or (
        content_type.endswith("zlib") and _same_tree_or_declined(response))
    detector = build_detector(SimhashConfig())
    assert page_signature(detector, response, own_copy=True) == page_signature(
        detector, _response(body, content_type)
    )


@pytest.mark.parametrize(("body", "content_type"), [
    (ARTICLE.encode(), UTF8),
    (ARTICLE.encode(), "text/html; charset=UTF8"),
    (b"  \r\n\t" + ARTICLE.encode() + b"\n\n", UTF8),  # blanks both strips remove
    (ARTICLE.replace("<head>", "<head><meta charset='utf-8'>").encode(), ""),  # in the page
    (ARTICLE.encode().replace(b"<h1>", b"<h1>\x01"), UTF8),  # a control character, valid UTF-8
])
def test_parses_utf8_bodies_into_the_selectors_document(body, content_type):
    response = _response(body, content_type)
    assert _same_tree_or_declined(response) or b"\x01" in body
    detector = build_detector(SimhashConfig())
    assert page_signature(detector, response, own_copy=True) == page_signature(
        detector, _response(body, content_type)
    )


class _RecordingExtractor:
    """A custom extractor (``SIMHASH_EXTRACTOR``) that records what it is given."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, str | None, str | None]] = []

    def __call__(self, html, encoding=None, url=None) -> str:
        from scrapy_simhash.extract import extract_main_text

        self.calls.append((html, encoding, url))
        return extract_main_text(html, encoding, url)


@pytest.mark.parametrize(("content_type", "encoding", "expected"), [
    ("text/html; charset=gbk", None, "gbk"),  # the HTTP header's charset, as w3lib reads it
    ("text/html", None, None),  # nothing declared outside the page: the extractor reads it
    ("text/html; charset=utf-8", "gbk", "gbk"),  # given when the response was made
])
def test_an_html_extractor_gets_the_pages_bytes_and_url(content_type, encoding, expected):
    from w3lib.encoding import http_content_type_encoding

    from scrapy_simhash.detectors import SimHashDetector

    if encoding is None and expected == "gbk":  # gb18030 before w3lib 2.6
        expected = http_content_type_encoding(content_type)
    recorder = _RecordingExtractor()
    detector = SimHashDetector(extractor=recorder)
    body = ARTICLE.encode("gbk")
    response = _response(body, content_type, encoding)
    signature, note = page_signature(detector, response)
    assert recorder.calls == [(body, expected, "http://example.com/a")]
    assert signature.signature == detector.fingerprinter.fingerprint_html(body, expected,
                                                                "http://example.com/a")
    assert note is None


def test_is_near_duplicate_gives_an_html_extractor_the_urls():
    from scrapy_simhash.crawl.signing import is_near_duplicate
    from scrapy_simhash.detectors import SimHashDetector

    recorder = _RecordingExtractor()
    is_near_duplicate(ARTICLE, ARTICLE.encode("utf-8"), url_a="https://a.example/1",
                      url_b="https://b.example/2", detector=SimHashDetector(extractor=recorder))
    assert [(encoding, url) for _, encoding, url in recorder.calls] == [
        ("utf-8", "https://a.example/1"), (None, "https://b.example/2")]
