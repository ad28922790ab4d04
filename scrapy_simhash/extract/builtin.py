"""The built-in main-content choice: score text blocks, pick the best subtree, emit its text.

After :func:`~.segment.segment` has cut the page into blocks (one walk over the tree), each
block gets a score from its length (words for Latin scripts, characters for CJK), sentence
punctuation, link density and the class/id hint in force: article paragraphs score high; menus,
link lists, labels, bylines and datelines, teasers cut off with "...", legal lines and hinted
chrome score below zero. The main content is the run of consecutive children (text blocks and
whole subtrees) of one node with the largest total, found for all nodes in one pass with prefix
sums (no second walk over the tree). Inside it, link lists (linked teaser headings too), hinted
chrome, page furniture (bylines, datelines, legal lines, "Author:" labels, calls to sign up or
subscribe) and a heading that repeats the headline are left out; a table's linked cells stay (an
infobox's values). Three or more sibling cards of one class, each a heading and a line of text,
are a teaser grid ("more stories") and count as chrome, unless a sibling of theirs is an article
(a thread's opening post beside its short replies). Short unlinked table cells (a year, a
figure) are data, not labels: they score zero, so a long table between two sections does not
split an article.

The run is then carried on where Kadane's sum stops short of the article: over up to four inline
blocks (an advertisement, a box of links, an embedded post) into paragraphs of its kind, also
when the rest is wrapped apart or in a sibling wrapper named alike (or, both unnamed, holding
such paragraphs; wrappers of one name weigh their text together against a chrome hint in their
name), also into a wrapper whose paragraphs a long list of links between them outweighs, and
past a quotation or a short paragraph between two interruptions; over any number of tables and
lists into a reference page's next headed sections; back over the article's lead (a subtitle, a
standfirst). When the run is (or holds a few wrappers down) a list of three or more sibling
posts of one kind, each with its own text and dated line, the dated lines tell a blog's front
page (one author: only the newest post is kept) from a thread (several, or no name: kept whole).
A page without prose (a product page, a form) falls back to its plain text minus link lists and
chrome, and a page whose every block was filtered out to all its text, hidden text last: a page
that shows text never gives an empty one. The text is given in Unicode's composed form (NFC).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain

from .hints import (
    CHROME,
    NEGATIVE,
    NEUTRAL,
    POSITIVE,
    UNHINTED_TAGS,
    WEAK_CHROME,
    names_comments,
    names_navigation,
    names_photo_box,
)
from .segment import HEADING_TAGS, LINE_BREAK, Segmented, segment

DEFAULT_MAX_CHARS = 200_000

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE = re.compile(f"[{_CJK}]")
_WORD_RE = re.compile(rf"[^\W{_CJK}]+")
# Sentence punctuation; colons left out, they mostly end labels ("Source:", "来源："). In
# non-ASCII text an ASCII mark counts only before a space or a quote ("2022.01.20" is a date);
# in ASCII text the plain class is 4x faster and scores as well.
_PUNCT_RE = re.compile(r"[.,;!?]")
_PUNCT_WIDE_RE = re.compile(r"[.,;!?](?=[\s\"'”’)\]]|$)|[。，；！？、]")
# Legal and licence lines that close pages everywhere: chrome whatever their length.
_LEGAL_RE = re.compile(
    r"©\s*(?:\d{4}|copyright)|copyright|all rights reserved|"
    r"版权所有|ICP备|ICP证|许可证编号|违法和不良信息|举报电话|不得转载|禁止转载|未经.{0,8}(?:许可|授权)|"
    # reprint and infringement notices ("转载请注明出处", "如有侵权请联系删除", "侵权必究")
    r"转载请注明|非法转载|版权声明|侵权必究|如有侵权|反侵权|侵权线索",
    re.IGNORECASE,
)
_LEGAL_MARKERS = (
    "©", "opyright", "OPYRIGHT", "eserved", "ESERVED", "版权", "ICP", "许可", "转载", "未经",
    "举报", "侵权",
)
_LEGAL_MARKERS_ASCII = tuple(marker for marker in _LEGAL_MARKERS if marker.isascii())
LEGAL_MAX_UNITS = 80  # legal lines are short; long prose that quotes "copyright" is not one
# Calls to sign up, follow or install ("Never miss the latest news by signing up to our
# newsletter today!", "Subscribe now for the full story", "Follow us on Twitter"): boxes
# dropped into the article's flow, not its text.
_CALL_TO_ACTION_RE = re.compile(
    r"newsletter|\bsign(?:ing)? (?:me )?up\b|\bsubscribe (?:to|now|for|here)\b|"
    r"\bplease subscribe\b|\bfollow (?:us|the [\w ]{1,40}?) on (?:twitter|facebook|instagram)\b|"
    r"\bdownload (?:the|our) [\w ]{0,30}?\bapps?\b|\bto your (?:phone|inbox)\b|"
    r"\bsubmit (?:a|your) letter\b|"
    r"订阅(?:我们|本|号)|关注(?:我们|公众号|微信)|扫码关注|扫描二维码",
    re.IGNORECASE,
)
_CALL_TO_ACTION_MARKERS = (
    "ewsletter", "EWSLETTER", "ign", "IGN", "ubscribe", "UBSCRIBE", "ollow", "OLLOW", "ownload",
    "OWNLOAD", "your", "YOUR", "ubmit", "UBMIT",
)
_CALL_TO_ACTION_MARKERS_WIDE = (*_CALL_TO_ACTION_MARKERS, "订阅", "关注", "扫")
_ELLIPSES = ("...", "…", "[…]", "[...]")
_LABEL_ENDS = (":", "：")
# Bylines, datelines and credits: short lines that open with these words or carry a date.
_BYLINE_START_RE = re.compile(
    r"\s*(?:by|por|von|par|di|posted|published|updated|written|credit|source|via|"
    # a credit ("Photo: AP", "Image by ..."), not a gallery's counter ("Photo 3 of 10")
    r"(?:photos?|image)(?!\s*\d)|"
    r"作者|记者|来源|编辑|责任编辑|发布时间|时间|日期)\b",
    re.IGNORECASE,
)
_BYLINE_DATE_RE = re.compile(  # both forms hold a year starting "19" or "20"
    r"\b(?:19|20)\d\d[-/.年]\d{1,2}[-/.月]\d{1,2}|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d\b",
    re.IGNORECASE,
)
# A dated line that says when the page was written, changed, checked or fetched ("Last updated
# May 3, 2024", "Prices correct as of 3 March", "Date retrieved", "Stand:", "更新时间：2024-05-03",
# "数据截至"), which a later fetch of the same page may change, beside the byline words.
_STAMP_RE = re.compile(
    r"\b(?:updated|modified|edited|revised|changed|checked|reviewed|retrieved|accessed|"
    r"as (?:of|at)|stand|aktualisiert|mis à jour|actualizado|aggiornato)\b|"
    r"更新|修改|公開|投稿|发表|發表|發布|截至|截止",
    re.IGNORECASE)
_SENTENCE_ENDS = ("。", "！", "？")  # a dated Chinese sentence is no byline
_FULL_STOPS = (".", "!", "?", *_SENTENCE_ENDS)
_TITLE_SPLIT_RE = re.compile(r"\s+[-|–—:·»]\s+|\s*[|｜_]\s*|\s+-{2,}\s+")

CJK_CHAR_WEIGHT = 0.6  # one Chinese character carries about 0.6 of a word
CJK_HALF_WEIGHT = CJK_CHAR_WEIGHT / 2  # per extra UTF-8 byte (a CJK character adds two)
LINK_DENSITY_LIMIT = 0.5  # above it, short or unpunctuated text is a link list
LINKED_PROSE_UNITS = 20
HEADING_MAX_UNITS = 30  # a longer "heading" is a paragraph in heading markup
# A headline candidate (an h1/h2 with the text of all nested in it) is dropped as soon as its
# text passes this: a headline is short (HEADING_MAX_UNITS, some 200 characters of Latin text);
# a longer one is a paragraph or a whole section in heading markup. The cap is 15 times that,
# yet bounds the work per heading, so thousands of unclosed nested headings stay cheap.
HEADLINE_MAX_CHARS = 3_000
LINK_PENALTY = 0.5
UNPUNCTUATED_MAX_UNITS = 20
TINY_UNITS = 4
POSITIVE_NODE_BONUS = 1.15
CHROME_MAX_SHARE = 0.5
TEASER_MAX_UNITS = 80
BYLINE_MAX_UNITS = 20
TEASER_CARDS_MIN = 3  # sibling cards with a heading and a line of text: a "more stories" grid
TEASER_CARD_MAX_SCORE = 25.0
TEASER_GROUP_TEXT_SCORE = 2 * TEASER_CARD_MAX_SCORE
MIN_ARTICLE_SCORE = 20.0  # below it the page has no article: keep its plain text
ENTRY_MIN = 3  # dated sibling posts that make a list of posts (a blog's front page, a thread)
ENTRY_MIN_SHARE = 0.5
DATED_LINE_MAX_UNITS = 40
# An article interrupted by one inline block (a link list, an advertisement, an embedded post)
# goes on after it: the run is carried over at most BRIDGE_MAX_ITEMS such children (and as many
# headings) when at least BRIDGE_MIN_SCORE of paragraphs of the run's own kind follow.
BRIDGE_MIN_SCORE = 20.0
BRIDGE_MAX_ITEMS = 4
# A link is an entry's (see Extraction.entry_links) when the nearest of its node and the nodes
# up to ENTRY_LINK_LEVELS above it with ENTRY_MIN_TEXT characters beside links is mostly text.
ENTRY_LINK_LEVELS = 2
ENTRY_MIN_TEXT = 20
ENTRY_MAX_TEXT = 1_000  # characters beside links: a teaser or a paragraph, not the article
# ... or a card of a grid, a row of a table: one of ENTRY_MIN_CARDS siblings alike, each with a
# link and CARD_MIN_TEXT characters beside it (a price, a topic's counters)
ENTRY_MIN_CARDS = 3
CARD_MIN_TEXT = 2
# A page without an article is read a second time, leniently (see _read); an article that
# reading finds in chrome alone (nodes named or tagged as chrome) is the page's only when it
# holds this share of the page's text, links included (a wrapper named like chrome around the
# page, not a hub's cookie notice or footer).
LENIENT_FALLBACK = True
LENIENT_MIN_SHARE = 0.5
# A chrome-named wrapper that holds most of the page's text is the article's; so are sibling
# wrappers of one tag and class that hold it together (a body cut in two by a box).
WRAPPERS_WEIGHED_TOGETHER = True
# A list of dated posts whose dated lines name different people (or none) is a thread
# (replies to one opening post): kept whole. One name throughout is a blog's front page: its
# newest post.
THREADS_KEPT_WHOLE = True
THREAD_REPLIES_MIN_SHARE = 0.25
# The posts are looked for among the run node's children, and this many wrappers down (the
# child holding most of the run's text).
ENTRY_LEVELS_DOWN = 6
# A run that covers the whole of its node is carried on in the parent, over at most
# BRIDGE_MAX_ITEMS interruptions, into siblings of the same tag with a class word in common
# (an article body cut into two wrappers by an advertisement or a "related" box).
BRIDGE_UP_LEVELS = 2
# ... and into siblings of the same tag that no class names, when they hold paragraphs of the
# run's kind (WRAPPED_PARAGRAPHS_MIN or more): a body in two bare cells or divisions.
UNNAMED_WRAPPERS_BRIDGED = True
# A sibling wrapper named like the run's continues it on the strength of its paragraphs alone
# (BRIDGE_MIN_SCORE of them), not less what else it holds (a gallery before them).
NAMED_WRAPPER_TEXT_MASS = True
# A wrapper of paragraphs of the run's kind continues it even when a long list of links between
# them outweighs them (a section of an article with its list of works).
MIXED_WRAPPERS_BRIDGED = True
# A stretch of the run's paragraphs too short to continue it (under BRIDGE_MIN_SCORE) between
# two interruptions is crossed like them when the article goes on after the second.
SHORT_STRETCHES_CROSSED = True
# Text of another kind between two stretches of the run's paragraphs (a quotation, a pull quote)
# is an interruption like a box: crossed, and kept (it scores above zero).
OTHER_KINDS_CROSSED = True
# A wrapper after an interruption continues the run when it holds this many paragraphs of
# the run's kind (one alone is more often a box beside the article: the author's bio).
WRAPPED_PARAGRAPHS_MIN = 2
# Inside the article, the linked cells of a table are data; linked headings are teasers.
TABLE_LINKS_KEPT = True
LINKED_HEADINGS_DROPPED = True
# Short lines that call readers to sign up (a newsletter, a subscription): page furniture.
CALLS_TO_ACTION_DROPPED = True
CALL_TO_ACTION_MAX_UNITS = 25
# Short lines that end with a colon, outside tables: labels of page furniture.
LABELS_DROPPED = True
LABEL_MAX_UNITS = 3
# The article's lead: a subtitle or a standfirst right before its first paragraph.
LEAD_KEPT = True
LEAD_MIN_UNITS = 8
# A reference page's sections after its tables and lists are the article's (see
# bridge_sections); these are the children that may stand between two sections.
SECTIONS_KEPT = True
SECTION_DATA_TAGS = frozenset({"table", "ul", "ol", "li", "dl", "dt", "dd", *HEADING_TAGS})


@dataclass
class Article:
    """The main content of a page: its headline and body paragraphs."""

    title: str = ""
    paragraphs: list[str] = field(default_factory=list)
    #: False when the page had no run of prose and its plain text stands in for an article
    is_article: bool = True
    #: Each node's hint in force and the page's boilerplate blocks (what tells chrome)
    hints: list[int] = field(default_factory=list, repr=False, compare=False)
    boilerplate: set[int] = field(default_factory=set, repr=False, compare=False)
    #: Nodes of teaser grids: "more stories" on an article, the products of a listing
    teasers: set[int] = field(default_factory=set, repr=False, compare=False)
    #: True when nothing passed the filters and the page's whole text stands in (a hub of links)
    fallback: bool = False
    #: True (on a lenient reading) when every paragraph sits in a node named or tagged as chrome
    chrome_only: bool = False
    #: The node whose children hold the main text (-1: none, the page's text stands in)
    node: int = -1

    def text(self, include_title: bool = True, max_chars: int = DEFAULT_MAX_CHARS) -> str:
        """Headline (optional) and paragraphs, one per line, cut to ``max_chars``."""
        parts = self.paragraphs
        if include_title and self.title:
            parts = [self.title, *parts]
        return _composed("\n".join(parts))[:max_chars]


def _composed(text: str) -> str:
    """``text`` in Unicode's composed form (NFC): pages that spell a letter as a base and a
    combining mark (Bengali "য়", Vietnamese tones) read as the same text as those that do not."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def text_units(text: str) -> float:
    """Length in word-equivalents: space-separated words plus weighted CJK characters.

    CJK characters are counted from the UTF-8 length (each adds two bytes; an accented Latin
    letter adds one, a small overcount): one C-speed encode instead of a regex scan.
    """
    words = len(text.split())
    if text.isascii():
        return float(words)
    return words + CJK_HALF_WEIGHT * (len(text.encode("utf-8", "replace")) - len(text))


