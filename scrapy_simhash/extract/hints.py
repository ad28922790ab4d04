"""Class/id/tag hints: weights that say "this looks like the article" or "this looks like chrome".

They are weights, not rules: a block's score is raised or turned negative by the hint in force
on its node (see ``builtin.node_hints``: a chrome-named wrapper that holds most of the page's
text loses its hint), and the main-content choice favours, but is not bound to, nodes whose own
hint is positive. Results are memoised per class/id string (a pure function, so deterministic).
"""

from __future__ import annotations

import re
from functools import lru_cache

POSITIVE = 1
NEUTRAL = 0
NEGATIVE = -1  # in force on a block: chrome
WEAK_CHROME = -1  # on a node: chrome unless it holds most of the page's text
CHROME = -2  # on a node: chrome whatever its size

# Never read hints from these: their classes describe the whole page ("single-post has-sidebar").
UNHINTED_TAGS = frozenset({"html", "body"})

_POSITIVE_RE = re.compile(
    r"article|content|entry|post|main|body|story|text|detail|blog|prose|news|"
    r"zhengwen|正文|\bcnt\b|\bcont\b|\btxt\b|\bcontext\b"
)
# Names of a page's own comments, of navigation and of photos: chrome words of their own kinds
# (see names_comments, names_navigation, names_photo_box).
_COMMENTS = r"comment|\breply|replies|pinglun"
_NAVIGATION = r"\bmenu|\bnav\b|navbar|navigation|daohang"
_MEDIA = r"\bphoto|\bimage|\bimg\b|\bpic\b|gallery|slideshow"

# Chrome whatever its size: a huge comment thread is still comments.
_CHROME_RE = re.compile(
    _COMMENTS + r"|footer|related|recommend|breadcrumb|pagination|\bpager\b|"
    r"subscribe|newsletter|popup|modal|cookie|consent|onetrust|didomi|usercentrics|gdpr|"
    r"copyright|outbrain|taboola|"
    r"caption|credit|byline|dateline|timestamp|"
    r"tuijian|xiangguan|popular|trending|\bmost\b|mostread|\bviewed\b"
)
# Chrome-like names that also show up on page-wide wrappers ("page-ad-margins", "has-sidebar").
_WEAK_CHROME_RE = re.compile(
    _NAVIGATION + r"|sidebar|\bshare|sharing|social|sponsor|promo\b|"
    r"advert|\bads?\b|\bad\d|banner|\btags?\b|\bnext|\bprev\b|\bprevious|"
    # a forum post's author card and signature (vBulletin, XenForo, phpBB); a member's profile
    # page, all of it in one such box, keeps it
    r"userinfo|userextras|usertitle|postprofile|signaturecontainer"
)
# Photo and image boxes (captions, credits, galleries): chrome, even with an article word in the
# name ("inline-content inline-photo"), unless they hold most of the page ("img-share-area").
_MEDIA_RE = re.compile(_MEDIA)
# A person's bio: an author's box beside an article, but a profile page's text, all of it in
# such a box ("profile-bio"): chrome unless it holds most of the page, like a photo box.
_BIO_RE = re.compile(r"\bbio\b")
_PHOTO_BOX_RE = re.compile(_MEDIA + r"|caption|credit|figure|\bmedia")

# Structural chrome is skipped by the walk, and read only on a lenient second walk (see
# segment.LENIENT_TAGS): there it is chrome unless it holds most of the page.
TAG_HINTS = {
    "article": POSITIVE, "main": POSITIVE,
    "nav": WEAK_CHROME, "aside": WEAK_CHROME, "footer": WEAK_CHROME, "menu": WEAK_CHROME,
}  # fmt: skip

HINT_CACHE: dict[str, int] = {}
_CACHE_LIMIT = 50_000


_COMMENTS_RE = re.compile(_COMMENTS + r"|disqus")
_NOT_THE_PAGES_RE = re.compile(r"recent|latest|popular|widget|\bmost\b|\btop\b")


@lru_cache(maxsize=8192)  # (a site's class names repeat on every page)
def names_comments(class_and_id: str) -> bool:
    """Whether a class/id string names a page's own comments (not a site's recent ones)."""
    if not class_and_id:
        return False
    lowered = class_and_id.lower()
    return _COMMENTS_RE.search(lowered) is not None and _NOT_THE_PAGES_RE.search(lowered) is None


_NAVIGATION_RE = re.compile(_NAVIGATION)


@lru_cache(maxsize=8192)  # (a site's class names repeat on every page)
def names_navigation(class_and_id: str) -> bool:
    """Whether a class/id string names a menu or a navigation bar (a site's menu, or a
    restaurant's: which one, its links tell)."""
    return bool(class_and_id) and _NAVIGATION_RE.search(class_and_id.lower()) is not None


@lru_cache(maxsize=8192)  # (a site's class names repeat on every page)
def names_photo_box(class_and_id: str) -> bool:
    """Whether a class/id string names a photo, its caption or a gallery of them."""
    return bool(class_and_id) and _PHOTO_BOX_RE.search(class_and_id.lower()) is not None


def attribute_hint(class_and_id: str) -> int:
    """CHROME, WEAK_CHROME, POSITIVE or NEUTRAL for a class/id string.

    Strong chrome words beat article words, weakly ("comment-content", "entry-footer" are
    chrome unless they hold most of the page); with weak chrome words such a string is NEUTRAL
    ("content-sidebar", "main-nav-wrapper").
    """
    found = HINT_CACHE.get(class_and_id)
    if found is not None:
        return found
    flags = 0
    for word in class_and_id.lower().replace("_", " ").replace("-", " ").split():
        word_flags = _WORD_FLAGS.get(word)
        if word_flags is None:
            word_flags = _word_flags(word)
        flags |= word_flags
    positive = flags & _POSITIVE_WORD
    if flags & _CHROME_WORD:
        hint = WEAK_CHROME if positive else CHROME
    elif flags & (_MEDIA_WORD | _BIO_WORD):
        hint = WEAK_CHROME
    elif flags & _WEAK_CHROME_WORD:
        hint = NEUTRAL if positive else WEAK_CHROME
    else:
        hint = POSITIVE if positive else NEUTRAL
    if len(HINT_CACHE) < _CACHE_LIMIT:
        HINT_CACHE[class_and_id] = hint
    return hint


# Which of the five expressions match a word. No expression spans whitespace (a non-word
# character, so ``\b`` sees the same boundary at a word's ends), so a class string matches one
# exactly when one of its words does: words repeat across sites far more than whole strings.
_POSITIVE_WORD, _CHROME_WORD, _MEDIA_WORD, _WEAK_CHROME_WORD, _BIO_WORD = 1, 2, 4, 8, 16
_WORD_FLAGS: dict[str, int] = {}


def _word_flags(word: str) -> int:
    flags = 0
    for flag, expression in (
        (_POSITIVE_WORD, _POSITIVE_RE),
        (_CHROME_WORD, _CHROME_RE),
        (_MEDIA_WORD, _MEDIA_RE),
        (_WEAK_CHROME_WORD, _WEAK_CHROME_RE),
        (_BIO_WORD, _BIO_RE),
    ):
        if expression.search(word) is not None:
            flags |= flag
    if len(_WORD_FLAGS) < _CACHE_LIMIT:
        _WORD_FLAGS[word] = flags
    return flags
