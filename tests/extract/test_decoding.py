"""decode_html: BOM, HTTP header, <meta>, UTF-8, and the GB18030 / Big5 / cp1252 guess."""

from __future__ import annotations

import codecs

import pytest

from scrapy_simhash.extract import decode_html, extract_main_text, parse_html
from scrapy_simhash.extract.decoding import (
    NOT_UTF8,
    UTF8,
    UTF8_IF_VALID,
    is_utf8_page,
    normalize_encoding,
    sniff_declared_encoding,
    utf8_expectation,
)
from scrapy_simhash.extract.parsing import looks_binary
from scrapy_simhash.fingerprint import Fingerprinter

SIMPLIFIED = "潮汐电站几乎没有声音。渔民们说，在防波堤上晒太阳的海豹没有离开，海底调查也没有发现。"
TRADITIONAL = "潮汐電站幾乎沒有聲音。漁民們說，在防波堤上曬太陽的海豹沒有離開，海底調查也沒有發現。"
FRENCH = "Le café était déjà fermé, et l'été touchait à sa fin ; les élèves rentraient à pied."


def page(body: str, charset: str | None = None, http_equiv: bool = False) -> str:
    if charset is None:
        head = ""
    elif http_equiv:
        head = f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'
    else:
        head = f'<meta charset="{charset}">'
    return f"<html><head>{head}<title>t</title></head><body><p>{body}</p></body></html>"


@pytest.mark.parametrize(
    ("label", "codec", "text"),
    [
        ("gb2312", "gbk", SIMPLIFIED),
        ("GBK", "gbk", SIMPLIFIED),
        ("gb18030", "gb18030", SIMPLIFIED + "𠀀"),  # a character only GB18030 has
        ("big5", "big5", TRADITIONAL),
        ("shift_jis", "cp932", "潮の満ち引きで動く発電所が、月曜日に運転を始めました。"),
        ("iso-8859-1", "cp1252", FRENCH + " “quoted”"),  # browsers read Latin-1 as cp1252
    ],
)
@pytest.mark.parametrize("http_equiv", [False, True])
def test_meta_charset(label, codec, text, http_equiv):
    body = page(text, label, http_equiv).encode(codec)
    assert text in decode_html(body)
    assert text in extract_main_text(body)


@pytest.mark.parametrize(("codec", "text"), [("gbk", SIMPLIFIED), ("big5", TRADITIONAL)])
def test_http_header_encoding_overrides_a_wrong_meta(codec, text):
    body = page(text, "iso-8859-1").encode(codec)
    assert text in decode_html(body, codec)
    assert text in extract_main_text(body, encoding=codec)


def test_gb2312_header_decodes_as_gb18030_superset():
    text = SIMPLIFIED + "镕𠀀"  # 镕 is GBK, not GB2312; 𠀀 is GB18030 only
    assert text in decode_html(page(text).encode("gb18030"), "gb2312")


@pytest.mark.parametrize(
    ("bom_codec", "prefix"),
    [
        ("utf-8", codecs.BOM_UTF8),
        ("utf-16-le", codecs.BOM_UTF16_LE),
        ("utf-16-be", codecs.BOM_UTF16_BE),
    ],
)
def test_bom_wins_over_header_and_meta(bom_codec, prefix):
    body = prefix + page(SIMPLIFIED, "gbk").encode(bom_codec)
    decoded = decode_html(body, "iso-8859-1")
    assert SIMPLIFIED in decoded
    assert not decoded.startswith("\ufeff")
    assert SIMPLIFIED in extract_main_text(body, encoding="iso-8859-1")


def test_meta_says_utf8_but_bytes_are_gbk():
    body = page(SIMPLIFIED, "utf-8").encode("gbk")
    assert SIMPLIFIED in decode_html(body)


def test_meta_says_gbk_but_bytes_are_utf8():
    body = page(SIMPLIFIED, "gbk").encode("utf-8")
    assert SIMPLIFIED in decode_html(body)
    assert SIMPLIFIED in extract_main_text(body)


def test_header_says_latin1_but_bytes_are_utf8():
    body = page(FRENCH).encode("utf-8")
    assert FRENCH in decode_html(body, "iso-8859-1")


@pytest.mark.parametrize(
    ("codec", "text"),
    [("gbk", SIMPLIFIED), ("gb18030", SIMPLIFIED), ("big5", TRADITIONAL), ("cp1252", FRENCH)],
)
def test_undeclared_legacy_encodings_are_guessed(codec, text):
    body = page(text * 3).encode(codec)
    assert text in decode_html(body)