def _punctuation(text: str) -> int:
    """Sentence punctuation marks, ASCII and CJK (see _PUNCT_WIDE_RE)."""
    if text.isascii():  # what _PUNCT_RE would find, counted without a list of matches
        return (
            text.count(".") + text.count(",") + text.count(";") + text.count("!") + text.count("?")
        )
    return len(_PUNCT_WIDE_RE.findall(text))


try:  # the compiled twins, when the package was built with them (see setup.py)
    from ._speedups import base_scores as _compiled_base_scores
    from ._speedups import block_stats as _compiled_block_stats
    from ._speedups import child_runs as _compiled_child_runs
    from ._speedups import marker_flags as _compiled_marker_flags
except ImportError:  # pragma: no cover - depends on the build
    _compiled_block_stats = _compiled_marker_flags = _compiled_child_runs = None
    _compiled_base_scores = None

_CALL_TO_ACTION_FLAG, _LEGAL_FLAG = 1, 2  # (marker_flags' bits)


def block_stats(texts: list[str]) -> tuple[list[float], list[int] | None]:
    """Each text's ``text_units`` and, from the compiled module, its ``_punctuation`` count;
    without that module the counts are None (the caller counts the blocks it needs)."""
    if _compiled_block_stats is not None:
        return _compiled_block_stats(texts, CJK_HALF_WEIGHT)
    return [text_units(text) for text in texts], None


def _is_byline(text: str) -> bool:
    """A line that opens with a byline word or carries a date (see _BYLINE_START_RE)."""
    if _BYLINE_START_RE.match(text) is not None:
        return True
    return ("19" in text or "20" in text) and _BYLINE_DATE_RE.search(text) is not None


def _titled_date(text: str, titles: str) -> bool:
    """Whether a dated line is the page's subject, not its dateline: its date, and no byline
    word, is in the page's title ("Sunday Jazz Brunch - 2025-03-30" over "Sunday 2025-03-30,
    11:00 - 14:00": one date of an event, whose series page has the same text)."""
    if not titles or _BYLINE_START_RE.match(text) is not None:
        return False
    found = _BYLINE_DATE_RE.search(text)
    # (the whole date: "2025-3-3" is not in "2025-3-30")
    return found is not None and re.search(
        rf"(?<!\d){re.escape(found.group().casefold())}(?!\d)", titles) is not None


def _is_legal(text: str) -> bool:
    for marker in _LEGAL_MARKERS_ASCII if text.isascii() else _LEGAL_MARKERS:
        if marker in text:
            return _LEGAL_RE.search(text) is not None
    return False


#: Blocks that say an advertisement sits there, and nothing else ("Advertisement" between a
#: news article's paragraphs): furniture wherever they are, in the languages of the pages read.
AD_LABELS = frozenset({
    "advertisement", "advertisements", "advertisement - continue reading below",
    "advertisement continue reading below", "story continues below advertisement",
    "anzeige", "werbung", "publicité", "publicidad", "pubblicità", "reklama", "реклама",
    "advertentie", "mainos", "reklam", "广告", "廣告", "広告", "광고",
})
AD_LABEL_MAX_CHARS = max(map(len, AD_LABELS))
AD_LABEL_UNITS = 8  # (cheap: most blocks are longer)
AD_LABELS_DROPPED = True


def _is_ad_label(text: str) -> bool:
    """A block that is only an advertisement's label (see AD_LABELS)."""
    stripped = text.strip()
    if len(stripped) > AD_LABEL_MAX_CHARS:
        return False
    folded = stripped.casefold()  # (one word mostly: its spaces evened out only if it has some)
    return folded in AD_LABELS or (" " in folded and " ".join(folded.split()) in AD_LABELS)


def _is_call_to_action(text: str) -> bool:
    """A line that asks the reader to sign up or subscribe (see _CALL_TO_ACTION_RE)."""
    markers = _CALL_TO_ACTION_MARKERS if text.isascii() else _CALL_TO_ACTION_MARKERS_WIDE
    for marker in markers:
        if marker in text:
            return _CALL_TO_ACTION_RE.search(text) is not None
    return False


def in_captions(page: Segmented) -> list[bool]:
    """For each node: whether it is a ``<figcaption>`` or inside one."""
    return _in_elements(page, "figcaption")


def in_tables(page: Segmented, within: int = -1) -> list[bool]:
    """For each node: whether it is a table or inside one (only tables inside node ``within``
    when it is given: a layout table around it is not its data)."""
    return _in_elements(page, "table", within)


