"""jieba's cut of Chinese runs, and where CJK ideographs are.

Chinese runs are segmented with jieba's dictionary and HMM: for fingerprints by the compiled
cut (``scrapy_simhash._jieba``, which hands back the tokens' UTF-8 bytes, ten times jieba's
speed), elsewhere, and where that module was not built, through ``rjieba`` (jieba-rs, five
times). Both give the tokens of ``jieba.lcut`` on the text we hand them (``tests/text/``
checks it), so no fingerprint depends on which one ran. Only
characters of jieba's own Han range (U+4E00..U+9FD5) reach the segmenter; rarer ideographs
(extension A, supplementary planes) become one token each, exactly as jieba treats them, so the
segmenters cannot disagree on what they are given.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import types
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

# Any CJK ideograph; the segmenter only sees runs of jieba's range, the rest are single tokens.
_CJK_RUN = re.compile(
    "([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff\U00030000-\U0003134f]+)"
)
_JIEBA_RUN = re.compile("([\u4e00-\u9fd5]+)")
_ANY_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_ANY_CJK_RUN = re.compile(f"{_ANY_CJK.pattern}+")
_TOKEN_SEPARATOR = "\n"  # joins tokens that come as strs; never part of a token


@lru_cache(maxsize=1)
def _segmenter() -> Callable[[str], list[str]]:
    import rjieba

    return lambda text: rjieba.cut(text, True)


def _segment(runs: list[str]) -> list[str]:
    """``jieba.lcut("\n".join(runs))`` for Han runs: from the compiled cut when it was built
    (jieba cuts each run on its own, the newlines between them are tokens), else from rjieba,
    which is then imported on first use."""
    cut = _compiled_cut()
    if cut is None:
        return _segmenter()("\n".join(runs))
    tokens: list[str] = []
    for number, run in enumerate(runs):
        if number:
            tokens.append("\n")
        if run:
            tokens.extend(cut.joined(run).decode("utf-8").split("\n"))
    return tokens


def _cut_joined(runs: str) -> bytes:
    """``"\n".join(jieba.lcut(runs))`` as UTF-8, for Han runs joined by newlines: from the
    compiled cut (``_jieba``, no str per token) when it was built, else from rjieba."""
    cut = _compiled_cut()
    if cut is not None:
        return cut.joined(runs)
    return _encoded_tokens(_segmenter()(runs))


@lru_cache(maxsize=1)
def _compiled_cut():
    """``_jieba.JiebaCut`` loaded with jieba's own dictionary and HMM tables, or None."""
    try:
        from scrapy_simhash._jieba import JiebaCut
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return JiebaCut(*_jieba_tables())


def _jieba_tables() -> tuple[bytes, dict, dict, dict]:
    """jieba's bundled dictionary (whatever a project gave ``jieba.set_dictionary``: rjieba's is
    fixed) and its HMM's start, transition and emission tables.

    Read from jieba's package files without importing jieba when it is not imported yet: its
    ``__init__`` imports ``pkg_resources`` wherever setuptools is installed, ~0.15 s of every
    start-up of the crawl and of each worker. Through jieba itself if anything is amiss."""
    if "jieba" not in sys.modules:
        try:
            spec = importlib.util.find_spec("jieba")
            root = Path(next(iter(spec.submodule_search_locations)))
            tables = [_module_from_file(root / "finalseg" / f"prob_{name}.py").P
                      for name in ("start", "trans", "emit")]
            return ((root / "dict.txt").read_bytes(), *tables)
        except Exception:  # an unusual installation: let jieba find its own files
            pass
    import jieba
    from jieba.finalseg import prob_emit, prob_start, prob_trans

    with jieba.get_module_res(jieba.DEFAULT_DICT_NAME) as dictionary:
        return dictionary.read(), prob_start.P, prob_trans.P, prob_emit.P


def _module_from_file(path: Path) -> types.ModuleType:
    """The module of one Python file, run under a private name (its cached bytecode is used)."""
    spec = importlib.util.spec_from_file_location(f"_scrapy_simhash_jieba_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def has_cjk(text: str) -> bool:
    """True when ``text`` may hold a CJK ideograph (cheap: no regex scan of Latin text)."""
    return not text.isascii() and _ANY_CJK.search(text) is not None


def _encoded_tokens(tokens: list[str]) -> bytes:
    return _TOKEN_SEPARATOR.join(tokens).encode("utf-8", "surrogatepass")
