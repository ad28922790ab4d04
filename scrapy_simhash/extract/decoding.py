"""Bytes -> str for HTML pages: BOM, HTTP header, <meta> charset, UTF-8, then a CJK/Latin guess.

Rules (in order), following browsers where they are sound and the real web where they are not:

1. A byte-order mark wins.
2. The declared encoding (HTTP header, else ``<?xml encoding?>`` or a ``<meta>`` in the first
   few KB, read as the HTML standard's prescan reads them: comments skipped, ``charset``, or
   ``content`` under ``http-equiv="Content-Type"``) is used, unless the body is valid UTF-8
   with non-ASCII text while the label names a legacy encoding: valid multi-byte UTF-8 is
   almost never an accident, and "lying" legacy labels are common.
3. No usable label, or a UTF-8 one: UTF-8 if valid, or if mostly valid (20 or more valid
   multi-byte characters per invalid byte: a stray byte does not make a UTF-8 page legacy),
   else the best of GB18030 / Big5 / cp1252 by a cheap common-character score.

GB2312 and GBK labels decode as GB18030 (their superset), Big5 as Big5-HKSCS, Latin-1 and ASCII
as cp1252, UTF-16 without a byte-order mark as UTF-16LE (the WHATWG mapping). A UTF-16 label in
the document itself means UTF-8 (bytes read as ASCII to find it are not UTF-16); in the HTTP
header it is used. Labels are the WHATWG Encoding Standard's (and UTF-32's): other Python codec
names (punycode, utf-7 ...) are unknown labels. :func:`decode_html` never raises.
"""

from __future__ import annotations

import codecs
import re

__all__ = [
    "NOT_UTF8",
    "UTF8",
    "UTF8_IF_VALID",
    "decode_html",
    "is_utf8_page",
    "normalize_encoding",
    "sniff_declared_encoding",
    "utf8_expectation",
]

SNIFF_BYTES = 16 * 1024
GUESS_BYTES = 32 * 1024

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# Labels mapped to the codec browsers actually use for them (WHATWG Encoding Standard).
_ALIASES = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "ms936": "gb18030",
    "windows-936": "gb18030",
    "gb_2312-80": "gb18030",
    "gb_2312": "gb18030",
    "csgb2312": "gb18030",
    "chinese": "gb18030",
    "euc-cn": "gb18030",
    "iso-ir-58": "gb18030",
    "hz-gb-2312": "gb18030",
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "x-x-big5": "big5hkscs",
    "cn-big5": "big5hkscs",
    "csbig5": "big5hkscs",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "windows-1252": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "iso-8859-9": "cp1254",
    "tis-620": "cp874",
    # UTF-16 without a byte-order mark is little-endian (for labels in documents, see
    # sniff_declared_encoding).
    "utf-16": "utf-16-le",
    "unicode": "utf-16-le",
    "utf8": "utf-8",
    "unicode-1-1-utf-8": "utf-8",
}

# Every label of the WHATWG Encoding Standard (https://encoding.spec.whatwg.org/#names-and-labels).
# Only these (with _ALIASES, the UTF-32 labels and the codecs they resolve to) are honoured: a
# page must not pick any Python codec by name (punycode is quadratic, utf-7 and unicode_escape
# turn ASCII into markup, zlib and base64 are not text encodings at all).
_WHATWG_LABELS = frozenset(
    """
    unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8
    866 cp866 csibm866 ibm866
    csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2
    csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3
    csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4
    csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5
    iso_8859-5:1988
    arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e
    iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987
    csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597
    iso_8859-7 iso_8859-7:1987 sun_eu_greek
    csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598
    iso_8859-8 iso_8859-8:1988 visual
    csiso88598i iso-8859-8-i logical
    csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6
    iso-8859-13 iso8859-13 iso885913
    iso-8859-14 iso8859-14 iso885914
    csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9
    iso-8859-16
    cskoi8r koi koi8 koi8-r koi8_r
    koi8-ru koi8-u
    csmacintosh mac macintosh x-mac-roman
    dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874
    cp1250 windows-1250 x-cp1250
    cp1251 windows-1251 x-cp1251
    ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591
    iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252
    cp1253 windows-1253 x-cp1253
    cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5
    latin5 windows-1254 x-cp1254
    cp1255 windows-1255 x-cp1255
    cp1256 windows-1256 x-cp1256
    cp1257 windows-1257 x-cp1257
    cp1258 windows-1258 x-cp1258
    x-mac-cyrillic x-mac-ukrainian
    chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk
    gb18030
    big5 big5-hkscs cn-big5 csbig5 x-x-big5
    cseucpkdfmtjapanese euc-jp x-euc-jp
    csiso2022jp iso-2022-jp
    csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis
    cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601
    ksc_5601 windows-949
    csiso2022kr hz-gb-2312 iso-2022-cn iso-2022-cn-ext iso-2022-kr replacement
    unicodefffe utf-16be
    csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le
    x-user-defined
    """.split()
)
# Not in the standard (browsers dropped UTF-32), but unambiguous and decoded by Scrapy.
_UTF32_LABELS = frozenset({"utf-32", "utf-32le", "utf-32be"})