def _in_elements(page: Segmented, tag: str, within: int = -1) -> list[bool]:
    """For each node: whether it is a ``tag`` element or inside one (inside node ``within``
    when it is given)."""
    inside = [False] * len(page.node_tag)
    lasts = page.node_last
    done = within + 1 if within >= 0 else 0
    stop = lasts[within] if within >= 0 else len(inside)
    for index in [index for index, name in enumerate(page.node_tag) if name == tag]:
        if done <= index < stop:  # not inside one already marked
            done = lasts[index]
            inside[index:done] = [True] * (done - index)
    return inside


def base_scores(page: Segmented, boilerplate: set[int] | None = None,
                captions: list[bool] | None = None) -> list[float]:
    """Every block's score before hints: positive for article-like text, negative for link
    lists, short labels and legal lines; headings score 0 unless linked (teaser titles).

    Blocks that are page furniture whatever their place (legal lines, bylines, datelines,
    credits) are added to ``boilerplate`` when it is given: they are left out of the text even
    inside the article. Blocks in ``captions`` (:func:`in_captions`) score zero.
    """
    if boilerplate is None:
        boilerplate = set()
    drop = boilerplate.add
    heading_owner = [tag in HEADING_TAGS for tag in page.node_tag]
    in_table = in_tables(page)
    titles = " ".join((page.title, page.meta_title)).casefold()
    legal = _is_legal
    scores = []
    append = scores.append
    units_of, counted = block_stats(page.block_text)
    # which blocks may hold the markers of a call to action or a legal line, from one compiled
    # pass (all of them without it): the checks themselves then run on 3% of the blocks
    flags = (_compiled_marker_flags(page.block_text) if _compiled_marker_flags is not None
             else [_CALL_TO_ACTION_FLAG | _LEGAL_FLAG] * len(page.block_text))
    if _compiled_base_scores is not None and counted is not None:
        # (the same loop compiled: the same tests in the same order, the same arithmetic)
        return _compiled_base_scores(
            page.block_text, units_of, counted, flags, page.block_link_chars, page.block_owner,
            heading_owner, in_table, captions, boilerplate, titles,
            (AD_LABELS_DROPPED, AD_LABEL_UNITS, AD_LABEL_MAX_CHARS, CALLS_TO_ACTION_DROPPED,
             CALL_TO_ACTION_MAX_UNITS, HEADING_MAX_UNITS, LABELS_DROPPED, LABEL_MAX_UNITS,
             TINY_UNITS, LINK_DENSITY_LIMIT, LINKED_PROSE_UNITS, LEGAL_MAX_UNITS,
             BYLINE_MAX_UNITS, TEASER_MAX_UNITS, UNPUNCTUATED_MAX_UNITS, LINK_PENALTY),
            (_is_ad_label, _is_call_to_action, _is_legal, _is_byline, _titled_date,
             _LABEL_ENDS, _SENTENCE_ENDS, _ELLIPSES),
        )

    def punctuation_of(index: int, text: str) -> int:
        return counted[index] if counted is not None else _punctuation(text)

    for index, (text, units, link_chars, owner, marked) in enumerate(
        zip(page.block_text, units_of, page.block_link_chars, page.block_owner, flags,
            strict=True)
    ):
        if captions is not None and owner >= 0 and captions[owner]:
            append(0.0)  # neither the article's nor against it (see article_from_segments)
            continue
        if AD_LABELS_DROPPED and units <= AD_LABEL_UNITS and _is_ad_label(text):
            append(-1.0)  # "Advertisement" between two paragraphs of the article
            drop(index)
            continue
        if (
            CALLS_TO_ACTION_DROPPED
            and units <= CALL_TO_ACTION_MAX_UNITS
            and marked & _CALL_TO_ACTION_FLAG
            and _is_call_to_action(text)
        ):
            append(-1.0)  # headings too: "Sign up for our newsletter", "Subscribe now"
            drop(index)
            continue
        if owner >= 0 and heading_owner[owner] and units < HEADING_MAX_UNITS:
            append(-units * 0.5 if link_chars * 2 > len(text.strip()) else 0.0)
            continue
        if (
            LABELS_DROPPED
            and units <= LABEL_MAX_UNITS
            and text.rstrip().endswith(_LABEL_ENDS)
            and not (owner >= 0 and in_table[owner])  # a table's labels go with its data
        ):
            append(-1.0)  # "Author:", "Publish date:", "More:": a label, not the article's
            drop(index)
            continue
        if units < TINY_UNITS:  # most blocks: a label, a menu item, a date; no regex needed
            append(-1.0 if units and (link_chars or owner < 0 or not in_table[owner]) else 0.0)
            continue
        link_density = 0.0
        if link_chars:
            chars = len(text) - text.count(" ")
            link_density = min(1.0, link_chars / chars) if chars > 0 else 0.0
            if link_density >= LINK_DENSITY_LIMIT and (
                units < LINKED_PROSE_UNITS or punctuation_of(index, text) < 2
            ):  # a menu, a link list, a teaser title
                append(-units * link_density)
                continue
        if units < LEGAL_MAX_UNITS and marked & _LEGAL_FLAG and legal(text):
            append(-units - 5.0)
            drop(index)
            continue
        if (
            units < BYLINE_MAX_UNITS
            and _is_byline(text)
            and not text.rstrip().endswith(_SENTENCE_ENDS)
            and not _titled_date(text, titles)
        ):
            append(-1.0)  # "By Jane Doe", "Updated 5:27 am, Nov. 20, 2019", "来源：新华社"
            drop(index)
            continue
        if units < TEASER_MAX_UNITS and text.rstrip().endswith(_ELLIPSES):
            append(-1.0)  # an excerpt cut off with "...": a teaser of another page
            continue
        punctuation = punctuation_of(index, text)
        if punctuation == 0:  # labels, titles, bylines, teasers: paragraphs have sentences
            append(-1.0 if units < UNPUNCTUATED_MAX_UNITS else units * 0.3)
            continue
        punctuated = min(1.0, punctuation * 15.0 / max(15.0, units))
        # Prose pays for its links: a digest of linked sentences stays above zero, barely.
        text_part = (1.0 - link_density) * (0.5 + 0.5 * punctuated)
        append(units * (text_part - LINK_PENALTY * link_density))
    return scores


def node_hints(
    page: Segmented, scores: list[float], strong_chrome: bool = True,
    teasers_out: set[int] | None = None,
) -> list[int]:
    """Each node's hint in force: the nearest hinted ancestor's, chrome staying chrome inside.

    A node hinted as chrome (comments, related, cookie notice ...) makes its whole subtree
    chrome, whatever inner classes say. A weaker chrome hint (ad, sidebar, share ...) that holds
    more than CHROME_MAX_SHARE of the page's positive text is a wrapper with an unlucky class
    name ("page-ad-margins", "has-sidebar") and is ignored. Without ``strong_chrome`` every
    chrome hint is weighed so (the lenient reading of a page that had no article).
    """
    positive_prefix = [0.0]
    total = 0.0
    for score in scores:
        if score > 0:
            total += score
        positive_prefix.append(total)
    limit = CHROME_MAX_SHARE * total

    starts, ends, parents, lasts = page.node_start, page.node_end, page.node_parent, page.node_last

    def mass(node: int) -> float:
        return positive_prefix[ends[node]] - positive_prefix[starts[node]]

    tags, classes = page.node_tag, page.node_class
    kin_masses: dict[int, dict[tuple[str, str], float]] = {}  # parent -> (tag, class) -> mass

    def kin_mass(node: int) -> float:
        """The text of ``node`` and of its siblings of the same tag and class: an article
        body cut in two wrappers ("article-body pagination-first") by a box is one body."""
        parent = parents[node]
        if not WRAPPERS_WEIGHED_TOGETHER or parent < 0:
            return mass(node)
        kin = kin_masses.get(parent)
        if kin is None:
            kin = kin_masses[parent] = {}
            child, last = parent + 1, lasts[parent]
            while child < last:
                key = (tags[child], classes[child])
                kin[key] = kin.get(key, 0.0) + mass(child)
                child = lasts[child]
        return kin[(tags[node], classes[node])]

    own_hints = page.node_own_hint
    teasers = teaser_cards(page, positive_prefix)
    if teasers_out is not None:
        teasers_out.update(teasers)
    hints = [NEUTRAL] * len(own_hints)
    # Only hinted nodes change the hint in force; each sets it on its whole subtree (nodes
    # index + 1 .. last), and hinted nodes inside, visited later in pre-order, override it.
    hinted = [index for index, own in enumerate(own_hints) if own]
    if teasers:
        hinted = sorted(teasers.union(hinted))
    for index in hinted:
        parent = parents[index]
        inherited = hints[parent] if parent >= 0 else NEUTRAL
        own = own_hints[index]
        if inherited == NEGATIVE:
            continue
        if index in teasers:
            hint = NEGATIVE
        elif own == POSITIVE:
            hint = POSITIVE
        elif (own == CHROME and strong_chrome) or kin_mass(index) <= limit:
            hint = NEGATIVE
        else:
            continue
        if hint != inherited:
            last = lasts[index]
            hints[index:last] = [hint] * (last - index)
    return hints


def teaser_cards(page: Segmented, positive_prefix: list[float]) -> set[int]:
    """Nodes that are cards of a teaser grid ("more stories"): TEASER_CARDS_MIN or more
    siblings of one tag and class, each a heading with at most TEASER_CARD_MAX_SCORE of text."""
    tags, classes, parents = page.node_tag, page.node_class, page.node_parent
    starts, ends = page.node_start, page.node_end
    holders: set[int] = set()  # nodes with a heading inside
    for index in [index for index, tag in enumerate(tags) if tag in HEADING_TAGS]:
        node = parents[index]
        while node >= 0 and node not in holders:
            holders.add(node)
            node = parents[node]
    groups: dict[tuple[int, str, str], list[int]] = {}
    with_text: set[tuple[int, str, str]] = set()  # groups with a member of article size
    for index in holders:
        if not classes[index]:
            continue
        key = (parents[index], tags[index], classes[index])
        mass = positive_prefix[ends[index]] - positive_prefix[starts[index]]
        if mass <= TEASER_CARD_MAX_SCORE:
            groups.setdefault(key, []).append(index)
        elif mass > TEASER_GROUP_TEXT_SCORE:
            with_text.add(key)
    cards: set[int] = set()
    for key, members in groups.items():
        # Beside a sibling of theirs that is an article (a thread's opening post, a long
        # section), short siblings of its kind are more of it (replies), not teasers.
        if len(members) >= TEASER_CARDS_MIN and key not in with_text:
            cards.update(members)
    return cards


