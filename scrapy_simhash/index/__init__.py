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

Without ``bits`` and ``max_distance`` an index takes the library's defaults, the same as a default
:class:`~scrapy_simhash.fingerprint.Fingerprinter` (128 bits, k = 16), so
``open_index("memory://").check_and_add(key, Fingerprinter().fingerprint_text(text))`` works.
:func:`open_stored_index` opens an index already stored with the parameters it was built with,
creating nothing; :mod:`scrapy_simhash.index.uri` parses the URIs (how an SQLite path is read).

Options may also come from the URI's query string (``sqlite:///crawl.db?commit_every=500``);
numbers and ``true``/``false`` are converted, and keyword arguments win over the query string.
``bits``, ``max_distance`` and ``tables`` may be set there too (a keyword argument with another
value raises ValueError, as a crawl's settings never silently lose to its URI); ``namespace``
and ``params`` may not: the crawl sets them (one namespace for pages,
another for items, and the fingerprint settings), so a URI cannot put both in one namespace.
"""

from __future__ import annotations

from collections.abc import Mapping

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE

from .base import (
    IndexNotFound,
    IndexParameterMismatch,
    Match,
    NamespaceNotFound,
    NearDuplicateIndex,
    NearDuplicateIndexError,
)
from .layout import Layout, TablesOption, make_layout
from .memory import MemoryIndex
from .sqlite import SqliteIndex
from .uri import (
    CLASS_SCHEME,
    SCHEMES,
    IndexOptionError,
    IndexUri,
    coerce_option,
    parse_index_uri,
)

__all__ = [
    "SCHEMES",
    "IndexNotFound",
    "IndexOptionError",
    "IndexParameterMismatch",
    "IndexUri",
    "Layout",
    "Match",
    "MemoryIndex",
    "NamespaceNotFound",
    "NearDuplicateIndex",
    "NearDuplicateIndexError",
    "SqliteIndex",
    "coerce_option",
    "make_layout",
    "open_index",
    "open_stored_index",
    "parse_index_uri",
    "stored_namespaces",
]

_LAYOUT_DEFAULTS: dict[str, object] = {
    "bits": DEFAULT_BITS, "max_distance": DEFAULT_MAX_DISTANCE, "tables": None
}


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

    ``bits`` (128) and ``max_distance`` (16), the fingerprinter's defaults: ``None`` takes the
    URI's query string value, else the default in brackets. ``tables``: ``None`` = the query
    string's, else ``"auto"``; ``"auto"`` = k + 1 blocks or multi-index hashing, ``"manku"`` or
    an int = more tables with longer keys (see :func:`make_layout`). ``params``: fingerprint
    settings that persistent backends store and compare on open (:class:`IndexParameterMismatch`
    when they differ). Other keyword arguments win over the query string. A bad URI or option
    raises :class:`IndexOptionError` (a ValueError naming the option in ``.name``).
    """
    parsed = parse_index_uri(uri)
    arguments = parsed.arguments(
        _LAYOUT_DEFAULTS, {"bits": bits, "max_distance": max_distance, "tables": tables}
    )
    arguments.update(options, namespace=namespace, params=params)
    cls = parsed.load_class()
    factory = getattr(cls, "from_uri", None)
    if parsed.scheme != CLASS_SCHEME or factory is not None:
        return factory(uri, **arguments)  # type: ignore[misc]
    return cls(**arguments)


def open_stored_index(
    uri: str | IndexUri, namespace: str = "pages", **options: object
) -> NearDuplicateIndex:
    """The index ``uri`` already stores under ``namespace``, opened with the parameters it was
    built with (bits, k, layout, fingerprint settings), creating nothing: no file, no key, no
    namespace. :class:`IndexNotFound` when there is nothing stored there,
    :class:`NamespaceNotFound` (listing the namespaces there are) when the namespace is not.
    ``options``: the backend's own (e.g. ``cache=False``), over the query string's."""
    parsed = uri if isinstance(uri, IndexUri) else parse_index_uri(uri)
    opener = getattr(parsed.load_class(), "open_stored", None)
    if opener is None:
        raise IndexNotFound(f"{parsed.masked}: this index class cannot open a stored index")
    return opener(parsed, namespace=namespace, **{**parsed.options, **options})


def stored_namespaces(uri: str | IndexUri) -> list[str]:
    """The namespaces the index at ``uri`` holds (sorted), creating nothing."""
    parsed = uri if isinstance(uri, IndexUri) else parse_index_uri(uri)
    lister = getattr(parsed.load_class(), "stored_namespaces", None)
    if lister is None:
        raise IndexNotFound(f"{parsed.masked}: this index class cannot list its namespaces")
    return list(lister(parsed, **parsed.options))