_UNICODE_CODECS = {"utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"}
# Codecs a document readable as ASCII cannot be in: its own label naming one means UTF-8.
_WIDE_CODECS = {"utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32"}

# The HTML standard's prescan, in short: comments (to "-->", or to the end when unclosed) are
# skipped, and a <meta> tag's attributes are read up to its ">".
_PRESCAN = re.compile(rb"<!(?=--)(?:.*?-->|.*)|<meta[\s/]([^<>]*)>", re.IGNORECASE | re.DOTALL)
_ATTRIBUTE = re.compile(rb"""([^\s/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S*)))?""")
_LABEL = re.compile(rb"""\s*["']?\s*([a-zA-Z0-9_:.+\-]{2,40})""")
_CONTENT_CHARSET = re.compile(rb"charset\s*=", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]{0,200}?encoding\s*=\s*["']([a-zA-Z0-9_.\-]+)""")

# Very frequent Chinese characters, simplified and traditional forms, for telling GB18030 from
# Big5 (each decodes the other's bytes into rare characters, rarely into these).
_COMMON_HAN = frozenset(
    "的一是不了在人有我他这個个们們中来來上大为為和国國地到以说說时時要就出会會可也你对對生能"
    "而子那得于於着著下自之年过過发發后後作里裏用道行所然家种種事成方多经經么麼去法学學如都同现"
    "現当當没沒动動面起看定天分还還进進好小部其些主样樣理心她本前开開但因只从從想实實日军軍者意"
    "无無力它与與长長把机機十民第公此已工使情明性知全三又关關点點正业業外将將两兩高间間由问問很"
    "最重并並物手应應战戰向头頭文体體政美相见見被利什二等产產或新己制身果加西斯月话話合回特代内"
    "內信表化老给給世位次度门門任常先海通教儿兒原东東声聲提立及比员員解水名真论論处處走义義各入"
    "几幾口认認条條平系气氣题題活尔爾更别別打女变變四神总總何电電数數安少报報才结結反受目太量再"
    "感建务務做接必场場件计計管期市直德资資命山金指克许許统統区區保至队隊形社便空决決治展马馬科"
    "司五基眼书書非则則听聽白却界达達光放强強即像难難且权權思王象完设設式色路记記南品住告类類求"
    "据據程北边邊死张張该該交规規万萬取拉格望觉覺术術领領共确確传傳师師观觀清今切院让讓识識候带"
    "帶导導争爭运運笑飞飛风風步改收根干干究单單该網网。，、！？；：“”《》（）"
)


def _codec_name(key: str) -> str | None:
    """The codec for a lower-cased label, through _ALIASES and Python's codec registry."""
    mapped = _ALIASES.get(key)
    if mapped is None:
        mapped = _ALIASES.get(key.replace("_", "-"), key)
    try:
        name = codecs.lookup(mapped).name
    except (LookupError, ValueError):
        return None
    return _ALIASES.get(name, name)


_HONOURED_LABELS = _WHATWG_LABELS | _ALIASES.keys() | _UTF32_LABELS
# The codecs those labels resolve to; their own names (Scrapy's ``response.encoding`` is one,
# "iso2022_jp", "utf-16-le") are labels too.
_KNOWN_CODECS = frozenset(filter(None, map(_codec_name, _HONOURED_LABELS)))
# Every known label, "_" written as "-" ("iso_8859-1" and "iso-8859_1" are the same label).
_KNOWN_LABELS = frozenset(
    label.replace("_", "-") for label in _HONOURED_LABELS | _KNOWN_CODECS
)


def is_iso2022(codec: str | None) -> bool:
    """Whether ``codec`` (a name from :func:`normalize_encoding`) is a 7-bit stateful ISO-2022
    one, where ESC sequences switch an all-ASCII body to other character sets."""
    return codec is not None and codec.startswith("iso2022")