def test_unknown_labels_are_ignored():
    body = page(SIMPLIFIED, "x-no-such-charset").encode("utf-8")
    assert SIMPLIFIED in decode_html(body, "also-not-a-charset")


def test_a_page_cut_inside_a_character_stays_utf8():
    body = page(SIMPLIFIED * 10).encode("utf-8")[:-30]
    body = body[: len(body) - 1]  # very likely inside a 3-byte character now
    assert SIMPLIFIED in decode_html(body)


@pytest.mark.parametrize(
    ("body", "unlabelled", "as_utf16"),
    [
        (b"", "", ""),
        (b"\xff", "\xff", "\ufffd"),  # not UTF-8: the cp1252 guess ("ÿ"); half a UTF-16 unit
        (b"\x00" * 10, "\x00" * 10, "\x00" * 5),  # ASCII is UTF-8
        (bytes(range(256)), bytes(range(256)).decode("cp1252", "replace"),
         bytes(range(256)).decode("utf-16-le", "replace")),
        (b"<meta charset=>", "<meta charset=>",  # an empty label declares nothing
         b"<meta charset=>".decode("utf-16-le", "replace")),
    ],
)
def test_never_raises(body, unlabelled, as_utf16):
    assert decode_html(body) == unlabelled
    assert decode_html(body, "utf-16") == as_utf16  # an HTTP header's UTF-16 is believed


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("GB2312", "gb18030"),
        ("gbk", "gb18030"),
        ("x-gbk", "gb18030"),
        ("Big5", "big5hkscs"),
        ("ISO-8859-1", "cp1252"),
        ("us-ascii", "cp1252"),
        ("UTF8", "utf-8"),
        (' "utf-8" ', "utf-8"),
        ("euc-kr", "cp949"),
        ("utf-16le", "utf-16-le"),
        ("UTF-16BE", "utf-16-be"),
        ("utf-16", "utf-16-le"),
        ("nonsense", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_encoding(label, expected):
    assert normalize_encoding(label) == expected


def test_utf8_fast_path_agrees_with_decode_html():
    samples = [
        page(SIMPLIFIED, "utf-8").encode("utf-8"),
        page(SIMPLIFIED, "gbk").encode("utf-8"),
        page("ascii only", "gbk").encode("ascii"),
        page(SIMPLIFIED, "gbk").encode("gbk"),
        codecs.BOM_UTF8 + page(SIMPLIFIED).encode("utf-8"),
    ]
    assert [is_utf8_page(body) for body in samples] == [True, True, True, False, False]
    for body in samples[:3]:
        assert decode_html(body) == body.decode("utf-8")
    assert decode_html(samples[3]) == samples[3].decode("gbk")  # the label, not UTF-8
    assert decode_html(samples[4]) == samples[4][3:].decode("utf-8")  # the BOM stripped


@pytest.mark.parametrize(
    ("body", "encoding", "expected"),
    [
        (page("ascii only", "gbk").encode("ascii"), None, UTF8),
        (page(SIMPLIFIED).encode("utf-8"), None, UTF8_IF_VALID),
        (page(SIMPLIFIED, "utf-8").encode("utf-8"), None, UTF8_IF_VALID),
        (page(SIMPLIFIED, "gbk").encode("utf-8"), None, UTF8),  # a lying legacy label
        (page(SIMPLIFIED, "gbk").encode("gbk"), None, NOT_UTF8),
        (page(SIMPLIFIED).encode("gbk"), "gbk", NOT_UTF8),
        (codecs.BOM_UTF8 + page(SIMPLIFIED).encode("utf-8"), None, NOT_UTF8),
        (page("ascii only").encode("ascii"), "utf-16-le", NOT_UTF8),
    ],
)
def test_utf8_expectation(body, encoding, expected):
    assert utf8_expectation(body, encoding) == expected


@pytest.mark.parametrize(
    ("codec", "text"), [("gbk", SIMPLIFIED), ("big5", TRADITIONAL), ("cp1252", FRENCH)]
)
def test_unlabelled_legacy_page_is_reparsed_when_libxml2_finds_invalid_utf8(codec, text):
    body = page(text).encode(codec)  # no label: parsed as UTF-8 first, then decoded and reparsed
    assert utf8_expectation(body) == UTF8_IF_VALID
    assert text in extract_main_text(body)


def test_invalid_utf8_is_caught_after_libxml2_stops_reporting_errors():
    # Over a hundred parse errors before the first non-UTF-8 byte: libxml2's error cap.
    noise = "</zz><a <>x" * 300
    body = page(noise + SIMPLIFIED).encode("gbk")
    assert text_of(parse_html(body)).endswith(SIMPLIFIED)


def text_of(root) -> str:
    return "".join(root.itertext())


ENGLISH_QUOTED = "“We will rebuild,” the mayor said — and the residents agreed. " * 8


@pytest.mark.parametrize("text", [SIMPLIFIED * 4, ENGLISH_QUOTED])
def test_a_stray_byte_leaves_an_unlabelled_utf8_page_utf8(text):
    body = page(text).encode("utf-8").replace(b"</p>", b"\xa0</p>")  # one Latin-1 NBSP
    assert text in decode_html(body)
    assert text in extract_main_text(body)


@pytest.mark.parametrize(
    ("codec", "text"),
    [("gbk", SIMPLIFIED), ("big5", TRADITIONAL), ("cp1252", FRENCH), ("cp1252", "Un café.")],
)
def test_unlabelled_legacy_pages_with_some_utf8_lookalikes_stay_legacy(codec, text):
    # Stray UTF-8 (a pasted "“…”" or "é") does not outvote the page's own encoding.
    body = page(text * 3).encode(codec) + "“quoted” é".encode()
    assert text in decode_html(body)


@pytest.mark.parametrize(("codec", "text"), [("gbk", SIMPLIFIED), ("cp1252", FRENCH)])
def test_a_long_ascii_head_does_not_hide_the_encoding(codec, text):
    script = "<script>" + "var x = 1;\n" * 4_000 + "</script>"  # 44 KB of ASCII first
    body = page(script + text * 3).encode(codec)
    assert text in decode_html(body)
    body = page(script + SIMPLIFIED * 4).encode("utf-8").replace(b"</p>", b"\xa0</p>")
    assert SIMPLIFIED in decode_html(body)


@pytest.mark.parametrize(
    "head",
    [
        '<!-- <meta charset="iso-8859-1"> --><meta charset="gbk">',
        '<meta name="description" content="Set charset=latin1 in MySQL"><meta charset="gbk">',
        '<meta content="charset=big5"><meta http-equiv="content-type" content="charset=gbk">',
        '<meta property="og:title" content="x"><META HTTP-EQUIV=Content-Type CONTENT=charset=gbk>',
        '<!---><meta charset="gbk"><!-- <meta charset="big5"> -->',
        '<meta charset="no-such-charset"><meta charset=gbk/>',
    ],
)
def test_meta_prescan_skips_comments_and_other_attributes(head):
    body = f"<html><head>{head}<title>t</title></head><body><p>{SIMPLIFIED}</p>".encode("gbk")
    assert sniff_declared_encoding(body) == "gb18030"
    assert SIMPLIFIED in decode_html(body)
    assert SIMPLIFIED in extract_main_text(body)


@pytest.mark.parametrize(
    "head",
    [
        '<meta name="Content-Type" content="text/html; charset=iso-8859-1">',
        '<meta http-equiv="refresh" content="5; charset=iso-8859-1">',
        '<!-- <meta charset="iso-8859-1">',  # an unclosed comment runs to the end
        "<meta-charset=iso-8859-1>",
    ],
)
def test_meta_prescan_ignores_what_declares_no_charset(head):
    assert sniff_declared_encoding(f"<html><head>{head}</head>".encode()) is None


@pytest.mark.parametrize(
    ("codec", "label"),
    [
        ("utf-16-le", "utf-16le"),
        ("utf-16-le", "UTF-16LE"),
        ("utf-16-be", "utf-16be"),
        ("utf-16-le", "utf-16"),  # no byte-order mark: little-endian (WHATWG)
        ("utf-16-le", "utf-16-le"),
    ],
)
def test_utf16_without_a_bom_decodes_when_the_caller_names_it(codec, label):
    text = SIMPLIFIED + " " + FRENCH
    body = page(text).encode(codec)
    assert looks_binary(body)  # half NUL bytes: without the label it is not text
    assert not looks_binary(body, label)
    assert text in decode_html(body, label)
    assert text in extract_main_text(body, label)


@pytest.mark.parametrize("label", ["utf-16", "utf-16le", "UTF-16BE", "utf-32"])
def test_a_utf16_label_in_the_page_itself_means_utf8(label):
    body = page(SIMPLIFIED, label).encode("utf-8")
    assert sniff_declared_encoding(body) == "utf-8"
    assert SIMPLIFIED in decode_html(body)
    body = f'<?xml version="1.0" encoding="{label}"?><p>{SIMPLIFIED}</p>'.encode()
    assert sniff_declared_encoding(body) == "utf-8"
    assert SIMPLIFIED in decode_html(body + b"\xa0")


# -- Labels: only the WHATWG Encoding Standard's (and UTF-32's) name a codec ---------------

PYTHON_ONLY_CODECS = [
    "punycode",
    "utf-7",
    "UTF_7",
    "unicode_escape",
    "raw_unicode_escape",
    "zlib",
    "base64",
    "rot13",
    "idna",
]


@pytest.mark.parametrize("label", PYTHON_ONLY_CODECS)
def test_python_only_codec_names_are_unknown_labels(label):
    # punycode decodes in quadratic time; utf-7 turns "+ADw-script+AD4-" into "<script>"
    assert normalize_encoding(label) is None
    unknown = page(FRENCH * 3, "x-no-such-charset").encode("cp1252") + b"-" + b"a" * 2000
    body = unknown.replace(b"x-no-such-charset", label.encode())
    assert sniff_declared_encoding(body) is None
    assert decode_html(body) == decode_html(unknown).replace("x-no-such-charset", label)
    assert decode_html(unknown, label) == decode_html(unknown)  # as a header's label
    fingerprinter = Fingerprinter()
    expected = fingerprinter.fingerprint_html(unknown)
    assert expected is not None
    assert fingerprinter.fingerprint_html(body) == expected
    assert fingerprinter.fingerprint_html(unknown, label) == expected


def test_a_utf7_label_does_not_turn_ascii_into_markup():
    body = page("+ADw-script+AD4-alert(1)+ADw-/script+AD4- " + "plain words " * 10).encode()
    assert "<script>" not in decode_html(body, "utf-7")
    assert "+ADw-script+AD4-alert(1)" in extract_main_text(body, "utf-7")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("iso-2022-jp", "iso2022_jp"),
        ("iso2022_jp", "iso2022_jp"),  # Scrapy's response.encoding: the codec's own name
        ("csISO2022JP", "iso2022_jp"),
        ("euc-jp", "euc_jp"),
        ("windows-1251", "cp1251"),
        ("koi8-r", "koi8-r"),
        ("cp932", "cp932"),
        ("utf-16-le", "utf-16-le"),
        ("utf-32", "utf-32"),
        ("utf-32le", "utf-32-le"),
        ("UTF-32BE", "utf-32-be"),
        ("utf_32_le", "utf-32-le"),
        ("latin_1", "cp1252"),
        ("cp936", "gb18030"),
    ],
)
def test_whatwg_labels_and_codec_names_are_known(label, expected):
    assert normalize_encoding(label) == expected