def hinted_scores(page: Segmented, scores: list[float], hints: list[int]) -> list[float]:
    """Base scores weighted by the owner's hint: chrome below zero, article text raised."""
    hinted = []
    for score, owner in zip(scores, page.block_owner, strict=True):
        hint = hints[owner] if owner >= 0 else NEUTRAL
        if hint == NEGATIVE:
            score = -abs(score) * 0.7 - 1.0
        elif hint == POSITIVE and score > 0:
            score *= 1.5
        hinted.append(score)
    return hinted


def best_child_run(page: Segmented, scores: list[float]) -> tuple[int, int, int]:
    """(node, first block, end block) of the best run of consecutive children of any node.

    A node's children, in document order, are its own text blocks and its child nodes (each
    taken whole, with its subtree's total). The run with the largest total over all nodes is the
    main content: article paragraphs are consecutive siblings, while the chrome between them and
    the rest of the page (menus, link lists, teaser grids) sums below zero or sits elsewhere.
    One merged pass over nodes and blocks runs Kadane's algorithm for every node at once
    (compiled: ``_speedups.child_runs``; :func:`child_runs_python` is the same pass).
    """
    runs = _compiled_child_runs if _compiled_child_runs is not None else child_runs_python
    best_total, best_start, best_end = runs(scores, page.node_start, page.node_end,
                                            page.node_parent, page.block_owner)
    best, best_key = -1, (0.0, 0)
    own_hints, depths = page.node_own_hint, page.node_depth
    for index in [index for index, value in enumerate(best_total) if value > 0]:
        value = best_total[index]
        if own_hints[index] == POSITIVE:
            value *= POSITIVE_NODE_BONUS
        key = (value, depths[index])
        if key > best_key:
            best, best_key = index, key
    if best < 0:
        return -1, 0, 0
    start, end = best_start[best], best_end[best]
    while start < end and scores[start] <= 0:  # a run may end inside a child: trim its edges
        start += 1
    while end > start and scores[end - 1] <= 0:
        end -= 1
    return best, start, end


def child_runs_python(scores: list[float], starts: list[int], ends: list[int],
                      parents: list[int], owners: list[int]
                      ) -> tuple[list[float], list[int], list[int]]:
    """For each node, the total, first block and end block of its best run of consecutive
    children (:func:`best_child_run`'s pass)."""
    prefix = [0.0]
    total = 0.0
    for score in scores:
        total += score
        prefix.append(total)
    count = len(starts)
    run_start = [0] * count
    run_total = [0.0] * count
    best_total = [0.0] * count
    best_start = [0] * count
    best_end = [0] * count

    # Kadane's step, written out twice below (this loop sees every block and node):
    # extend the node's current run by one child, or restart it there; keep the best run.
    node = 0
    for block in range(len(scores)):
        while node < count and starts[node] == block:
            end, parent = ends[node], parents[node]
            node += 1
            if parent < 0 or end == block:
                continue
            value = prefix[end] - prefix[block]
            running = run_total[parent]
            if running <= 0:
                run_start[parent] = block
                running = value
            else:
                running += value
            run_total[parent] = running
            if running > best_total[parent]:
                best_total[parent] = running
                best_start[parent] = run_start[parent]
                best_end[parent] = end
        owner = owners[block]
        if owner >= 0:
            value = scores[block]
            running = run_total[owner]
            if running <= 0:
                run_start[owner] = block
                running = value
            else:
                running += value
            run_total[owner] = running
            if running > best_total[owner]:
                best_total[owner] = running
                best_start[owner] = run_start[owner]
                best_end[owner] = block + 1
    return best_total, best_start, best_end


def _children(page: Segmented, node: int) -> list[tuple[int, int, str, int]]:
    """``node``'s children in document order as (first block, end block, tag, node): its own
    text blocks (with ``node``'s tag and index) and its child nodes, each taken whole."""
    starts, ends, lasts, owners = page.node_start, page.node_end, page.node_last, page.block_owner
    tags = page.node_tag
    items: list[tuple[int, int, str, int]] = []
    child, last = node + 1, page.node_last[node]
    block, end = starts[node], ends[node]
    while block < end:
        if owners[block] == node:
            items.append((block, block + 1, tags[node], node))
            block += 1
            continue
        while child < last and ends[child] <= block:  # skip children that end before it
            child = lasts[child]
        if child >= last:  # defensive: a block of no child
            block += 1
            continue
        items.append((starts[child], ends[child], tags[child], child))
        block = ends[child]
        child = lasts[child]
    return items


def bridge_run(
    page: Segmented, scores: list[float], best: int, start: int, end: int, by_class: bool = False
) -> tuple[int, int, list[tuple[int, int]]]:
    """The run ``start:end`` of ``best``'s children carried over inline interruptions.

    A link list, an advertisement or an embedded post between two halves of an article can
    outweigh the shorter half, and Kadane's run then stops at it. Here the run goes on past at
    most BRIDGE_MAX_ITEMS children scoring below zero (and as many headings, scoring zero) when
    the children after them are paragraphs of a kind the run already holds (same tag, or a
    wrapper of such paragraphs) with BRIDGE_MIN_SCORE or more of text; the same backwards.
    Returns the new edges and the bridged gaps (block ranges), whose blocks scoring at most
    zero are left out of the text. ``by_class``: a kind is a tag with a class word in common
    (wrappers: "div" says nothing; "story-body top" and "story-body bottom" are one kind).
    """
    if best < 0 or start >= end:
        return start, end, []
    items = _children(page, best)
    if not items:
        return start, end, []
    classes, owners, tags, own_hints = (
        page.node_class, page.block_owner, page.node_tag, page.node_own_hint
    )
    values = [sum(scores[a:b]) for a, b, _, _ in items]
    first = next((i for i, (a, b, _, _) in enumerate(items) if b > start), 0)
    last = max((i for i, (a, b, _, _) in enumerate(items) if a < end), default=first)
    run = [i for i in range(first, last + 1) if values[i] > 0]
    kinds = {items[i][2] for i in run}
    kind_nodes = [items[i][3] for i in run]
    words: set[str] = set()
    positive = False
    # the paragraphs' own tags, for a half of the article not wrapped like the other
    inner = {tags[owners[i]] for i in range(start, end) if scores[i] > 0}
    if by_class:
        words = {word for node in kind_nodes for word in classes[node].split()}
        positive = any(own_hints[node] == POSITIVE for node in kind_nodes)

    def held(a: int, b: int, paragraph_tags: set[str]) -> int:
        return sum(scores[i] > 0 and tags[owners[i]] in paragraph_tags for i in range(a, b))

    def fits(index: int) -> bool:
        a, b, tag, node = items[index]
        if by_class:
            return tag in inner or (
                tag in kinds
                and (
                    not words.isdisjoint(classes[node].split())
                    or (positive and own_hints[node] == POSITIVE)
                    # wrappers named by neither ("<td>", "<div>"): paragraphs of a kind inside
                    or (
                        UNNAMED_WRAPPERS_BRIDGED
                        and not words
                        and not classes[node]
                        and held(a, b, inner) >= WRAPPED_PARAGRAPHS_MIN
                    )
                )
            )
        if tag in kinds:
            return True
        # a wrapper of paragraphs of the run's kind ("body-rest" after an inline block)
        return held(a, b, kinds) >= WRAPPED_PARAGRAPHS_MIN

    gaps: list[tuple[int, int]] = []

    def text_mass(index: int) -> float:
        a, b = items[index][0], items[index][1]
        return sum(score for score in scores[a:b] if score > 0)

    def mixed(index: int) -> bool:
        """A wrapper whose paragraphs of the run's kind are outweighed by a list of links
        between them: the article goes on in it (the list is left out as anywhere)."""
        a, b = items[index][0], items[index][1]
        return (
            MIXED_WRAPPERS_BRIDGED
            and values[index] <= 0
            and held(a, b, inner) >= WRAPPED_PARAGRAPHS_MIN
            and text_mass(index) >= BRIDGE_MIN_SCORE
        )

    def continuation(index: int, step: int) -> tuple[int, float]:
        """From ``index``, the farthest item of a stretch of positive items of the run's
        kinds (stepping by ``step``) and its total."""
        total, reach = 0.0, -1
        while 0 <= index < len(items) and (values[index] > 0 or mixed(index)) and fits(index):
            # a wrapper named like the run's is weighed by its paragraphs alone: a gallery or
            # a box inside it is left out of the text anyway
            weighed = (by_class and NAMED_WRAPPER_TEXT_MASS) or values[index] <= 0
            total += text_mass(index) if weighed else values[index]
            reach = index
            index += step
        return reach, total

    for step in (1, -1):
        edge = last if step == 1 else first
        while True:
            gap, negatives = edge + step, 0  # past the interruption
            while True:
                start_of_gap = gap
                while (
                    0 <= gap < len(items)
                    and (values[gap] <= 0 or (OTHER_KINDS_CROSSED and not fits(gap)))
                    and not mixed(gap)
                    and abs(gap - edge) <= 2 * BRIDGE_MAX_ITEMS
                ):
                    negatives += values[gap] != 0  # headings (zero) between sections are free
                    gap += step
                if (
                    gap == start_of_gap
                    or negatives > BRIDGE_MAX_ITEMS
                    or abs(gap - edge) > 2 * BRIDGE_MAX_ITEMS
                ):
                    reach, total = -1, 0.0
                    break
                reach, total = continuation(gap, step)
                if reach < 0 or total >= BRIDGE_MIN_SCORE or not SHORT_STRETCHES_CROSSED:
                    break
                # a short paragraph between two interruptions: part of the gap, look past it
                gap = reach + step
            if reach < 0 or total < BRIDGE_MIN_SCORE:
                break
            low, high = sorted((edge + step, gap - step))
            gaps.append((items[low][0], items[high][1]))
            edge = reach
        if step == 1:
            last = edge
        else:
            first = edge
    if not gaps:
        return start, end, []
    return min(start, items[first][0]), max(end, items[last][1]), gaps


