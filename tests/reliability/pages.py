"""Hand-written hostile pages for the reliability tests (no corpus page is copied here)."""

from __future__ import annotations

import random

WORDS = (
    "harbour ferry crossed bay dawn passengers cargo bread orchard growers fires frosty nights "
    "blossoms council voted budget library school bridge repairs river flood warning farmers "
    "market prices wheat barley weather storm coast village museum painting exhibition artist "
    "railway station tunnel engineers concrete steel workers strike union wages hospital nurses "
    "doctors patients vaccine research university students exams teachers football match goal "
    "season coach players stadium tickets concert orchestra violin choir festival lanterns "
    "fishermen boats nets salmon mountain trail hikers rescue helicopter forest wildfire smoke "
    "airport runway flights delays tourists hotel beach lighthouse keeper island ferry garden "
    "bees honey apples cider vineyard grapes harvest cellar election mayor candidates debate "
    "votes ballots parliament minister treaty border trade exports factory robots software "
    "startup investors bank loans interest inflation housing rents tenants landlord court judge"
).split()
HAN = "城市地铁线路今天开通市民乘坐列车机场火车站农民收获小麦价格天气暴雨学校老师学生考试"
SYLLABLES = "ka lo mi re tan vo shu pel dra ni gor ast um bel fi ro sen tal quo vi".split()


def article(seed: int, paragraphs: int = 12) -> str:
    """Distinct article text: page ``seed``'s sentences are drawn from its own seeded stream, so
    two seeds share little beyond common words (far apart in Hamming distance)."""
    rng = random.Random(seed)
    own = ["".join(rng.choices(SYLLABLES, k=3)) for _ in range(40)]  # this page's own words
    lines = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(4):
            if rng.random() < 0.2:
                sentences.append("".join(rng.choices(HAN, k=24)) + "。")
            else:
                words = [rng.choice(own if rng.random() < 0.6 else WORDS)
                         for _ in range(rng.randint(8, 16))]
                sentences.append(" ".join(words).capitalize() + ".")
        lines.append(" ".join(sentences))
    return "\n".join(f"<p>{line}</p>" for line in lines)


def page(seed: int, *, head: str = "", paragraphs: int = 12) -> bytes:
    """A small, valid UTF-8 news page."""
    return (
        f"<!DOCTYPE html><html><head>{head}<title>Story {seed}</title></head><body>"
        f"<nav><a href='/'>Home</a></nav><article><h1>Story {seed}</h1>"
        f"{article(seed, paragraphs)}</article><footer>© Courier</footer></body></html>"
    ).encode()


def deeply_nested(depth: int, seed: int = 7, tag: str = "div") -> bytes:
    """An article buried under ``depth`` nested elements."""
    return (
        b"<html><body>" + f"<{tag}>".encode() * depth + article(seed).encode()
        + f"</{tag}>".encode() * depth + b"</body></html>"
    )


def padded(prefix: bytes, size: int, filler: bytes = b"<!-- padding -->\n") -> bytes:
    """``prefix`` followed by harmless filler up to exactly ``size`` bytes."""
    missing = size - len(prefix)
    return prefix + (filler * (missing // len(filler) + 1))[:missing]