# -- ISO-2022-JP: 7-bit, so all ASCII bytes, but not ASCII text ----------------------------

JAPANESE = "潮の満ち引きで動く発電所が、月曜日に運転を始めました。" * 5
# A change of script (kanji/kana <-> ASCII) every few characters: an ESC sequence each time.
JAPANESE_SWITCHING = "".join(f"{i}号機は{i * 7}時に{chr(65 + i % 26)}棟で" for i in range(60))


@pytest.mark.parametrize("text", [JAPANESE, JAPANESE_SWITCHING])
@pytest.mark.parametrize(
    ("in_meta", "header"),
    [(False, "iso-2022-jp"), (False, "iso2022_jp"), (True, None), (True, "iso-2022-jp")],
)
def test_iso2022jp_pages_are_decoded_with_their_codec(text, in_meta, header):
    html = page(text, "iso-2022-jp" if in_meta else None)
    body = html.encode("iso2022_jp")
    assert body.isascii() and b"\x1b$B" in body
    assert utf8_expectation(body, header) == NOT_UTF8
    assert not is_utf8_page(body, header)
    assert decode_html(body, header) == html
    assert text in extract_main_text(body, header)
    fingerprinter = Fingerprinter()
    expected = fingerprinter.fingerprint_html(page(text).encode("utf-8"))
    assert expected is not None
    assert fingerprinter.fingerprint_html(body, header) == expected