def bridge_sections(
    page: Segmented, scores: list[float], hints: list[int], best: int, start: int, end: int
) -> int:
    """The run's end carried on over the tables and lists of a reference page into its next
    headed sections.

    An encyclopedia-style page holds long tables and lists (works, dates, results) between
    its sections: their linked cells score below zero, and Kadane's run ends at the first
    long one. Here the run goes on past any number of children that are only tables, lists
    and headings (not chrome) when a heading then opens paragraphs (or a section) of the
    run's kind with BRIDGE_MIN_SCORE or more. Returns the new end; what was carried over
    stays in the text (it is the page's data; link lists in it are left out as anywhere).
    """
    if best < 0 or start >= end or max(scores[end : page.node_end[best]], default=0.0) <= 0:
        return end  # no text after the run in its node: nothing to carry it to
    items = _children(page, best)
    values = [sum(scores[a:b]) for a, b, _, _ in items]
    last = max((i for i, item in enumerate(items) if item[0] < end), default=-1)
    kinds = {items[i][2] for i in range(last + 1) if items[i][1] > start and values[i] > 0}
    if last < 0 or last + 1 >= len(items):
        return end
    owners, tags = page.block_owner, page.node_tag
    data_owner: list[bool] = []  # each node: a table, a list or a heading, or inside a table

    def is_data(first: int, stop: int) -> bool:
        if not data_owner:  # read only when some child scores below zero
            data_owner.extend(in_tables(page))
            for node, tag in enumerate(tags):
                data_owner[node] = data_owner[node] or tag in SECTION_DATA_TAGS
        return all(
            scores[block] >= 0 or (owners[block] >= 0 and data_owner[owners[block]])
            for block in range(first, stop)
        )

    def opens_section(index: int) -> bool:
        first = items[index][0]
        return items[index - 1][2] in HEADING_TAGS or tags[owners[first]] in HEADING_TAGS

    index = last + 1
    while index < len(items):
        gap = index
        while gap < len(items) and not (values[gap] > 0 and items[gap][2] in kinds):
            first, stop, _, node = items[gap]
            if hints[node] == NEGATIVE or (values[gap] < 0 and not is_data(first, stop)):
                return end
            gap += 1
        if gap >= len(items) or not opens_section(gap):
            return end
        reach, total = gap, 0.0
        while reach < len(items) and values[reach] > 0 and items[reach][2] in kinds:
            total += values[reach]
            reach += 1
        if total < BRIDGE_MIN_SCORE:
            return end
        end = max(end, items[reach - 1][1])
        index = reach
    return end


def bridge_up(
    page: Segmented, scores: list[float], best: int, start: int, end: int,
    gaps: list[tuple[int, int]],
) -> tuple[int, int, int, list[tuple[int, int]]]:
    """The run carried on in ``best``'s parent (and its parent: BRIDGE_UP_LEVELS) when it
    covers all of ``best``'s text: an article body cut into two wrappers of one tag and class
    by an advertisement or a box of links (see :func:`bridge_run`). Returns the new node,
    edges and gaps; the parts of ``best`` left out of its run become gaps too."""
    starts, ends, parents = page.node_start, page.node_end, page.node_parent
    for _ in range(BRIDGE_UP_LEVELS):
        if best < 0 or parents[best] < 0:
            break
        low, high = starts[best], ends[best]
        if max(scores[low:start], default=0.0) > 0 or max(scores[end:high], default=0.0) > 0:
            break  # the run is only a part of its node
        new_start, new_end, new_gaps = bridge_run(
            page, scores, parents[best], start, end, by_class=True
        )
        if not new_gaps:
            break
        edges = [(a, b) for a, b in ((low, start), (end, high)) if a < b]
        best, start, end = parents[best], new_start, new_end
        gaps = [*gaps, *edges, *new_gaps]
    return best, start, end, gaps


def article_lead(
    page: Segmented, hints: list[int], boilerplate: set[int],
    best: int, start: int, end: int, title: str, captions: list[bool] | None = None,
) -> int:
    """The run's start moved back, inside ``best``, over the article's lead: a subtitle in
    heading markup, a standfirst without a full stop (a "label" to the scores). Only unlinked
    text that is neither chrome nor furniture nor the headline (the title's heading or an
    h1), right before the run, or with only photos' ``captions`` between."""
    if best < 0 or start >= end:
        return start
    owners, tags, texts = page.block_owner, page.node_tag, page.block_text
    links = page.block_link_chars
    low = page.node_start[best]

    def plain(index: int) -> bool:
        owner = owners[index]
        return (
            owner >= 0
            and not links[index]
            and hints[owner] != NEGATIVE
            and index not in boilerplate
        )

    index = start
    while index > low:
        index -= 1
        if captions is not None and owners[index] >= 0 and captions[owners[index]]:
            continue  # a photo between the standfirst and the body
        if not plain(index):
            break
        text = _normalize(texts[index])
        tag = tags[owners[index]]
        if tag == "h1" or text == title:
            break  # the headline, whatever the <title> says
        if not (tag in HEADING_TAGS or text_units(text) >= LEAD_MIN_UNITS):
            break
        start = index
    return start


def _is_dated_line(text: str) -> bool:
    """A short line with a date that is not a sentence: "Posted 2005-03-21 01:20 by Ann"."""
    if not ("19" in text or "20" in text) or _BYLINE_DATE_RE.search(text) is None:
        return False
    return text_units(text) < DATED_LINE_MAX_UNITS and not text.rstrip().endswith(_FULL_STOPS)


_WEEKDAY_RE = re.compile(
    r"\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|星期.|周[一二三四五六日天]", re.IGNORECASE
)
_NOT_NAME_RE = re.compile(r"[\d\W_]+")


def _voice(dated_line: str) -> str:
    """What is left of a post's dated line without its date, time and counts: the same for
    every post of one author ("Posted by Ann | comments"), different across a thread's."""
    line = _WEEKDAY_RE.sub(" ", _BYLINE_DATE_RE.sub(" ", dated_line))
    return _NOT_NAME_RE.sub(" ", line).strip().lower()


def first_entry_end(page: Segmented, scores: list[float], best: int, start: int, end: int) -> int:
    """Where the first post ends when the run is a blog's front page, else ``end``.

    A blog's front page or a forum thread is a run of sibling entries of one tag and class,
    each with its own text and a dated line ("posted 2005-03-21 by ..."). ENTRY_MIN or more
    such siblings among the run's children (or ENTRY_LEVELS_DOWN wrappers down, following the
    child that holds most of the run's text), with at least ENTRY_MIN_SHARE of its text, make a
    list; one article has one dateline. When the dated lines, dates left out, read the same
    (one author), the page's main content is its first post; when they name different people,
    or none (THREADS_KEPT_WHOLE), it is a thread, kept whole.
    """
    if best < 0:
        return end
    starts, ends, lasts = page.node_start, page.node_end, page.node_last
    mass = sum(score for score in scores[start:end] if score > 0)
    node = best
    for _ in range(1 + ENTRY_LEVELS_DOWN):
        cut = _first_entry_cut(page, scores, node, start, end, mass)
        if cut is not None:
            return cut
        # The posts may sit one wrapper down ("post-entry" inside the page's <article>, beside
        # its author box): the child that holds most of the run's text.
        heaviest, heaviest_mass = -1, 0.0
        child, last = node + 1, lasts[node]
        while child < last and starts[child] < end:
            low, high = max(start, starts[child]), min(end, ends[child])
            child_mass = sum(score for score in scores[low:high] if score > 0)
            if child_mass > heaviest_mass:
                heaviest, heaviest_mass = child, child_mass
            child = lasts[child]
        if heaviest < 0 or heaviest_mass < ENTRY_MIN_SHARE * mass:
            break
        node = heaviest
    return end


def _first_entry_cut(
    page: Segmented, scores: list[float], node: int, start: int, end: int, mass: float
) -> int | None:
    """:func:`first_entry_end` for the posts among ``node``'s children: the first post's end,
    ``end`` for a thread, None when they are no list of posts."""
    starts, ends, lasts = page.node_start, page.node_end, page.node_last
    tags, classes, texts = page.node_tag, page.node_class, page.block_text
    groups: dict[tuple[str, str], list[int]] = {}
    child, last = node + 1, lasts[node]
    while child < last and starts[child] < end:
        if ends[child] > start and ends[child] - starts[child] >= 2:
            groups.setdefault((tags[child], classes[child]), []).append(child)
        child = lasts[child]
    for members in groups.values():
        if len(members) < ENTRY_MIN:
            continue
        entries = []
        voices = set()
        for member in members:
            member_mass = sum(score for score in scores[starts[member] : ends[member]] if score > 0)
            if member_mass < MIN_ARTICLE_SCORE:
                continue
            dated = [text for text in texts[starts[member] : ends[member]] if _is_dated_line(text)]
            if dated:
                entries.append((member, member_mass))
                voices.add(" ".join(_voice(line) for line in dated).strip())
        if (
            len(entries) < ENTRY_MIN
            or sum(member_mass for _, member_mass in entries) < ENTRY_MIN_SHARE * mass
        ):
            continue
        total = sum(member_mass for _, member_mass in entries)
        if (
            THREADS_KEPT_WHOLE
            and (len(voices) > 1 or "" in voices)
            and total - entries[0][1] >= THREAD_REPLIES_MIN_SHARE * total
        ):
            # Posts signed by different people, or by nobody the dated line names (the
            # author stands apart): a thread, kept whole, unless its replies are a footnote
            # to the opening post ("agreed", "nice pic").
            return end
        cut = min(end, ends[entries[0][0]])
        while cut > start and scores[cut - 1] <= 0:  # the post's footer, as the run's edges
            cut -= 1
        return cut if sum(scores[start:cut]) >= MIN_ARTICLE_SCORE else end
    return None


