"""hints: class/id strings are classified word by word (with a cache per word), exactly as the
five expressions classify the whole string."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_simhash.extract import hints
from scrapy_simhash.extract.hints import CHROME, NEUTRAL, POSITIVE, WEAK_CHROME, attribute_hint


def whole_string_hint(class_and_id: str) -> int:
    """The definition: the five expressions run over the whole normalised string."""
    text = class_and_id.lower().replace("_", " ").replace("-", " ")
    positive = hints._POSITIVE_RE.search(text) is not None
    if hints._CHROME_RE.search(text) is not None:
        return WEAK_CHROME if positive else CHROME
    if hints._MEDIA_RE.search(text) is not None or hints._BIO_RE.search(text) is not None:
        return WEAK_CHROME
    if hints._WEAK_CHROME_RE.search(text) is not None:
        return NEUTRAL if positive else WEAK_CHROME
    return POSITIVE if positive else NEUTRAL


PIECES = ["article", "content", "comment", "reply", "ad", "ads", "ad1", "nav", "navbar", "tag",
          "tags", "img", "photo", "pic", "bio", "main", "cnt", "context", "share", "promo",
          "promotion", "next", "story", "prev", "previous", "preview", "正文", "x",
          "1", "_", "-", " ", ":", "\t", "\u3000", "İ", "K"]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)), max_size=8))
def test_word_by_word_equals_the_whole_string(pieces):
    class_and_id = "".join(pieces)
    hints.HINT_CACHE.pop(class_and_id, None)
    assert attribute_hint(class_and_id) == whole_string_hint(class_and_id)


def test_examples():
    assert attribute_hint("entry-content") == POSITIVE
    assert attribute_hint("comment-content") == WEAK_CHROME
    assert attribute_hint("content-sidebar") == NEUTRAL
    assert attribute_hint("related-posts") == WEAK_CHROME
    assert attribute_hint("site-footer") == CHROME
    assert attribute_hint("col-md-6 clearfix") == NEUTRAL
    # what to read next beside the article ("up next", "next-post-thumbnails"): chrome unless
    # it holds most of the page (a Next.js page's whole body sits in "__next")
    assert attribute_hint("nextstory") == NEUTRAL  # (an article word too)
    assert attribute_hint("next-post-thumbnails") == NEUTRAL
    assert attribute_hint("up-next") == WEAK_CHROME
    assert attribute_hint("__next") == WEAK_CHROME
    assert attribute_hint("prev-link") == WEAK_CHROME
    assert attribute_hint("post-preview") == POSITIVE
    assert attribute_hint("annexe") == NEUTRAL
    # a consent manager's banner, whatever it is named after ("We and our 842 partners ...")
    for name in ("onetrust-consent-sdk", "didomi-host", "usercentrics-root", "gdpr-banner",
                 "cookie-consent"):
        assert attribute_hint(name) == CHROME
    # a forum post's author card and signature (vBulletin, XenForo, phpBB)
    for name in ("userinfo", "userTitle message-userTitle", "message-userExtras",
                 "signaturecontainer"):
        assert attribute_hint(name) == WEAK_CHROME
    assert attribute_hint("postprofile") == NEUTRAL  # (a "post" word too: the post's own)
