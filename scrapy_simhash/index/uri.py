"""Index URIs: one parser and one scheme table for every place that reads one.

The forms (see :func:`~scrapy_simhash.index.open_index`): ``memory://``; ``sqlite:///relative.db``,
``sqlite:////absolute.db`` or ``sqlite://`` (an in-memory database); ``redis://``, ``rediss://``,
``unix://`` (redis-py's URLs); or a dotted path to an index class, ``mypkg.mymod.MyIndex``.

An SQLite URI's path is everything between ``sqlite:///`` and the first ``?``, percent-decoded
(as SQLAlchemy reads it): spaces and ``#`` may be written as they are, a ``?`` in a file name is
written ``%3F`` and a ``%`` is written ``%25``. :func:`sqlite_uri` writes the URI of any path.

Dotted paths are imported with :mod:`importlib`: the storage side never imports Scrapy.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from urllib.parse import parse_qsl, quote, unquote, unquote_plus, urlencode, urlsplit, urlunsplit

from scrapy_simhash.simhash import ParameterError

#: URI scheme -> the index class it opens (imported only when asked for).
SCHEMES: dict[str, str] = {
    "memory": "scrapy_simhash.index.memory.MemoryIndex",
    "sqlite": "scrapy_simhash.index.sqlite.SqliteIndex",
    "redis": "scrapy_simhash.index.redis.RedisIndex",
    "rediss": "scrapy_simhash.index.redis.RedisIndex",
    "unix": "scrapy_simhash.index.redis.RedisIndex",
}
#: The scheme of a dotted class path in :attr:`IndexUri.scheme`.
CLASS_SCHEME = "class"
#: Schemes whose URL goes to a client that reads its own query options (redis-py): only the
#: options named here (and the layout's) are taken out of the query string; the rest stay.
_CLIENT_URL_OPTIONS: Mapping[str, tuple[str, ...]] = {
    scheme: ("prefix", "batch_size", "retry_interval") for scheme in ("redis", "rediss", "unix")
}
#: Options ``open_index`` itself takes from a query string.
LAYOUT_OPTIONS = ("bits", "max_distance", "tables")
#: Options kept as written, never converted (a Redis prefix "0601" is no number).
_TEXT_OPTIONS = frozenset({"prefix"})
#: Options the caller of an index sets, never its URI's query string, and why.
CALLER_OPTIONS: Mapping[str, str] = MappingProxyType({
    "namespace": "the crawl keeps pages and items in separate namespaces of one URI",
    "params": "they are the fingerprint settings the crawl stores with the index",
})
_USERINFO_PASSWORD = re.compile(r"(//[^/@:]*:)[^@/]*@")
_DOTTED_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class IndexOptionError(ParameterError):
    """A bad index URI or index option. ``name``: the option at fault (``"uri"`` when it is the
    URI itself), so a caller can name the setting or flag it came from."""

    def __init__(self, message: str, *, name: str = "uri") -> None:
        super().__init__(name, message)


@dataclass(frozen=True)
class IndexUri:
    """A parsed index URI.

    ``scheme``: a key of :data:`SCHEMES`, or :data:`CLASS_SCHEME` for a dotted class path.
    ``target``: the SQLite file (a :class:`~pathlib.Path`; None for an in-memory database), the
    URL redis-py connects to (its own query options kept, this package's taken out), the dotted
    class path, or None for ``memory://``. ``options``: the query string's other options,
    converted once (numbers, booleans; see :func:`coerce_option`).
    """

    uri: str = field(repr=False)
    scheme: str
    target: Path | str | None = field(repr=False)
    options: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __repr__(self) -> str:
        return f"IndexUri({self.masked!r})"

    @property
    def masked(self) -> str:
        """The URI with its passwords masked: for messages and logs."""
        return mask_password(self.uri)

    @property
    def backend(self) -> str:
        """The dotted path of the index class this URI opens."""
        return SCHEMES.get(self.scheme) or str(self.target)

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite file this URI names (None: another scheme, or an in-memory database)."""
        return self.target if self.scheme == "sqlite" else None  # type: ignore[return-value]

    def arguments(
        self, defaults: Mapping[str, object], given: Mapping[str, object | None]
    ) -> dict[str, object]:
        """The index's keyword arguments: ``defaults``, then the query string's options, then
        the ``given`` values that are not None. A layout option set in both the query string and
        ``given`` to different values is refused, as a crawl's settings never silently lose to
        its URI."""
        merged: dict[str, object] = {**defaults, **self.options}
        for name, value in given.items():
            if value is None:
                continue
            if name in self.options and self.options[name] != value:
                raise IndexOptionError(
                    f"index URI {self.masked!r} sets {name}={self.options[name]!r}, but "
                    f"{name}={value!r} is asked for; set it in one place",
                    name=name,
                )
            merged[name] = value
        return merged

    def load_class(self) -> type:
        """The index class (imported now); IndexOptionError if it cannot be imported."""
        if self.scheme != CLASS_SCHEME:
            return _load_backend(self.backend, self.masked)
        return _load_class(str(self.target), self.masked)


def parse_index_uri(uri: str) -> IndexUri:
    """Parse an index URI (see the module docstring); IndexOptionError if it is none."""
    if not isinstance(uri, str) or not uri:
        raise IndexOptionError(f"index URI must be a non-empty string, got {uri!r}")
    location, query = split_query(uri)
    pairs = parse_qsl(query, keep_blank_values=True)
    for name, reason in CALLER_OPTIONS.items():
        if any(key == name for key, _ in pairs):
            raise IndexOptionError(
                f"index URI {mask_password(uri)!r} may not set {name!r} in its query string "
                f"({reason}); remove it, or pass {name}= to open_index()",
                name=name,
            )
    if "://" in location or location.endswith(":"):
        scheme = location.split(":", 1)[0].lower()
        if scheme not in SCHEMES:
            raise IndexOptionError(
                f"unknown index URI scheme in {mask_password(uri)!r}; allowed schemes: "
                f"{_allowed()}, or a dotted path to an index class"
            )
        if scheme in _CLIENT_URL_OPTIONS:
            ours = {*LAYOUT_OPTIONS, *_CLIENT_URL_OPTIONS[scheme]}
            rest = [(name, value) for name, value in pairs if name not in ours]
            url = f"{location}?{urlencode(rest)}" if rest else location
            return IndexUri(uri, scheme, url, _options(p for p in pairs if p[0] in ours))
        _check_option_names(uri, pairs, scheme)
        target = _sqlite_target(location) if scheme == "sqlite" else None
        return IndexUri(uri, scheme, target, _options(pairs))
    if _DOTTED_PATH.match(location):
        return IndexUri(uri, CLASS_SCHEME, location, _options(pairs))
    raise IndexOptionError(
        f"index URI {mask_password(uri)!r} is neither a URI (allowed schemes: {_allowed()}) nor "
        "a dotted path to an index class"
    )


def _check_option_names(uri: str, pairs: list[tuple[str, str]], scheme: str) -> None:
    """An option name must be a keyword argument's: a "?" meant as part of a file name is not
    taken for the start of a query string without a word."""
    for name, _ in pairs:
        if not name.isidentifier():
            hint = "; a '?' in a file name is written %3F" if scheme == "sqlite" else ""
            raise IndexOptionError(
                f"index URI {mask_password(uri)!r} has {name!r} in its query string, which is no "
                f"option name{hint}",
                name=name,
            )


def split_query(uri: str) -> tuple[str, str]:
    """``(location, query string)``: an index URI's query starts at its first ``?``."""
    location, _, query = uri.partition("?")
    return location, query


def sqlite_uri(path: str | os.PathLike[str]) -> str:
    """The ``sqlite:`` URI of a file path, whatever characters its name holds."""
    return "sqlite:///" + quote(os.fspath(path), safe="/")


def literal_sqlite_path(uri: str) -> Path | None:
    """The path an ``sqlite:`` URI's text names taken literally (no query string, nothing
    decoded), for a command line that accepts a file name as the user typed it."""
    if not uri.lower().startswith("sqlite:"):
        return None
    text = uri[len("sqlite:") :].removeprefix("//")
    text = text.removeprefix("/")
    return Path(text) if text else None


def _sqlite_target(location: str) -> Path | None:
    """``sqlite:///relative.db`` -> ``relative.db``, ``sqlite:////abs.db`` -> ``/abs.db``,
    ``sqlite://`` -> None (in memory); percent-escapes decoded."""
    rest = location.split("://", 1)[1] if "://" in location else ""
    path = unquote(rest.removeprefix("/"))
    return Path(path) if path else None


def _options(pairs: object) -> dict[str, object]:
    return MappingProxyType({  # type: ignore[return-value]
        name: value if name in _TEXT_OPTIONS else coerce_option(value)
        for name, value in pairs  # type: ignore[attr-defined]
    })


def _allowed() -> str:
    return ", ".join(scheme + "://" for scheme in SCHEMES)


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


def _load_backend(target: str, uri: str) -> type:
    module_name, _, name = target.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            raise IndexOptionError(
                f"index URI {uri!r} needs the backend module {module_name}, which is not "
                "available in this installation"
            ) from error
        raise ImportError(
            f"index URI {uri!r} needs the module {error.name!r}, which is not installed "
            f"(pip install {error.name})"
        ) from error
    return getattr(module, name)


def _load_class(path: str, uri: str) -> type:
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = ""
        if "://" not in uri and uri.endswith((".db", ".sqlite", ".sqlite3")):
            hint = f"; for an SQLite file write sqlite:///{uri}"
        raise IndexOptionError(
            f"index class {uri!r}: cannot import module {module_name!r} ({error}){hint}"
        ) from error
    try:
        cls = getattr(module, name)
    except AttributeError:
        raise IndexOptionError(
            f"index class {uri!r}: module {module_name!r} has no {name!r}"
        ) from None
    if not callable(cls):
        raise IndexOptionError(f"index class {uri!r} is not callable")
    return cls


def mask_password(url: str) -> str:
    """``url`` with its passwords replaced by ``***``, for messages and logs.

    Both places redis-py reads one from are masked: ``user:password@host`` and query parameters
    whose name contains ``password`` (``?password=...``, the form for ``unix://`` sockets, and
    ``ssl_password``).
    """
    location, query = split_query(url)
    if query or "?" in url:  # masked as text: urlunsplit would drop the "//" of unix:///path
        url = f"{location}?{_mask_query(query)}"
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        port = parts.port
    except ValueError:  # not a valid URL (e.g. a bad port): mask what looks like a password
        return _USERINFO_PASSWORD.sub(r"\1***@", url)
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if port is not None:
        host = f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _mask_query(query: str) -> str:
    """A query string with the values of its password parameters replaced by ``***``."""
    pairs = []
    for pair in query.split("&"):  # a "#fragment" stays with the last value: masked or kept
        name, equals, _ = pair.partition("=")
        if equals and "password" in unquote_plus(name).lower():
            pair = f"{name}=***"
        pairs.append(pair)
    return "&".join(pairs)