def _normalize(text: str) -> str:
    return " ".join(text.split())


def _clean_title(title: str) -> str:
    parts = [part.strip() for part in _TITLE_SPLIT_RE.split(title) if part.strip()]
    return max(parts, key=len) if parts else ""


def _token_set(text: str) -> set[str]:
    return set(_WORD_RE.findall(text.lower())) | set(_CJK_RE.findall(text))


def _similar(a: str, b: str, tokens_b: set[str]) -> bool:
    """Whether ``a`` and ``b`` name the same thing; ``tokens_b`` is ``_token_set(b)``."""
    if not a or not b:
        return False
    if a in b or b in a:
        return True
    tokens_a = _token_set(a)
    if not tokens_a or not tokens_b:
        return False
    return len(tokens_a & tokens_b) / min(len(tokens_a), len(tokens_b)) >= 0.7


def _heading_text(texts: list[str], start: int, end: int, normalized: dict[int, str]) -> str:
    """``_normalize(" ".join(texts[start:end]))``, or "" once that exceeds HEADLINE_MAX_CHARS.

    Built block by block and each block normalised once per page, so the work per heading is
    bounded even when headings nest thousands deep (each holding the rest of the page)."""
    parts: list[str] = []
    size = -1  # len(" ".join(parts))
    for block in range(start, end):
        text = normalized.get(block)
        if text is None:
            text = normalized[block] = _normalize(texts[block])
        size += len(text) + 1  # a blank block (segment emits none) counts its separator too
        if size > HEADLINE_MAX_CHARS:
            return ""
        if text:
            parts.append(text)
    return " ".join(parts)


def headline(page: Segmented) -> str:
    """The page's headline: the h1/h2 that matches the <title> or og:title, else that title."""
    declared = page.meta_title or page.title
    cleaned = _clean_title(declared)
    # The titles as the headings see them: read once, and no longer than a heading may be, so
    # that a huge <title> does not cost its length again for every heading either.
    declared_cut, cleaned_cut = declared[:HEADLINE_MAX_CHARS], cleaned[:HEADLINE_MAX_CHARS]
    declared_tokens, cleaned_tokens = _token_set(declared_cut), _token_set(cleaned_cut)
    node_tag, node_start, node_end = page.node_tag, page.node_start, page.node_end
    normalized: dict[int, str] = {}  # block -> its normalised text, shared by nested headings
    for index, tag in enumerate(node_tag):
        if tag == "h1" or tag == "h2":
            heading = _heading_text(page.block_text, node_start[index], node_end[index], normalized)
            if heading and (
                not cleaned
                or _similar(heading, cleaned_cut, cleaned_tokens)
                or _similar(heading, declared_cut, declared_tokens)
            ):
                return heading
    return cleaned


def first_heading(page: Segmented) -> str:
    """The text of the page's first ``<h1>``, or "" (none, or one longer than a heading may be:
    :data:`HEADLINE_MAX_CHARS`)."""
    for index, tag in enumerate(page.node_tag):
        if tag == "h1":
            return _heading_text(page.block_text, page.node_start[index], page.node_end[index],
                                 {})
    return ""


def _lines(text: str) -> list[str]:
    if LINE_BREAK not in text:  # most blocks: one line, no generator needed
        line = " ".join(text.split())
        return [line] if line else []
    return [line for line in (_normalize(part) for part in text.split(LINE_BREAK)) if line]


def article_from_segments(
    page: Segmented, first_entry_only: bool = True, lenient: bool = False
) -> Article:
    """Headline and main-content paragraphs of an already segmented page.

    On a blog's front page the main content is the first post (see :func:`first_entry_end`);
    ``first_entry_only=False`` keeps the whole list (what fingerprints use, so a blog's front
    page is not a near-duplicate of its newest post's own page). ``lenient``
    weighs strong chrome hints as weak ones (see :func:`node_hints`).
    """
    boilerplate: set[int] = set()
    # A photo's caption is visible text of the page, not of its article: scored zero, it neither
    # extends the run nor breaks it, and it is left out of the text.
    captions = in_captions(page) if "figcaption" in page.node_tag else None
    scores = base_scores(page, boilerplate, captions)
    teasers: set[int] = set()
    hints = node_hints(page, scores, strong_chrome=not lenient, teasers_out=teasers)
    scores = hinted_scores(page, scores, hints)
    best, start, end = best_child_run(page, scores)
    start, end, gaps = bridge_run(page, scores, best, start, end)
    if BRIDGE_UP_LEVELS:
        best, start, end, gaps = bridge_up(page, scores, best, start, end, gaps)
    if SECTIONS_KEPT:
        end = bridge_sections(page, scores, hints, best, start, end)
    if first_entry_only:
        end = first_entry_end(page, scores, best, start, end)
    title = headline(page)
    if LEAD_KEPT:
        start = article_lead(page, hints, boilerplate, best, start, end, title, captions)
    # The bridged interruptions are not the article's: they do not count against it.
    mass = sum(scores[start:end]) - sum(min(0.0, sum(scores[a:b])) for a, b in gaps if b <= end)
    if best < 0 or mass < MIN_ARTICLE_SCORE:
        # No prose worth the name (a product page, a form, a tiny page): keep the page's
        # plain text instead, without link lists and hinted chrome.
        best, start, end = -1, 0, len(page.block_text)
    is_article = best >= 0
    filter_chrome = best < 0 or hints[best] != NEGATIVE
    node_tag = page.node_tag
    texts, link_chars, owners = page.block_text, page.block_link_chars, page.block_owner
    # Inside the article, a table's linked cells are its data (an infobox's values, a table
    # of works); elsewhere on the page a table of links is a menu, and so it is in a page
    # whose article is its whole body (tables there lay the page out).
    keeps_cells = TABLE_LINKS_KEPT and is_article and page.node_tag[best] not in ("html", "body")
    data_cells: list[bool] = []  # read at the first linked block that needs it
    paragraphs: list[str] = []
    taken: list[int] = []  # (on a lenient reading: the blocks the paragraphs come from)
    for index in range(start, end):
        owner = owners[index]
        if filter_chrome and owner >= 0 and hints[owner] == NEGATIVE:
            continue
        if index in boilerplate or (captions is not None and owner >= 0 and captions[owner]):
            continue
        if gaps and scores[index] <= 0 and any(a <= index < b for a, b in gaps):
            continue  # the inline interruption the run was carried over
        is_heading = owner >= 0 and node_tag[owner] in HEADING_TAGS
        if (
            link_chars[index]
            and scores[index] < 0
            and (not is_heading or LINKED_HEADINGS_DROPPED)
            and not (keeps_cells and owner >= 0 and _in_data(page, best, data_cells, owner))
        ):
            continue
        lines = _lines(texts[index])
        if is_heading and len(lines) == 1 and lines[0] == title:
            continue
        paragraphs.extend(lines)
        if lenient:
            taken.append(index)
    fallback = not paragraphs
    if fallback:
        # Nothing survived the filters: the page's text, never an empty result for a page that
        # shows some (without its legal lines and bylines when anything else is left).
        paragraphs = _all_lines(texts, boilerplate) or _all_lines(texts, set())
        is_article = False
    chrome_only = bool(taken) and _in_named_chrome(page, taken)
    return Article(title, paragraphs, is_article, hints, boilerplate, teasers, fallback,
                   chrome_only, best)


def _in_named_chrome(page: Segmented, blocks: list[int]) -> bool:
    """Whether every one of ``blocks`` is in a node whose own name or tag says chrome (a cookie
    notice, a footer, a sidebar), itself or an ancestor."""
    named = [False] * len(page.node_tag)
    for node, (hint, parent) in enumerate(zip(page.node_own_hint, page.node_parent,
                                              strict=True)):
        named[node] = hint in (CHROME, WEAK_CHROME) or (parent >= 0 and named[parent])
    return all(page.block_owner[index] >= 0 and named[page.block_owner[index]]
               for index in blocks)


def _in_data(page: Segmented, best: int, data_cells: list[bool], node: int) -> bool:
    """Whether ``node`` is in a table inside ``best`` (``data_cells`` is filled once)."""
    if not data_cells:
        data_cells.extend(in_tables(page, within=best))
    return data_cells[node]


def _all_lines(texts: list[str], left_out: set[int]) -> list[str]:
    lines: list[str] = []
    for index, text in enumerate(texts):
        if index not in left_out:
            lines.extend(_lines(text))
    return lines


def _read(root, first_entry_only: bool) -> tuple[Segmented, Article]:
    """The page's segments and article; when the first reading finds no article, a lenient
    second one (see LENIENT_FALLBACK) gives them if it finds one."""
    page = segment(root)
    article = article_from_segments(page, first_entry_only)
    if article.is_article or not LENIENT_FALLBACK:
        return page, article
    # No article: the whole page may sit in a wrapper named like chrome ("theme-taboola"), in
    # a <nav> that broken markup left open, or in <noscript>. Read those too, and weigh strong
    # chrome names by the text they hold, as weak ones are.
    lenient_page = segment(root, lenient=True)
    lenient = article_from_segments(lenient_page, first_entry_only, lenient=True)
    if lenient.is_article and (
        not lenient.chrome_only or _share(lenient, lenient_page) >= LENIENT_MIN_SHARE
    ):
        return lenient_page, lenient
    if lenient.paragraphs and not article.paragraphs:
        return lenient_page, lenient
    if not article.paragraphs:
        # Not a word shown: the text may be hidden until a script reveals it (a "loading"
        # wrapper styled display:none). Read it rather than give nothing.
        hidden_page = segment(root, lenient=True, keep_hidden=True)
        hidden = article_from_segments(hidden_page, first_entry_only, lenient=True)
        if hidden.paragraphs:
            return hidden_page, hidden
    return page, article