def is_wide(codec: str | None) -> bool:
    """Whether ``codec`` (a name from :func:`normalize_encoding`) is UTF-16 or UTF-32: ASCII
    text in it is mostly NUL bytes, and ASCII bytes are not text in it."""
    return codec in _WIDE_CODECS


# Codecs in which ASCII bytes are ASCII text: not UTF-16/32 nor the ISO-2022 ones.
_ASCII_COMPATIBLE = frozenset(
    codec for codec in _KNOWN_CODECS if codec not in _WIDE_CODECS and not is_iso2022(codec)
)


_WIDE_UNITS = {"utf-16": 2, "utf-32": 4}
_ORDER_EVIDENCE = 8  # NUL bytes on one side, twice as many as on the other, tell the order


def wide_byte_order(body: bytes, codec: str) -> str:
    """The byte order of a UTF-16 or UTF-32 body without a byte-order mark, read from where its
    NUL bytes fall (HTML is mostly ASCII: ``<`` is ``3C 00`` little-endian, ``00 3C`` big);
    ``codec`` itself for any other codec or when the sample does not tell."""
    if not is_wide(codec):
        return codec
    family = "utf-32" if codec.startswith("utf-32") else "utf-16"
    unit = _WIDE_UNITS[family]
    sample = body[: 4096 - 4096 % unit]
    little = sample[unit - 1 :: unit].count(0)  # the high byte of an ASCII unit, little-endian
    big = sample[::unit].count(0)
    if max(little, big) < _ORDER_EVIDENCE or min(little, big) * 2 >= max(little, big):
        return codec  # too little markup to tell
    return f"{family}-le" if little > big else f"{family}-be"


def normalize_encoding(label: str | None) -> str | None:
    """The Python codec for an HTML/HTTP charset label, or None when it is unknown.

    Known are the WHATWG Encoding Standard's labels, the UTF-32 ones and the names of the
    codecs these resolve to; any other label (even a Python codec's: punycode, utf-7 ...) is
    unknown, so the usual fallback applies.
    """
    if not label:
        return None
    key = label.strip().strip("\"'").lower()
    if not key:
        return None
    if key.replace("_", "-") not in _KNOWN_LABELS:
        return None
    name = _codec_name(key)
    return name if name in _KNOWN_CODECS else None


def sniff_declared_encoding(body: bytes) -> str | None:
    """The codec named by an XML declaration or ``<meta>`` in the first few KB, if any.

    As in the HTML standard's prescan, comments are skipped and a ``<meta>`` declares a charset
    by its ``charset`` attribute, or by its ``content`` when ``http-equiv`` is Content-Type; a
    UTF-16 or UTF-32 label means UTF-8 (bytes found by reading them as ASCII are not UTF-16).
    """
    head = body[:SNIFF_BYTES]
    match = _XML_ENCODING.search(head)
    found = _label_codec(match.group(1)) if match else None
    if found is None:
        for match in _PRESCAN.finditer(head):
            if match.group(1) is not None:  # a <meta>, not a comment
                found = _meta_codec(match.group(1))
                if found is not None:
                    break
    return "utf-8" if found in _WIDE_CODECS else found


def _label_codec(label: bytes) -> str | None:
    match = _LABEL.match(label)
    return normalize_encoding(match.group(1).decode("ascii")) if match else None


def _meta_codec(attributes: bytes) -> str | None:
    """The codec a ``<meta>`` tag's attributes declare, if any."""
    values: dict[bytes, bytes] = {}
    for name, double, single, bare in _ATTRIBUTE.findall(attributes):
        values.setdefault(name.lower(), double or single or bare)
    if b"charset" in values:
        return _label_codec(values[b"charset"])
    if values.get(b"http-equiv", b"").strip().lower() == b"content-type":
        content = values.get(b"content", b"")
        match = _CONTENT_CHARSET.search(content)
        if match:
            return _label_codec(content[match.end() :])
    return None


def _bom_encoding(body: bytes) -> tuple[str, int] | None:
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, len(bom)
    return None


