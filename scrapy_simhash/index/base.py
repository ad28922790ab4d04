"""The near-duplicate index protocol shared by every backend."""

from __future__ import annotations

import abc
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from scrapy_simhash.simhash import DEFAULT_BITS, DEFAULT_MAX_DISTANCE, checked_fingerprint

from .layout import Layout, TablesOption, bucket_balance, make_layout
from .uri import CALLER_OPTIONS, mask_password

if TYPE_CHECKING:
    from .uri import IndexUri

__all__ = [
    "CALLER_OPTIONS",
    "MAX_EVIDENCE_BYTES",
    "IndexNotFound",
    "IndexParameterMismatch",
    "Match",
    "NamespaceNotFound",
    "NearDuplicateIndex",
    "NearDuplicateIndexError",
    "mask_password",
]

_NAMESPACE_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")

#: The largest evidence a key may carry (:meth:`NearDuplicateIndex.put_evidence`): twice the
#: largest the crawl's evidence takes (a short page with every part: 1,308 bytes).
MAX_EVIDENCE_BYTES = 2048


class NearDuplicateIndexError(Exception):
    """Base class of the index errors."""


class IndexUnavailable(NearDuplicateIndexError):
    """The index server cannot be reached (at open, or later: the call that hit it failed)."""


class IndexAuthenticationError(IndexUnavailable):
    """The server wants a password the URL does not give, or refuses the one it gives."""


class IndexNotFound(NearDuplicateIndexError, LookupError):
    """A stored index was asked for where none is (no such file, nothing stored)."""


class NamespaceNotFound(NearDuplicateIndexError, LookupError):
    """A stored index holds no such namespace; ``namespaces``: the ones it holds."""

    def __init__(
        self, location: str, namespace: str, namespaces: Sequence[str], where: str = ""
    ) -> None:
        self.location = location
        self.namespace = namespace
        self.namespaces = sorted(namespaces)
        super().__init__(
            f"{location}: no namespace {namespace!r}{where} (namespaces: "
            f"{', '.join(self.namespaces) or 'none'})"
        )


class IndexParameterMismatch(NearDuplicateIndexError, ValueError):
    """A stored index was opened with parameters different from the ones it was built with."""

    def __init__(
        self, location: str, differences: Mapping[str, tuple[object, object]]
    ) -> None:
        self.location = location
        self.differences = dict(differences)
        shown = dict(self.differences)
        if len(shown) > 1:  # the layout follows from the others (bits, k): they say it all
            shown.pop("layout_signature", None)
            shown.pop("layout", None)
        details = "; ".join(
            f"{name}: stored {stored!r}, requested {requested!r}"
            for name, (stored, requested) in sorted(shown.items())
        )
        super().__init__(
            f"{location} was built with different parameters ({details}); open it with the "
            "stored values or use another file / namespace"
        )


@dataclass(frozen=True, slots=True)
class Match:
    """A stored fingerprint within the query's Hamming radius."""

    key: str
    fingerprint: int
    distance: int