def _share(article: Article, page: Segmented) -> float:
    """The share of the page's text (links included) that ``article``'s paragraphs hold."""
    total = sum(map(len, page.block_text))
    return sum(map(len, article.paragraphs)) / total if total else 0.0


def article_from_tree(root, first_entry_only: bool = True) -> Article:
    """Headline and main-content paragraphs of a parsed page (the tree is not changed)."""
    return _read(root, first_entry_only)[1]


@dataclass(frozen=True)
class Extraction:
    """A page's main text and what tells how far it stands for the page.

    ``confidence`` is the share of the page's visible text, link lists left out, that the main
    text holds (0 to 1), halved when the page had no run of prose (``is_article`` False: its
    plain text stands in). :meth:`content_text` is the page's text without its chrome: the main
    text with the tables, lists and fields beside it (a listing's grid, an entity page's
    fields); :meth:`page_text` all of it.
    """

    text: str
    is_article: bool
    page: Segmented | None = None
    article: Article | None = field(default=None, repr=False)

    @property
    def fallback(self) -> bool:
        """Whether no main text was found and the page's whole text stands in for it."""
        return self.article is not None and self.article.fallback

    @cached_property
    def confidence(self) -> float:
        page = self.page
        if page is None:
            return 0.0
        # link lists (menus, related links) are left out: a page that gains a block of links
        # is not less of an article for it
        visible = sum(
            len(block)
            for block, links in zip(page.block_text, page.block_link_chars, strict=True)
            if links * 2 <= len(block)
        )
        if not visible:
            return 0.0
        share = min(1.0, len(self.text) / visible)
        return share if self.is_article else share / 2

    @property
    def declared_title(self) -> str:
        """What the page calls itself: its ``<title>`` and ``og:title`` (or ``twitter:title``),
        one line each when they differ."""
        page = self.page
        if page is None:
            return ""
        if page.meta_title and page.meta_title != page.title:
            return f"{page.title}\n{page.meta_title}".strip()
        return page.title

    @property
    def headed_title(self) -> str:
        """:attr:`declared_title` and the text of the page's first ``<h1>``, one line each: what
        names a page of little text, whose ``<title>`` may be its section's ("Jobs")."""
        heading = first_heading(self.page) if self.page is not None else ""
        return f"{self.declared_title}\n{heading}".strip() if heading else self.declared_title

    def dated_furniture(self) -> list[str]:
        """The dated lines of the page's content that its text leaves out as furniture and
        that say what day the page is about (an event's "Date: March 14, 2025 at 7:30pm"), one
        block a line; not a byline's nor a stamp of when the page was written or updated
        ("Updated May 3, 2024 10:22", "Last checked: ..."), which another fetch of the page may
        change."""
        page, article = self.page, self.article
        if page is None or article is None:
            return []
        return [text for text, owner in ((page.block_text[index], page.block_owner[index])
                                         for index in sorted(article.boilerplate))
                if not (owner >= 0 and article.hints[owner] == NEGATIVE)
                and _is_byline(text) and _BYLINE_START_RE.match(text) is None
                and _STAMP_RE.search(text) is None]

    @property
    def heading(self) -> str:
        """The main text's first line when it is an ``<h1>`` of the page's (not in its chrome),
        else "": the main text's own name, where a ``<title>`` often names the site, and so does
        the ``<h2>`` of a logo that a page without a heading of its own may open with."""
        page, article = self.page, self.article
        line = self.text.partition("\n")[0]
        if page is None or article is None or not line or len(line) > HEADLINE_MAX_CHARS:
            return ""
        normalized: dict[int, str] = {}  # (each block normalised once, however many <h1>s)
        for index, tag in enumerate(page.node_tag):
            if tag == "h1" and article.hints[index] != NEGATIVE and _heading_text(
                page.block_text, page.node_start[index], page.node_end[index], normalized
            ) == line:
                return line
        return ""

    def page_text(self, max_chars: int = DEFAULT_MAX_CHARS, titled: bool = True) -> str:
        """All visible text of the page, one block per line (the title first, if ``titled``),
        then its hidden panels' (:attr:`Segmented.hidden_text`)."""
        if self.page is None:
            return self.text
        return self._joined(chain(self.page.block_text, self.page.hidden_text), max_chars,
                            titled)

    def content_text(self, max_chars: int = DEFAULT_MAX_CHARS, unlinked: bool = False) -> str:
        """The text of every block that is not chrome (menus, headers, footers, asides, legal
        lines), one block per line; teaser grids count (a listing's products are its content).
        The title, which often names the site, does not: :meth:`page_text` has it. The text of
        hidden panels (:attr:`Segmented.hidden_text`) comes last.
        ``unlinked``: only the blocks that are not mostly link text (a link names another page:
        "Plot 12 · 2 bed · £265,000" in a list of a development's other homes)."""
        if self.page is None or self.article is None:
            return self.text
        texts = self.page.block_text
        kept = self._content_blocks
        if unlinked:
            kept = [keep and links * 2 <= len(text) for keep, text, links
                    in zip(kept, texts, self.page.block_link_chars, strict=True)]
        content = (text for text, keep in zip(texts, kept, strict=True) if keep)
        # and its hidden panels' (a closed tab's specification, an FAQ's answers)
        return self._joined(chain(content, self.page.hidden_text), max_chars, titled=False)

    def comment_text(self, max_chars: int = DEFAULT_MAX_CHARS) -> str:
        """The text of the page's own comments (:func:`own_comments`), one block per line; ""
        when it has none. Neither its main text nor its content: what tells one page of an
        article's comments from the next (``?cpage=3``)."""
        if self.page is None or self.article is None:
            return ""
        inside = own_comments(self.page, self.article.hints)
        if inside is None:
            return ""
        texts = (text for text, owner in zip(self.page.block_text, self.page.block_owner,
                                              strict=True) if owner >= 0 and inside[owner])
        return self._joined(texts, max_chars, titled=False)

    def rest_lines(self, max_chars: int = DEFAULT_MAX_CHARS) -> list[str]:
        """The lines of the content beside the main text (:meth:`content_text`'s other lines: a
        job's fields, a listing's grid, a table), up to about ``max_chars`` characters."""
        if self.page is None or self.article is None:
            return []
        own = set(self.text.split("\n"))
        rest: list[str] = []
        size = 0
        content = (text for text, keep in zip(self.page.block_text, self._content_blocks,
                                              strict=True) if keep)
        for text in chain(content, self.page.hidden_text):  # (hidden panels last)
            lines = [line for line in _lines(text) if line not in own]
            rest.extend(lines)
            size += sum(len(line) for line in lines)
            if size >= max_chars:
                break
        return rest

    def colon_lines(self, max_chars: int = 80) -> list[str]:
        """The lines of at most ``max_chars`` characters with a colon in them of the page's own
        content (:meth:`content_text`'s blocks that are not mostly link text): where its
        "Label: value" fields are."""
        if self.page is None or self.article is None:
            blocks = iter([(self.text.replace("\n", LINE_BREAK), True, 0)])
        else:
            blocks = zip(self.page.block_text, self._content_blocks, self.page.block_link_chars,
                         strict=True)
        return [line for text, keep, links in blocks
                if (":" in text or "\uff1a" in text) and keep and links * 2 <= len(text)
                for line in _lines(text)
                if len(line) <= max_chars and (":" in line or "\uff1a" in line)]

    def entry_links(self) -> tuple[list[str], list[str]]:
        """The targets (``href`` as written) of the page's entries: the links outside nodes
        named or tagged as chrome whose entry, the nearest node around the link (at most
        :data:`ENTRY_LINK_LEVELS` up) with :data:`ENTRY_MIN_TEXT` characters of text beside
        links, is mostly that text, and at most :data:`ENTRY_MAX_TEXT` of it: a listing's title
        over its teaser, a link in a paragraph; or whose node, or one of the two above it, is a
        card of a grid or a row of a table (:meth:`_card`). A block of bare links (a menu, an
        extra "related" list) has no entry.

        And the links that are entries by half those measures (any node on the way up with
        half of :data:`ENTRY_MIN_TEXT`, text half of its links, twice :data:`ENTRY_MAX_TEXT`,
        or a card with a character beside its links; a node named like chrome beside at least
        40% of the page's text): an entry of a page that is not even that on another was not
        edited into one."""
        page, article = self.page, self.article
        if page is None or article is None or not page.link_href:
            return [], []
        chars = list(accumulate(map(len, page.block_text), initial=0))  # running sums
        links = list(accumulate(page.block_link_chars, initial=0))
        walk = _EntryWalk(page, chars, links)
        owners, tags, parents = page.block_owner, page.node_tag, page.node_parent
        verdicts: dict[int, tuple[bool, bool]] = {}  # (the links of one node: one verdict)
        strict, loose = [], []
        for href, block in zip(page.link_href, page.link_block, strict=True):
            owner = owners[block] if block < len(owners) else -1
            verdict = verdicts.get(owner)
            if verdict is None:
                entry = near = decided = False
                node = owner
                for _ in range(ENTRY_LINK_LEVELS + 1):
                    if node < 0 or tags[node] in UNHINTED_TAGS:
                        break
                    chrome, loose_chrome = walk.chrome(node)
                    if loose_chrome:
                        break
                    linked = links[page.node_end[node]] - links[page.node_start[node]]
                    text = chars[page.node_end[node]] - chars[page.node_start[node]] - linked
                    card = walk.card(node)
                    near = near or card > 0 or (
                        ENTRY_MIN_TEXT / 2 <= text <= 2 * ENTRY_MAX_TEXT and linked <= 2 * text)
                    decided = decided or chrome  # (inside chrome: no entry)
                    if (text >= ENTRY_MIN_TEXT or card > 1) and not decided:
                        entry, decided = card > 1 or linked <= text <= ENTRY_MAX_TEXT, True
                    node = parents[node]
                verdict = verdicts[owner] = (entry, near or entry)
            if verdict[0]:
                strict.append(href)
            if verdict[1]:
                loose.append(href)
        return strict, loose

    @cached_property
    def _content_blocks(self) -> list[bool]:
        """For each block, whether it is content (not chrome, not boilerplate)."""
        article, page = self.article, self.page
        hints, boilerplate = article.hints, article.boilerplate
        chrome = [hint == NEGATIVE for hint in hints]
        for teaser in article.teasers:  # unless a hint of their own, or an outer one, says so
            if page.node_own_hint[teaser] == NEUTRAL and not _under_chrome(page, hints, teaser):
                last = page.node_last[teaser]
                chrome[teaser:last] = [False] * (last - teaser)
        node = article.node
        if node >= 0 and "figcaption" in page.node_tag:
            # The captions of the article's photos are content (a gallery's are what tells one
            # page from another), unless the photo sits in chrome other than a photo box's own
            # (a "related" teaser with a thumbnail)
            tags, names = page.node_tag, page.node_class

            def photo_box(up: int) -> bool:
                return tags[up] in ("figure", "figcaption") or names_photo_box(names[up])

            for start in range(node + 1, page.node_last[node]):
                if tags[start] == "figcaption" and _reaches(
                        page, page.node_parent[start], node, photo_box):
                    last = page.node_last[start]
                    chrome[start:last] = [False] * (last - start)
        _unlinked_menus(page, hints, chrome)
        return [
            not (owner >= 0 and chrome[owner]) and index not in boilerplate
            for index, owner in enumerate(page.block_owner)
        ]

    def _joined(self, texts, max_chars: int, titled: bool = True) -> str:
        lines = [self.page.title] if titled and self.page.title else []
        for text in texts:
            lines.extend(_lines(text))
        return "\n".join(lines)[:max_chars]


