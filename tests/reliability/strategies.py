"""Hypothesis strategies for hostile web input: bytes, Unicode, broken markup, lying charsets.

Shared by the fuzz tests and ``benchmarks/fuzz.py`` (the long run).
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Charset labels a server may send: real, aliased, lying, unknown, and Python codecs that are
#: not text encodings at all (w3lib raises on them).
CHARSET_LABELS = (
    "utf-8", "UTF8", "gbk", "gb2312", "GB18030", "big5", "shift_jis", "euc-kr", "iso-8859-1",
    "latin1", "windows-1252", "koi8-r", "utf-16", "utf-16le", "utf-32", "utf-7", "ascii",
    "x-user-defined", "replacement", "x-unknown-charset", "undefined", "zlib", "bz2", "base64",
    "hex", "rot13", "idna", "punycode", "quopri", "uu", "mbcs", "", " ", "\"utf-8\"",
    "utf-8; q=0.5", "../../etc/passwd",
)  # fmt: skip

CODECS = ("utf-8", "gb18030", "big5", "cp1252", "utf-16", "shift_jis", "koi8-r", "latin-1")

CONTENT_TYPES = (
    "text/html", "text/html; charset={}", "application/xhtml+xml", "text/plain",
    "application/json", "application/octet-stream", "image/png", "text/xml",
    "application/xml; charset={}", "text/html;;;charset=", "", "*/*", "multipart/x-mixed-replace",
)  # fmt: skip

TAGS = (
    "html", "head", "body", "title", "p", "div", "span", "a", "br", "table", "tr", "td", "ul",
    "li", "h1", "article", "main", "nav", "footer", "script", "style", "noscript", "template",
    "svg", "math", "iframe", "pre", "textarea", "select", "b", "i", "font", "xmp", "plaintext",
    "frameset", "object", "meta", "base", "form", "input",
)  # fmt: skip

WORDS = st.sampled_from(
    [
        "ferry", "harbour", "river", "the", "and", "news", "城市", "中国", "新闻", "记者",
        "報導", "日本語", "テキスト", "Ελληνικά", "русский", "مرحبا", "😀", "\u200b", "\ufeff",
        "&amp;", "&#0;", "&#x110000;", "&nbsp;", "&lt;", "&unknown;", "]]>", "<!--", "-->",
        "\x00", "\r\n", "\t", "\ud800", "\U0010ffff", "<", ">", "\"", "'", "=",
    ]
)

TEXT = st.lists(WORDS | st.text(max_size=12), max_size=30).map(" ".join)

ATTRIBUTES = st.lists(
    st.tuples(
        st.sampled_from(["class", "id", "style", "href", "hidden", "charset", "lang", "x"]),
        st.sampled_from(
            ["content", "nav menu", "display:none", "article", "javascript:x()", "gbk", "",
             "\" onload=\"x", "a" * 300]
        ),
    ),
    max_size=3,
).map(lambda pairs: "".join(f' {name}="{value}"' for name, value in pairs))


@st.composite
def elements(draw, depth: int = 0) -> str:
    """One element (sometimes left unclosed or with a broken end tag) with text and children."""
    tag = draw(st.sampled_from(TAGS))
    children = []
    if depth < 4:
        children = draw(st.lists(st.deferred(lambda: elements(depth + 1)) | TEXT, max_size=4))
    closing = draw(st.sampled_from([f"</{tag}>", f"</{tag}>", "", f"</{tag}", "</>", "</x>"]))
    return f"<{tag}{draw(ATTRIBUTES)}>{''.join(children)}{closing}"


@st.composite
def html_documents(draw) -> str:
    """A page: optional doctype/XML declaration/meta charset, then random (broken) markup."""
    head = draw(
        st.sampled_from(
            ["", "<!DOCTYPE html>", "<?xml version='1.0' encoding='ebcdic'?>",
             '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>', "\ufeff", "<![CDATA["]
        )
    )
    charset = draw(st.sampled_from(CHARSET_LABELS))
    meta = draw(st.sampled_from(["", f'<meta charset="{charset}">',
                                 f'<meta http-equiv="Content-Type" content="text/html; '
                                 f'charset={charset}">']))
    body = "".join(draw(st.lists(elements(), min_size=1, max_size=6)))
    return f"{head}<html><head>{meta}</head><body>{body}"


@st.composite
def encoded_pages(draw) -> tuple[bytes, str | None]:
    """(body bytes, header charset label or None): encoded with one codec, maybe labelled with
    another, maybe cut anywhere (a truncated download)."""
    text = draw(html_documents())
    codec = draw(st.sampled_from(CODECS))
    body = text.encode(codec, "surrogatepass" if codec.startswith("utf") else "replace")
    if draw(st.booleans()):
        body = body[: draw(st.integers(0, len(body)))]
    label = draw(st.none() | st.sampled_from(CHARSET_LABELS) | st.text(max_size=20))
    return body, label


#: Any body a server may send for an HTML URL.
BODIES = st.one_of(
    st.binary(max_size=4096),
    st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass")),
    encoded_pages().map(lambda page: page[0]),
)
