"""``scrapy-simhash index stats`` / ``index query``: look into a stored index."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

from scrapy_simhash.cli.common import CliError
from scrapy_simhash.cli.compare import _read_input_file
from scrapy_simhash.cli.dedup import _sqlite_path
from scrapy_simhash.index.base import mask_password


def open_stored_index(uri: str, namespace: str) -> Any:
    """A stored SimHash index opened with the parameters it was built with."""
    from scrapy_simhash.fingerprint import DEFAULT_BITS, DEFAULT_MAX_DISTANCE
    from scrapy_simhash.index import IndexParameterMismatch, open_index

    if uri.startswith("memory:"):
        raise CliError("memory:// holds nothing once its process ends; name a stored index")
    _check_sqlite_namespace(uri, namespace)
    _check_redis_namespace(uri, namespace)
    attempt: dict[str, Any] = {"bits": DEFAULT_BITS, "max_distance": DEFAULT_MAX_DISTANCE,
                               "tables": None}
    tried = []
    for _ in range(4):
        try:
            return open_index(uri, namespace=namespace, params=None, **attempt)
        except IndexParameterMismatch as mismatch:
            tried.append(attempt)
            attempt = _adopt_stored(mismatch.differences, attempt)
            if attempt in tried:
                raise CliError(str(mismatch)) from None
        except (ValueError, ImportError, OSError) as error:
            raise CliError(f"{uri}: {error}") from None
    raise CliError(f"{uri}: cannot find the parameters this index was built with")


def _adopt_stored(differences: dict[str, tuple[Any, Any]], attempt: dict[str, Any]) -> dict:
    adopted = dict(attempt)
    for name in ("bits", "max_distance"):
        if name in differences and isinstance(differences[name][0], int):
            adopted[name] = differences[name][0]
    layout = differences.get("layout", (None, None))[0]
    if isinstance(layout, str):
        if layout.startswith("manku"):
            adopted["tables"] = "manku"
        elif not layout.startswith("blocks:"):
            count = layout.split(":", 1)[-1].split("tables")[0].strip()
            adopted["tables"] = int(count) if count.isdigit() else adopted["tables"]
    return adopted


def _check_sqlite_namespace(uri: str, namespace: str) -> None:
    """A stored SQLite index must exist and hold the namespace: never create one by looking."""
    if not uri.startswith("sqlite:"):
        return
    path = _sqlite_path(uri)
    if not path:
        raise CliError("sqlite:// is an empty in-memory database; name a file")
    if not Path(path).is_file():
        raise CliError(f"{path}: no such index file")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT DISTINCT namespace FROM simhash_meta").fetchall()
    except sqlite3.Error:
        raise CliError(f"{path}: not a scrapy-simhash index") from None
    names = sorted(row[0] for row in rows)
    if namespace not in names:
        raise CliError(
            f"{path}: no namespace {namespace!r} (namespaces: {', '.join(names) or 'none'})"
        )


_REDIS_SCHEMES = ("redis", "rediss", "unix")


def _check_redis_namespace(uri: str, namespace: str) -> None:
    """A stored Redis index must hold the namespace (its parameters' hash,
    :func:`~scrapy_simhash.index.redis.meta_key`): opening one that does not would create it."""
    location, _, query = uri.partition("?")
    if location.split(":", 1)[0].lower() not in _REDIS_SCHEMES or "://" not in location:
        return
    from urllib.parse import parse_qsl

    try:
        import redis

        from scrapy_simhash.index.redis import (
            DEFAULT_PREFIX,
            meta_key,
            redis_py_url,
            validate_prefix,
        )
    except ImportError as error:
        raise CliError(f"{mask_password(uri)}: {error}") from None
    try:
        prefix = validate_prefix(dict(parse_qsl(query)).get("prefix", DEFAULT_PREFIX))
    except ValueError as error:
        raise CliError(f"{mask_password(uri)}: {error}") from None
    url = redis_py_url(uri)
    where = mask_password(uri)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=5.0, socket_timeout=10.0)
    except (ValueError, TypeError) as error:
        raise CliError(f"{where}: {error}") from None
    try:
        if client.exists(meta_key(prefix, namespace)):
            return
        pattern = meta_key(prefix, "*")
        names = sorted({key.decode("utf-8", "replace")[len(prefix) + 2 : -len("}:meta")]
                        for key in client.scan_iter(match=pattern, count=1000)})
    except redis.RedisError as error:
        raise CliError(f"{where}: cannot reach Redis ({error})") from None
    finally:
        client.close()
    raise CliError(f"{where}: no namespace {namespace!r} under prefix {prefix!r} (namespaces: "
                   f"{', '.join(names) or 'none'})")


def bucket_balance(index: Any) -> list[dict[str, Any]] | None:
    """Per table: key bits, buckets used, largest and mean bucket, candidates per lookup."""
    stats = getattr(index, "stats", None)
    if callable(stats):
        tables = stats().get("tables")
        if tables is not None:
            return list(tables)
    words = _stored_words(index)
    if words is None:
        return None
    import numpy as np

    layout = index.layout
    keys = layout.keys_array(words)
    size = words.shape[0]
    out = []
    for table, segments in enumerate(layout.tables):
        key_bits = sum(seg.width for seg in segments)
        if size:
            _, counts = np.unique(keys[:, table], return_counts=True)
            counts = counts.astype(np.float64)
            largest, buckets = int(counts.max()), int(counts.size)
            seen = float((counts * counts).sum() / size)  # a stored fingerprint's bucket, on avg
        else:
            largest = buckets = 0
            seen = 0.0
        out.append({
            "table": table, "key_bits": key_bits, "buckets": buckets, "largest": largest,
            "mean": size / buckets if buckets else 0.0, "candidates": seen,
            "uniform": 1.0 + (size - 1) / 2.0**key_bits if size else 0.0,
        })
    return out


def _stored_words(index: Any) -> Any:
    """The stored fingerprints as (n, words) uint64, where the backend keeps them in memory."""
    engine = getattr(index, "engine", None)
    stored = getattr(engine, "_fps", None)
    if stored is None:
        return None
    return stored.data[: len(engine)]


def cmd_index_stats(args: argparse.Namespace) -> int:
    index = open_stored_index(args.uri, args.namespace)
    try:
        balance = bucket_balance(index)
        info = {
            "uri": args.uri, "namespace": args.namespace, "size": len(index),
            "bits": index.bits, "max_distance": index.max_distance,
            "layout": index.layout.describe(), "params": dict(index.params),
            "tables": balance,
        }
    finally:
        index.close()
    if args.json:
        print(json.dumps(info, indent=2, sort_keys=True, ensure_ascii=False))
        return 0
    print(f"index         {args.uri} (namespace {args.namespace})")
    print(f"size          {info['size']}")
    print(f"bits          {info['bits']}")
    print(f"max distance  {info['max_distance']}")
    print(f"layout        {info['layout']}")
    params = ", ".join(f"{k}={v}" for k, v in sorted(info["params"].items()) if v is not None)
    print(f"parameters    {params or '(none stored)'}")
    if balance is None:
        print("buckets       not available for this backend")
        return 0
    print("buckets       per table; 'per lookup' = fingerprints sharing a stored one's key")
    print(f"  {'table':>5} {'key bits':>8} {'buckets':>9} {'largest':>8} {'mean':>7} "
          f"{'per lookup':>10} {'if uniform':>10}")
    for row in balance:
        print(f"  {row['table']:>5} {row['key_bits']:>8} {row['buckets']:>9} {row['largest']:>8} "
              f"{row['mean']:>7.2f} {row['candidates']:>10.2f} {row['uniform']:>10.2f}")
    return 0


def cmd_index_query(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise CliError(f"--limit must be at least 0, got {args.limit}")
    index = open_stored_index(args.uri, args.namespace)
    try:
        fingerprinter = _fingerprinter_for(index, args)
        source = args.text or args.html
        data = _read_input_file(source)
        if args.text:
            text = data.decode("utf-8", "replace")
        else:
            text = fingerprinter.extract(data, None, args.url)
        fingerprint = fingerprinter.fingerprint_text(text)
        if fingerprint is None:
            print(f"{source}: no fingerprint (fewer than {fingerprinter.min_tokens} tokens)")
            return 0
        radius = index.max_distance if args.max_distance is None else args.max_distance
        try:
            matches = index.query(fingerprint, radius)
        except ValueError as error:
            raise CliError(str(error)) from None
        width = index.bits // 4
        print(f"{source}: fingerprint {fingerprint:0{width}x}, {len(matches)} match(es) within "
              f"{radius} of {len(index)} stored")
        for match in matches[: args.limit]:
            print(f"  {match.distance:>3}  {match.fingerprint:0{width}x}  {match.key}")
        if len(matches) > args.limit:
            print(f"  ... {len(matches) - args.limit} more (--limit)")
    finally:
        index.close()
    return 0


def _fingerprinter_for(index: Any, args: argparse.Namespace) -> Any:
    """A Fingerprinter with the index's stored settings, so queries use the same bits."""
    from scrapy_simhash.fingerprint import FINGERPRINT_VERSION, Fingerprinter

    stored = dict(index.params)
    version = stored.pop("fingerprint_version", FINGERPRINT_VERSION)
    if version != FINGERPRINT_VERSION:
        raise CliError(
            f"{args.uri}: built with fingerprint version {version}, this installation makes "
            f"version {FINGERPRINT_VERSION}: rebuild the index"
        )
    stored.pop("algorithm", None)
    options = {k: v for k, v in stored.items() if v is not None}
    options["bits"] = index.bits
    options["max_distance"] = index.max_distance
    if args.min_tokens is not None:
        options["min_tokens"] = args.min_tokens
    try:
        return Fingerprinter(**options)
    except (TypeError, ValueError, ImportError) as error:
        raise CliError(f"{args.uri}: stored parameters do not make a fingerprinter: {error}") \
            from None