class _EntryWalk:
    """What :meth:`Extraction.entry_links` asks of a page's nodes, each worked out once and only
    for the nodes it climbs through: whether a node is chrome, and whether it is a card."""

    def __init__(self, page: Segmented, chars: list[int], links: list[int]) -> None:
        self.page, self.chars, self.links = page, chars, links
        # a node named like chrome that holds half of the page's text beside links is the
        # page's wrapper ("tag-page", "has-sidebar"): weighed without links, so that a block of
        # links added to the page ("related") moves no other node in or out
        self.text = chars[-1] - links[-1]
        self._chrome: dict[int, tuple[bool, bool]] = {}
        self._alike: dict[int, dict[tuple[str, str], int]] = {}
        self._firsts: dict[str | None, str] = {}

    def chrome(self, node: int) -> tuple[bool, bool]:
        """(chrome, chrome by half the measure): named or tagged as chrome, or inside such a
        node."""
        known, page = self._chrome, self.page
        path = []  # the nodes up to one already weighed, or the root (deep pages: no recursion)
        while node >= 0 and node not in known:
            path.append(node)
            node = page.node_parent[node]
        outer = known[node] if node >= 0 else (False, False)
        for node in reversed(path):
            hint, share = page.node_own_hint[node], 1.0
            if hint == WEAK_CHROME and self.text:
                start, end = page.node_start[node], page.node_end[node]
                share = (self.chars[end] - self.chars[start] - self.links[end]
                         + self.links[start]) / self.text
            outer = known[node] = (hint == CHROME or outer[0] or share < 0.5,
                                   hint == CHROME or outer[1] or share < 0.4)
        return outer

    def card(self, node: int) -> int:
        """2 when ``node`` is a card of a grid or a row of a table (one of
        :data:`ENTRY_MIN_CARDS` siblings or more of one tag and first class, with a link and
        :data:`CARD_MIN_TEXT` characters beside it: a product's price, a topic's counters), 1
        when it is one with less beside its links, 0 when it is none (a block of bare links, a
        menu, has nothing beside them)."""
        page, chars, links = self.page, self.chars, self.links
        start, end = page.node_start[node], page.node_end[node]
        if links[end] == links[start] or chars[end] - chars[start] - links[end] + links[
                start] < CARD_MIN_TEXT:
            return 0  # no link, or no room for text beside it
        parent = page.node_parent[node]
        alike = self._alike.get(parent)
        if alike is None:  # the parent's children: its next node, then each one's next sibling
            alike = self._alike[parent] = {}
            child, last = parent + 1, (page.node_last[parent] if parent >= 0
                                       else len(page.node_tag))
            while child < last:
                kind = self._kind(child)
                alike[kind] = alike.get(kind, 0) + 1
                child = max(page.node_last[child], child + 1)
        if alike.get(self._kind(node), 0) < ENTRY_MIN_CARDS:
            return 0
        # (a block's link characters are its links' stripped lengths)
        texts, linked = page.block_text, page.block_link_chars
        beside = sum(max(0, len(texts[block].strip()) - linked[block])
                     for block in range(start, end))
        return 2 if beside >= CARD_MIN_TEXT else 1 if beside else 0

    def _kind(self, node: int) -> tuple[str, str]:
        """What a card shares with its siblings: its tag and first class ("topic-list-item
        category-help")."""
        names = self.page.node_class[node]
        first = self._firsts.get(names)
        if first is None:
            words = names.split(maxsplit=1) if names else ()
            first = self._firsts[names] = words[0] if words else ""
        return self.page.node_tag[node], first


def own_comments(page: Segmented, hints: list[int]) -> list[bool] | None:
    """For each node, whether it is in the page's own comments: a thread named as comments
    (not a site's recent ones) and not inside other chrome; what it holds named otherwise (an
    advertisement) is not. None when the page has none."""
    own, names, lasts, parents = (page.node_own_hint, page.node_class, page.node_last,
                                  page.node_parent)
    chrome_hints = (CHROME, WEAK_CHROME)
    named = [index for index, hint in enumerate(own)
             if hint in chrome_hints and names_comments(names[index])]
    inside: list[bool] | None = None
    done = 0  # (the nodes before it are inside a thread marked already)
    for index in named:
        parent = parents[index]
        if index < done or (parent >= 0 and hints[parent] == NEGATIVE):
            continue
        if inside is None:
            inside = [False] * len(own)
        last, inner = lasts[index], index
        while inner < last:
            if (inner > index and own[inner] in chrome_hints
                    and not names_comments(names[inner])):
                inner = max(lasts[inner], inner + 1)  # (its subtree is not the comments')
                continue
            inside[inner] = True
            inner += 1
        done = max(last, index + 1)
    return inside


#: A node named as a menu whose links hold at most this share of its text is no navigation.
MENU_MAX_LINK_SHARE = 0.25


def _unlinked_menus(page: Segmented, hints: list[int], chrome: list[bool]) -> None:
    """Clears ``chrome`` on the nodes named as a menu (:func:`names_navigation`, a weak chrome
    hint) whose text is mostly not links, and inside them: a restaurant's menu of dishes and
    prices, a canteen's of the day, is the page's content (the same name on a site's menu
    holds links). Their text stays out of the main text."""
    own, names = page.node_own_hint, page.node_class

    def menu(up: int) -> bool:
        return own[up] == WEAK_CHROME and names_navigation(names[up])

    index, count = 0, len(own)
    while index < count:
        if (own[index] == WEAK_CHROME and chrome[index] and names_navigation(names[index])
                and not _in_other_chrome(page, hints, index)):
            start, end = page.node_start[index], page.node_end[index]
            # (as content_text(unlinked=True) measures a block's links)
            chars = sum(map(len, page.block_text[start:end]))
            links = sum(page.block_link_chars[start:end])
            if chars and links <= MENU_MAX_LINK_SHARE * chars:
                last = page.node_last[index]
                for inner in range(index, last):  # (other chrome named inside stays chrome)
                    if _reaches(page, inner, index, menu):
                        chrome[inner] = False
                index = last
                continue
        index += 1  # (a menu of links may hold a menu of dishes: its nodes are looked at too)


def _reaches(page: Segmented, node: int, top: int, passes: Callable[[int], bool]) -> bool:
    """Whether the way up from ``node`` to its ancestor ``top`` crosses no node named as chrome
    but those ``passes`` lets through."""
    own, parents = page.node_own_hint, page.node_parent
    while node != top:
        if own[node] in (CHROME, WEAK_CHROME) and not passes(node):
            return False
        node = parents[node]
    return True


def _in_other_chrome(page: Segmented, hints: list[int], node: int) -> bool:
    """Whether a node named as a menu sits in chrome other than menus (a sidebar's, a footer's):
    a menu of links around a menu of dishes is not such chrome."""
    own, names, parents = page.node_own_hint, page.node_class, page.node_parent
    up = parents[node]
    while up >= 0:
        if own[up] == CHROME or (own[up] == WEAK_CHROME and not names_navigation(names[up])):
            return hints[up] == NEGATIVE
        up = parents[up]
    return False


def _under_chrome(page: Segmented, hints: list[int], node: int) -> bool:
    parent = page.node_parent[node]
    return parent >= 0 and hints[parent] == NEGATIVE


def extraction_from_tree(root, max_chars: int = DEFAULT_MAX_CHARS) -> Extraction:
    """The fingerprints' extraction of a parsed page (every post of a list of posts), with what
    tells how far it stands for the page; the tree is not changed. Never raises: a page that
    cannot be read is empty."""
    if root is None:
        return Extraction("", False)
    try:
        page, article = _read(root, first_entry_only=False)
    except Exception:  # defensive, as extract_main_text_from_tree
        return Extraction("", False)
    return Extraction(article.text(True, max_chars), article.is_article, page, article)


def visible_text_from_tree(root, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """All visible text of a parsed page (no scoring), one block per line; never raises."""
    if root is None:
        return ""
    try:
        blocks = segment(root).block_text
    except Exception:  # defensive, as extract_main_text_from_tree
        return ""
    lines: list[str] = []
    for text in blocks:
        lines.extend(_lines(text))
    return "\n".join(lines)[:max_chars]
