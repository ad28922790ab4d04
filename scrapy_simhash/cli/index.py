"""``scrapy-simhash index stats`` / ``index query``: look into a stored index."""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scrapy_simhash.cli.common import CliError
from scrapy_simhash.cli.compare import _read_input_file
from scrapy_simhash.index import NearDuplicateIndexError, open_stored_index
from scrapy_simhash.index.uri import IndexUri, literal_sqlite_path, parse_index_uri, sqlite_uri


def stored_index_uri(text: str) -> IndexUri:
    """The stored index the user named: a URI, or an SQLite file by its path.

    An ``sqlite:`` URI's path is percent-decoded (see :mod:`scrapy_simhash.index.uri`); when
    that names no file but the text after ``sqlite:///`` taken as it was typed does (a name
    holding ``?``, ``%20``...), that file is the one meant. A path without ``://`` naming a file
    is an SQLite file.
    """
    if text.startswith("memory:"):
        raise CliError("memory:// holds nothing once its process ends; name a stored index")
    if "://" not in text and Path(text).is_file():
        return parse_index_uri(sqlite_uri(text))
    try:
        parsed = parse_index_uri(text)
    except ValueError as error:
        literal = literal_sqlite_path(text)
        if literal is not None and literal.is_file():
            return parse_index_uri(sqlite_uri(literal))
        raise CliError(str(error)) from None
    path, literal = parsed.sqlite_path, literal_sqlite_path(text)
    if path is not None and not path.is_file() and literal is not None and literal.is_file():
        return parse_index_uri(sqlite_uri(literal))
    return parsed


def open_stored(text: str, namespace: str) -> tuple[IndexUri, Any]:
    """The stored index ``text`` names and its URI, opened with the parameters it was built
    with (and read-only, for SQLite); nothing is created by looking."""
    uri = stored_index_uri(text)
    with index_errors(uri):
        return uri, open_stored_index(uri, namespace)


@contextmanager
def index_errors(uri: IndexUri) -> Iterator[None]:
    """The index's errors as one-line command-line errors naming the index."""
    try:
        yield
    except sqlite3.Error as error:  # e.g. a file damaged past the pages read on open
        from scrapy_simhash.index.sqlite import describe_error

        raise CliError(describe_error(uri.sqlite_path or uri.masked, error)) from None
    except (NearDuplicateIndexError, ImportError) as error:
        raise CliError(str(error)) from None
    except ValueError as error:
        raise CliError(f"{uri.masked}: {error}") from None


def cmd_index_stats(args: argparse.Namespace) -> int:
    uri, index = open_stored(args.uri, args.namespace)
    try:
        with index_errors(uri):
            info = {"uri": args.uri, **index.stats()}
    finally:
        index.close()
    balance = info["tables"]
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
    uri, index = open_stored(args.uri, args.namespace)
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
        if not 0 <= radius <= index.max_distance:
            raise CliError(f"--max-distance must be from 0 to {index.max_distance} (the index's "
                           f"own), got {radius}")
        with index_errors(uri):
            matches = index.query(fingerprint, radius)
            size = len(index)
        width = index.bits // 4
        print(f"{source}: fingerprint {fingerprint:0{width}x}, {len(matches)} match(es) within "
              f"{radius} of {size} stored")
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
