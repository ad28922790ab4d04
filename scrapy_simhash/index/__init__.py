"""Near-duplicate fingerprint indexes: find every stored fingerprint within Hamming distance k.

``open_index(uri, ...)`` picks a backend the way Scrapy's ``HTTPCACHE_STORAGE`` picks a storage:

- ``memory://`` - a fresh in-process index (:class:`MemoryIndex`);
- ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` (SQLAlchemy's convention: three
  slashes then the path, so an absolute path shows four) or ``sqlite://`` for an in-memory
  database (:class:`SqliteIndex`);
- ``redis://...`` / ``rediss://...`` / ``unix://...`` - ``scrapy_simhash.index.redis.RedisIndex``,
  imported only when asked for;
- a dotted path ``mypkg.mymod.MyIndex`` - your own class: it is called with the same keyword
  arguments (``bits``, ``max_distance``, ``namespace``, ``tables``, ``params`` and the options),
  or, if it has one, through ``MyIndex.from_uri(uri, **those_arguments)``. It should subclass
  :class:`NearDuplicateIndex`.

Options may also come from the URI's query string (``sqlite:///crawl.db?commit_every=500``);
numbers and ``true``/``false`` are converted, and keyword arguments win over the query string.
``bits``, ``max_distance`` and ``tables`` may be set there too (a keyword argument with another
value raises ValueError, as a crawl's settings never silently lose to its URI); ``namespace``
and ``params`` may not: the crawl sets them (one namespace for pages,
another for items, and the fingerprint settings), so a URI cannot put both in one namespace.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from urllib.parse import parse_qsl

from .base import (
    IndexParameterMismatch,
    Match,
    NearDuplicateIndex,
    NearDuplicateIndexError,
    mask_password,
    refuse_caller_options,
)
from .layout import Layout, TablesOption, make_layout
from .memory import MemoryIndex
from .sqlite import SqliteIndex

__all__ = [
    "IndexParameterMismatch",
    "Layout",
    "Match",
    "MemoryIndex",
    "NearDuplicateIndex",
    "NearDuplicateIndexError",
    "SqliteIndex",
    "make_layout",
    "open_index",
]

SCHEMES = {
    "memory": "scrapy_simhash.index.memory.MemoryIndex",
    "sqlite": "scrapy_simhash.index.sqlite.SqliteIndex",
    "redis": "scrapy_simhash.index.redis.RedisIndex",
    "rediss": "scrapy_simhash.index.redis.RedisIndex",
    "unix": "scrapy_simhash.index.redis.RedisIndex",
}
_DOTTED_PATH = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$")
_LAYOUT_DEFAULTS: dict[str, object] = {"bits": 64, "max_distance": 3, "tables": None}


def open_index(
    uri: str,
    *,
    bits: int | None = None,
    max_distance: int | None = None,
    namespace: str = "pages",
    tables: TablesOption = None,
    params: Mapping[str, object] | None = None,
    **options: object,
) -> NearDuplicateIndex:
    """Open the index named by ``uri`` (see the module docstring for the URI forms).

    ``bits`` (64) and ``max_distance`` (3): ``None`` takes the URI's query string value, else
    the default in brackets. ``tables``: ``None`` = the query string's, else ``"auto"``;
    ``"auto"`` = k + 1 blocks or multi-index hashing, ``"manku"`` or an int = more tables with
    longer keys (see :func:`make_layout`). ``params``: fingerprint settings that persistent
    backends store and compare on open (:class:`IndexParameterMismatch` when they differ).
    Other keyword arguments win over the query string.
    """
    if not isinstance(uri, str) or not uri:
        raise ValueError(f"index URI must be a non-empty string, got {uri!r}")
    location, _, query = uri.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    merged: dict[str, object] = {key: coerce_option(value) for key, value in pairs}
    refuse_caller_options(uri, merged)
    arguments: dict[str, object] = {**_LAYOUT_DEFAULTS, **merged}
    for name, value in (("bits", bits), ("max_distance", max_distance), ("tables", tables)):
        if value is None:
            continue
        if name in merged and merged[name] != value:  # e.g. ?bits=64 in SIMHASH_INDEX_URI
            raise ValueError(
                f"index URI {mask_password(uri)!r} sets {name}={merged[name]!r}, but "
                f"{name}={value!r} is asked for; set it in one place"
            )
        arguments[name] = value
    arguments.update(options, namespace=namespace, params=params)
    if "://" in location or location.endswith(":"):
        scheme = location.split(":", 1)[0].lower()
        target = SCHEMES.get(scheme)
        if target is None:
            raise ValueError(
                f"unknown index URI scheme in {mask_password(uri)!r}; allowed schemes: "
                f"{', '.join(s + '://' for s in SCHEMES)}, or a dotted path to an index class"
            )
        cls = _load_backend(target, uri)
        return cls.from_uri(uri, **arguments)
    if _DOTTED_PATH.match(location):
        cls = _load_class(location, uri)
        factory = getattr(cls, "from_uri", None)
        return factory(uri, **arguments) if factory else cls(**arguments)
    raise ValueError(
        f"index URI {mask_password(uri)!r} is neither a URI (allowed schemes: "
        f"{', '.join(s + '://' for s in SCHEMES)}) nor a dotted path to an index class"
    )


def _load_backend(target: str, uri: str) -> type:
    uri = mask_password(uri)  # only for messages
    module_name, _, name = target.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            raise ValueError(
                f"index URI {uri!r} needs the backend module {module_name}, which is not "
                "available in this installation"
            ) from error
        raise ImportError(
            f"index URI {uri!r} needs {error.name!r}; install it (e.g. the matching extra "
            "of scrapy-simhash)"
        ) from error
    return getattr(module, name)


def _load_class(path: str, uri: str) -> type:
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"index class {uri!r}: cannot import module {module_name!r}") from error
    try:
        cls = getattr(module, name)
    except AttributeError:
        raise ValueError(f"index class {uri!r}: module {module_name!r} has no {name!r}") from None
    if not callable(cls):
        raise ValueError(f"index class {uri!r} is not callable")
    return cls


def coerce_option(text: str) -> object:
    """A URI or command-line option value: bool, int, float, else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