class NearDuplicateIndex(abc.ABC):
    """Fingerprints within Hamming distance ``max_distance``, found through a pigeonhole layout.

    Subclasses implement :meth:`add`, :meth:`query`, :meth:`__len__` and :meth:`_close`; the batch
    forms and :meth:`check_and_add` have generic versions that backends may speed up.

    :meth:`remove`, :meth:`put_evidence` and :meth:`get_evidence` are optional: the built-in
    backends have them and set :attr:`supports_evidence`; an index without them keeps the
    base versions, which raise NotImplementedError.
    """

    bits: int
    max_distance: int
    namespace: str
    layout: Layout
    params: dict[str, object]
    #: The largest table probe radius the backend's lookups handle (see ``make_layout``'s
    #: ``max_radius``): 0 = exact-key lookups only (the safe default for a backend that looks up
    #: ``layout.keys(fp)``); None = any radius (it looks up ``layout.probes(fp)``).
    max_probe_radius: int | None = 0
    #: Whether :meth:`remove`, :meth:`put_evidence` and :meth:`get_evidence` work (a class
    #: lacking them leaves it False, and callers fall back to not using them).
    supports_evidence: bool = False

    def __init__(
        self,
        *,
        bits: int = DEFAULT_BITS,
        max_distance: int = DEFAULT_MAX_DISTANCE,
        namespace: str = "pages",
        tables: TablesOption = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        if not isinstance(namespace, str) or not _NAMESPACE_RE.fullmatch(namespace):
            raise ValueError(
                f"namespace must be letters, digits and underscores (not starting with a digit, "
                f"at most 63 characters), got {namespace!r}"
            )
        self.layout = make_layout(bits, max_distance, tables, max_radius=self.max_probe_radius)
        self.bits = bits
        self.max_distance = max_distance
        self.namespace = namespace
        self.tables = tables
        self.params = dict(params or {})
        self._closed = False

    # -- the protocol ------------------------------------------------------------------------

    @abc.abstractmethod
    def add(self, key: str, fingerprint: int) -> None:
        """Store ``fingerprint`` under ``key`` (keys need not be unique)."""

    def add_many(self, items: Iterable[tuple[str, int]]) -> None:
        """Store many (key, fingerprint) pairs."""
        for key, fingerprint in items:
            self.add(key, fingerprint)

    @abc.abstractmethod
    def query(self, fingerprint: int, max_distance: int | None = None) -> list[Match]:
        """Every stored fingerprint within ``max_distance``, nearest first, then oldest first."""

    def query_many(
        self, fingerprints: Sequence[int], max_distance: int | None = None
    ) -> list[list[Match]]:
        """:meth:`query` for each fingerprint."""
        return [self.query(fp, max_distance) for fp in fingerprints]

    def check_and_add(self, key: str, fingerprint: int) -> Match | None:
        """The nearest stored match (ties: the earliest stored); if none, store and return None."""
        matches = self.query(fingerprint)
        if matches:
            return matches[0]
        self.add(key, fingerprint)
        return None

    @abc.abstractmethod
    def __len__(self) -> int:
        """The number of stored fingerprints."""

    def remove(self, key: str, fingerprint: int) -> bool:
        """Remove every stored copy of the pair (``key``, ``fingerprint``) and the evidence
        stored under ``key``; True if the pair was stored.

        Afterwards :meth:`query` never returns the pair, and :meth:`check_and_add` of the same
        fingerprint under another key stores it (unless something else stored matches). The
        evidence goes whether or not the pair was stored: it belongs to the key.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot remove fingerprints")

    def put_evidence(self, key: str, evidence: bytes) -> None:
        """Store ``evidence`` (opaque bytes, at most :data:`MAX_EVIDENCE_BYTES`) under ``key``,
        replacing what the key had. It persists as the fingerprints do."""
        raise NotImplementedError(f"{type(self).__name__} cannot store evidence")

    def get_evidence(self, keys: Sequence[str]) -> list[bytes | None]:
        """The evidence stored under each of ``keys`` (None for a key without any)."""
        raise NotImplementedError(f"{type(self).__name__} cannot store evidence")

    def flush(self) -> None:  # noqa: B027 - a no-op is the right default
        """Make pending writes durable (a no-op for in-memory backends)."""

    def close(self) -> None:
        """Flush and release resources; calling it again does nothing."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._close()

    def _close(self) -> None:  # noqa: B027 - backends without resources need nothing
        """Release the backend's resources (called once, by :meth:`close`)."""

    @property
    def closed(self) -> bool:
        return self._closed

    # -- a stored index, for tools that look into one ------------------------------------------

    @classmethod
    def open_stored(cls, uri: IndexUri, *, namespace: str = "pages", **options: Any) -> Any:
        """Open the index ``uri`` stores under ``namespace`` with the parameters it was built
        with, creating nothing (:class:`IndexNotFound`, :class:`NamespaceNotFound` otherwise).
        Persistent backends implement it; this one has nothing stored."""
        raise IndexNotFound(f"{uri.masked}: {cls.__name__} keeps no stored index to open")

    @classmethod
    def stored_namespaces(cls, uri: IndexUri, **options: Any) -> list[str]:
        """The namespaces ``uri`` holds (sorted), creating nothing."""
        raise IndexNotFound(f"{uri.masked}: {cls.__name__} keeps no stored index")

    def stored_words(self) -> np.ndarray | None:
        """The stored fingerprints as an (n, words) uint64 array, where the backend holds them
        in this process (None otherwise)."""
        return None

    def stats(self) -> dict[str, Any]:
        """Size, parameters and, where :meth:`stored_words` has them, each table's bucket
        balance (see :func:`~scrapy_simhash.index.layout.bucket_balance`; else None)."""
        words = self.stored_words()
        return {
            "namespace": self.namespace,
            "size": len(self),
            "bits": self.bits,
            "max_distance": self.max_distance,
            "layout": self.layout.describe(),
            "params": dict(self.params),
            "tables": None if words is None else bucket_balance(self.layout, words),
        }

    def __enter__(self) -> NearDuplicateIndex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} namespace={self.namespace!r} bits={self.bits} "
            f"k={self.max_distance} {self.layout.describe()} size={len(self)}>"
        )

    # -- helpers for backends ------------------------------------------------------------------

    def _parameter_record(
        self, params: Mapping[str, object] | None, format_version: int
    ) -> dict[str, str]:
        """What a persistent backend stores and compares on open: JSON text per parameter."""
        record = {
            "format": json.dumps(format_version),
            "bits": json.dumps(self.bits),
            "max_distance": json.dumps(self.max_distance),
            "layout": json.dumps(self.layout.describe()),
            "layout_signature": json.dumps(self.layout.signature()),
        }
        for name, value in (params or {}).items():
            try:
                record[f"param.{name}"] = json.dumps(value, sort_keys=True)
            except TypeError as error:
                raise TypeError(f"index parameter {name!r} must be JSON-serialisable") from error
        return record

    @staticmethod
    def _check_parameter_record(
        location: str,
        stored: Mapping[str, str],
        wanted: Mapping[str, str],
        *,
        check_user_params: bool,
    ) -> None:
        """Raise :class:`IndexParameterMismatch` naming every stored value that differs."""
        names = set(stored) | set(wanted)
        if not check_user_params:
            names = {name for name in names if not name.startswith("param.")}
        differences = {
            name: (_json_or_none(stored.get(name)), _json_or_none(wanted.get(name)))
            for name in sorted(names)
            if stored.get(name) != wanted.get(name)
        }
        if "layout" in differences:
            differences.pop("layout_signature", None)
        if differences:
            raise IndexParameterMismatch(location, differences)

    def _fingerprint(self, fingerprint: object) -> int:
        """Validate one fingerprint: an int in [0, 2**bits)."""
        return checked_fingerprint(fingerprint, self.bits)

    def _radius(self, max_distance: int | None) -> int:
        """The query radius: at most the radius the layout guarantees."""
        if max_distance is None:
            return self.max_distance
        if not 0 <= max_distance <= self.max_distance:
            raise ValueError(
                f"max_distance must be in [0, {self.max_distance}] for this index (its layout "
                f"only guarantees neighbours within {self.max_distance}), got {max_distance}"
            )
        return max_distance

    def _check_open(self) -> None:
        if self._closed:
            raise NearDuplicateIndexError(f"{type(self).__name__} is closed")

    @staticmethod
    def _key(key: object) -> str:
        if not isinstance(key, str):
            raise TypeError(f"key must be a str, got {type(key).__name__}")
        return key

    @staticmethod
    def _evidence(evidence: object) -> bytes:
        """Validate evidence: bytes-like, at most :data:`MAX_EVIDENCE_BYTES`; as ``bytes``."""
        if not isinstance(evidence, (bytes, bytearray, memoryview)):
            raise TypeError(f"evidence must be bytes, got {type(evidence).__name__}")
        data = bytes(evidence)
        if len(data) > MAX_EVIDENCE_BYTES:
            raise ValueError(
                f"evidence must be at most {MAX_EVIDENCE_BYTES} bytes, got {len(data)}"
            )
        return data

    @classmethod
    def _evidence_keys(cls, keys: Sequence[str]) -> list[str]:
        """Validate the keys of :meth:`get_evidence` (one str is refused: it is no list)."""
        if isinstance(keys, str):
            raise TypeError("get_evidence takes a sequence of keys, not one str")
        return [cls._key(key) for key in keys]


def _json_or_none(value: str | None) -> object:
    return None if value is None else json.loads(value)