def test_an_ascii_page_labelled_iso2022jp_reads_as_ascii():
    body = page("plain words " * 10, "iso-2022-jp").encode("ascii")
    assert decode_html(body) == body.decode("ascii")
    assert "plain words" in extract_main_text(body, "iso-2022-jp")


def test_iso2022jp_escapes_are_not_control_bytes():
    body = page(JAPANESE_SWITCHING).encode("iso2022_jp")
    assert body.count(b"\x1b") * 10 > len(body)  # over 10% ESC bytes
    assert looks_binary(body)  # without a label: too many control bytes
    for label in ("iso-2022-jp", "ISO-2022-JP", "iso2022_jp", "csiso2022jp"):
        assert not looks_binary(body, label)
    assert looks_binary(body, "utf-8")
    assert not looks_binary(page(JAPANESE_SWITCHING, "iso-2022-jp").encode("iso2022_jp"))


def test_binary_stays_binary_with_an_iso2022_label():
    body = bytes(range(32)) * 100
    assert looks_binary(body)
    assert looks_binary(body, "iso-2022-jp")


# -- UTF-32 ---------------------------------------------------------------------------------

UTF32_PAGES = [
    # (body, header label)
    (codecs.BOM_UTF32_BE + page(SIMPLIFIED + " " + FRENCH).encode("utf-32-be"), None),
    (codecs.BOM_UTF32_LE + page(SIMPLIFIED + " " + FRENCH).encode("utf-32-le"), None),
    (codecs.BOM_UTF32_BE + page(SIMPLIFIED + " " + FRENCH).encode("utf-32-be"), "iso-8859-1"),
    (page(SIMPLIFIED + " " + FRENCH).encode("utf-32-le"), "utf-32le"),
    (page(SIMPLIFIED + " " + FRENCH).encode("utf-32-le"), "utf-32-le"),  # Scrapy's name
    (page(SIMPLIFIED + " " + FRENCH).encode("utf-32-be"), "UTF-32BE"),
]