def _is_utf8(body: bytes) -> bool:
    """Valid UTF-8, tolerating a multi-byte character cut at the very end (truncated bodies)."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(body, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _has_non_ascii(body: bytes) -> bool:
    return not body.isascii()


_NON_ASCII = re.compile(rb"[\x80-\xff]")


def _non_ascii_sample(body: bytes) -> bytes:
    """GUESS_BYTES of ``body`` from its first non-ASCII byte (pages often open with many KB of
    ASCII script and style, which tell nothing about the encoding)."""
    first = _NON_ASCII.search(body)
    start = first.start() if first is not None else 0
    return body[start : start + GUESS_BYTES]


def _guess_legacy(body: bytes) -> str:
    """GB18030, Big5-HKSCS or cp1252 for a body that is not UTF-8, by a common-character score."""
    sample = _non_ascii_sample(body)
    best, best_score = "cp1252", 0.0
    for codec in ("gb18030", "big5hkscs"):
        text = sample.decode(codec, "replace")
        common = sum(map(_COMMON_HAN.__contains__, text))
        errors = text.count("\ufffd")
        score = common - 4 * errors
        if score > best_score:
            best, best_score = codec, score
    return best


def decode_html(body: bytes, encoding: str | None = None) -> str:
    """Decode an HTML body to text (see the module docstring for the rules). Never raises."""
    try:
        return _decode(body, encoding)
    except Exception:  # a codec bug or an odd object: last resort, never raise
        try:
            return bytes(body).decode("utf-8", "replace")
        except Exception:
            return ""


def _decode(body: bytes, encoding: str | None) -> str:
    if isinstance(body, str):
        return body
    body = bytes(body)
    if not body:
        return ""
    bom = _bom_encoding(body)
    if bom is not None:
        name, size = bom
        return body[size:].decode(name, "replace")
    declared = normalize_encoding(encoding) or sniff_declared_encoding(body)
    if is_wide(declared):
        return body.decode(wide_byte_order(body, declared), "replace")
    if declared is not None and declared not in _UNICODE_CODECS:
        if _has_non_ascii(body) and _is_utf8(body):
            return body.decode("utf-8", "replace")
        return body.decode(declared, "replace")
    if declared is not None and declared != "utf-8":
        return body.decode(declared, "replace")
    if _is_utf8(body) or _mostly_utf8(body):  # no label, or a UTF-8 one
        return body.decode("utf-8", "replace")
    return body.decode(_guess_legacy(body), "replace")


UTF8 = "utf-8"  # utf8_expectation: the bytes are UTF-8 as they are
UTF8_IF_VALID = "utf-8 if valid"  # UTF-8 unless they turn out not to be valid UTF-8
NOT_UTF8 = "not utf-8"  # decode_html would decode them otherwise (or strip a BOM)


def utf8_expectation(body: bytes, encoding: str | None = None) -> str:
    """Whether :func:`decode_html` decodes ``body`` as plain UTF-8: UTF8, NOT_UTF8 or
    UTF8_IF_VALID (no label against it; only a full validity check can tell, which a caller
    can leave to its parser: libxml2 reports invalid UTF-8 as it reads).

    Lets the parser take the bytes as they are (no decode and re-encode) on most pages.
    """
    try:
        if _bom_encoding(body) is not None:
            return NOT_UTF8  # decode_html strips the BOM (or decodes UTF-16/32); let it
        declared = normalize_encoding(encoding) or sniff_declared_encoding(body)
        if declared is not None and declared != "utf-8" and declared in _UNICODE_CODECS:
            return NOT_UTF8
        if body.isascii():  # as UTF-8, unless the label names a 7-bit encoding (ISO-2022-JP)
            return UTF8 if declared is None or declared in _ASCII_COMPATIBLE else NOT_UTF8
        if declared is None or declared == "utf-8":
            return UTF8_IF_VALID
        # A legacy label: usually true, so check here, where a wrong guess fails fast.
        body.decode("utf-8")
        return UTF8
    except (UnicodeDecodeError, TypeError, ValueError, AttributeError):
        return NOT_UTF8


def is_utf8_page(body: bytes, encoding: str | None = None) -> bool:
    """True when :func:`decode_html` would decode ``body`` as UTF-8 without any replacement."""
    expectation = utf8_expectation(body, encoding)
    if expectation != UTF8_IF_VALID:
        return expectation == UTF8
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _mostly_utf8(body: bytes) -> bool:
    """A UTF-8 page with a few broken bytes (e.g. a cut-and-pasted fragment) stays UTF-8: at
    least 20 valid multi-byte characters per invalid byte, from the first non-ASCII byte on."""
    text = _non_ascii_sample(body).decode("utf-8", "replace")
    errors = text.count("\ufffd")
    multibyte = len(text) - len(text.encode("ascii", "ignore")) - errors  # non-ASCII characters
    return errors * 20 < multibyte