@pytest.mark.parametrize(("body", "label"), UTF32_PAGES)
def test_utf32_pages_are_text_and_decode(body, label):
    html = page(SIMPLIFIED + " " + FRENCH)
    assert not looks_binary(body, label)
    assert decode_html(body, label) == html
    text = extract_main_text(body, label)
    assert SIMPLIFIED in text and FRENCH in text
    fingerprinter = Fingerprinter()
    assert fingerprinter.fingerprint_html(body, label) == fingerprinter.fingerprint_html(
        html.encode("utf-8")
    )


def test_a_utf32_page_without_a_bom_needs_its_label():
    body = page(SIMPLIFIED + " " + FRENCH).encode("utf-32-le")
    assert looks_binary(body)
    assert not looks_binary(body, "utf-32le")


# -- looks_binary(body, encoding) never calls binary what looks_binary(body) calls text ------

LOOKS_BINARY_BODIES = [
    page(JAPANESE_SWITCHING).encode("iso2022_jp"),
    page(JAPANESE_SWITCHING, "iso-2022-jp").encode("iso2022_jp"),
    page(JAPANESE).encode("iso2022_jp"),
    *(body for body, _ in UTF32_PAGES),
    page(SIMPLIFIED).encode("utf-16-le"),
    page(SIMPLIFIED).encode("gbk"),
    codecs.BOM_UTF8 + page(SIMPLIFIED).encode("utf-8"),
    bytes(range(32)) * 100,
    b"\x1b" * 50 + page("x", "iso-2022-jp").encode(),
    b"\x00" * 4000,
]
LOOKS_BINARY_LABELS = [
    None,
    "utf-8",
    "iso-2022-jp",
    "iso2022_jp",
    "iso-2022-kr",
    "utf-32le",
    "utf-32be",
    "utf-16",
    "gbk",
    "punycode",
    "no-such-charset",
]


@pytest.mark.parametrize("body", LOOKS_BINARY_BODIES)
def test_a_label_never_makes_text_binary(body):
    without = looks_binary(body)
    for label in LOOKS_BINARY_LABELS:
        assert without or not looks_binary(body, label), label


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_a_wide_label_without_byte_order_is_read_in_the_order_of_the_bytes(codec):
    html = "<html><body><p>Caf\u00e9 soci\u00e9t\u00e9, \u5317\u4eac</p></body></html>"
    label = codec[:6]
    assert decode_html(html.encode(codec), label) == html
