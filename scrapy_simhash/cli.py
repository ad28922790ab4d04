"""``scrapy-simhash``: near-duplicates after the crawl, from the command line.

Commands: ``dedup`` (clean a feed export or a folder of pages), ``compare`` (explain one
decision), ``index stats`` / ``index query`` (look into a stored index) and ``report`` (an HTML
page of the duplicate clusters). Errors print one line naming the file, line or field and exit
with status 2. The engine defaults (bits, distance, features...) are the library's: an option
left out is not passed on, so the CLI follows :class:`~scrapy_simhash.Fingerprinter`.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import multiprocessing
import os
import signal
import sqlite3
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy_simhash.index import NearDuplicateIndexError, coerce_option
from scrapy_simhash.index.base import mask_password
from scrapy_simhash.records import (
    STDIO,
    AtomicWriter,
    Record,
    RecordError,
    RecordReader,
    RecordWriter,
    UnknownField,
    as_text,
    field_value,
    record_text,
)

PROG = "scrapy-simhash"
DEFAULT_CHUNK = 512
_PAIR_BLOCK = 1 << 18  # distances computed at once when comparing a chunk's records pairwise
_MAX_WARNINGS = 20


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


# ----------------------------------------------------------------------------- detectors


# Detector options that only some algorithms use: name -> (the option, the algorithms).
_ALGORITHM_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "bits": ("--bits", ("simhash",)),
    "max_distance": ("--max-distance/-k", ("simhash",)),
    "features": ("--features", ("simhash",)),
    "weighting": ("--weighting", ("simhash",)),
    "threshold": ("--threshold", ("minhash",)),
    "num_perm": ("--num-perm", ("minhash",)),
}


def detector_options(args: argparse.Namespace) -> dict[str, Any]:
    """The detector keyword arguments named on the command line (and only those); an option
    that ``--algorithm`` does not use is refused rather than ignored."""
    names = ("bits", "max_distance", "features", "weighting", "tokenizer", "min_tokens",
             "extractor", "threshold", "num_perm")
    options = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    given = {name: _ALGORITHM_OPTIONS.get(name, ("", ()))[0] for name in options}
    if args.fold_traditional:
        options["fold_traditional"] = True
    for item in args.option or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise CliError(f"--option needs NAME=VALUE, got {item!r}")
        options[name.replace("-", "_")] = coerce_option(value)
        given.setdefault(name.replace("-", "_"), f"-o {name}")
    for name, option in given.items():
        used_by = _ALGORITHM_OPTIONS.get(name, ("", ()))[1]
        if used_by and args.algorithm not in used_by:
            raise CliError(f"{option} applies to --algorithm {' or '.join(used_by)} only, "
                           f"not {args.algorithm}")
    return options


def build_detector(algorithm: str, options: dict[str, Any]) -> Any:
    """The detector of ``algorithm`` with ``options``; bad values become a :class:`CliError`."""
    from scrapy_simhash.detectors import get_detector

    try:
        detector = get_detector(algorithm, **options)
        _ = detector.fingerprinter.extractor  # an unknown extractor fails now, not per page
    except (ValueError, TypeError, ImportError) as error:
        raise CliError(str(error)) from None
    return detector


# Signatures are computed here or in worker processes; a worker builds its own detector once.
_WORKER_DETECTOR: Any = None


def _init_worker(algorithm: str, options: dict[str, Any]) -> None:
    """Build the worker's detector. Ctrl-C signals the whole process group: workers ignore it
    and the parent alone stops the run (a worker interrupted while it holds the pool's task
    queue lock would make ``Pool.terminate`` wait for it forever)."""
    global _WORKER_DETECTOR
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from scrapy_simhash.detectors import get_detector

    _WORKER_DETECTOR = get_detector(algorithm, **options)


@dataclass(frozen=True)
class ExtractionFailed:
    """In place of a signature: the extractor raised on this record's HTML (a custom
    ``--extractor``, say). The record is kept unfingerprinted, as the crawl keeps such a page."""

    cause: str


def sign_batch(detector: Any, kind: str, items: Sequence[Any]) -> list[Any]:
    """Signatures of texts (``kind="text"``) or of ``(html, url)`` pairs (``kind="html"``);
    :class:`ExtractionFailed` for a page whose extraction raised.

    SimHash signs the whole batch at once (:meth:`Fingerprinter.fingerprint_many`, the same
    bits as one by one); other detectors sign record by record.
    """
    if detector.name == "simhash":
        fingerprinter = detector.fingerprinter
        if kind != "html":
            return fingerprinter.fingerprint_many(items)
        texts = [_guarded(fingerprinter.extract, html, None, url) for html, url in items]
        signed = iter(fingerprinter.fingerprint_many(
            [text for text in texts if not isinstance(text, ExtractionFailed)]
        ))
        return [text if isinstance(text, ExtractionFailed) else next(signed) for text in texts]
    if kind == "html":
        return [_guarded(detector.signature_html, html, None, url) for html, url in items]
    return [detector.signature(text) for text in items]


def _guarded(call: Callable[..., Any], *args: Any) -> Any:
    try:
        return call(*args)
    except Exception as error:
        return ExtractionFailed(f"{type(error).__name__}: {error}")


def _sign_in_worker(kind: str, items: Sequence[Any]) -> list[Any]:
    return sign_batch(_WORKER_DETECTOR, kind, items)


# ----------------------------------------------------------------------------- dedup engine


@dataclass
class DedupSummary:
    """What ``dedup`` did."""

    records: int = 0
    kept: int = 0
    dropped: int = 0
    unfingerprinted: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        return (
            f"records {self.records}, kept {self.kept}, dropped {self.dropped}, "
            f"unfingerprinted {self.unfingerprinted}, skipped {self.skipped} malformed, "
            f"{self.seconds:.2f} s ({rate:.0f} records/s)"
        )


@dataclass
class Duplicate:
    """One dropped record: its id, the kept record it duplicates, and their distance."""

    id: str
    duplicate_of: str
    distance: int | float

    def as_json(self) -> str:
        row = {"id": self.id, "duplicate_of": self.duplicate_of, "distance": self.distance}
        return json.dumps(row, ensure_ascii=False)


class ClusterKeeper:
    """Keeps the first record of each near-duplicate cluster, a chunk at a time.

    The answer is exactly the one of the sequential loop ``index.check_and_add(key, signature)``
    over the records in order: a record is compared with the index (earlier chunks, earlier
    runs) through one ``query_many`` per chunk, and with the records kept earlier in its own
    chunk; the nearest match wins, ties going to the earlier record. Kept records are added with
    one ``add_many``. Indexes without ``query_many`` (the band indexes of MinHash, KSentence
    and exact) fall back to ``check_and_add`` per record.
    """

    def __init__(self, detector: Any, index: Any) -> None:
        self.index = index
        self.added = 0  # signatures this keeper stored
        self.batched = hasattr(index, "query_many") and detector.name == "simhash"
        if self.batched:
            self.max_distance = index.max_distance
            self.words = index.bits // 64

    def decide(self, keys: Sequence[str], signatures: Sequence[Any]) -> list[Any]:
        """For each record: the Match it duplicates, or None (kept, or no signature)."""
        if not self.batched:
            found: list[Any] = []
            for key, signature in zip(keys, signatures, strict=True):
                match = None if signature is None else self.index.check_and_add(key, signature)
                self.added += signature is not None and match is None  # counted as it is stored:
                found.append(match)  # an index that fails part-way says what it kept
            return found
        from scrapy_simhash.index import Match

        results: list[Any] = [None] * len(keys)
        positions = [i for i, sig in enumerate(signatures) if sig is not None]
        if not positions:
            return results
        fingerprints = [signatures[i] for i in positions]
        found = self.index.query_many(fingerprints)
        earlier = self._near_earlier(fingerprints)
        kept = [False] * len(positions)
        for row, (position, matches) in enumerate(zip(positions, found, strict=True)):
            best = matches[0] if matches else None
            nearest, near = -1, self.max_distance + 1
            for other, distance in earlier.get(row, ()):  # earlier rows first
                if distance < near and kept[other]:
                    nearest, near = other, distance
            if nearest >= 0 and (best is None or near < best.distance):
                other = positions[nearest]
                best = Match(keys[other], signatures[other], near)
            if best is None:
                kept[row] = True
            else:
                results[position] = best
        self.index.add_many(
            (keys[positions[row]], signatures[positions[row]])
            for row, is_kept in enumerate(kept) if is_kept
        )
        self.added += sum(kept)
        return results

    def _near_earlier(self, fingerprints: Sequence[int]) -> dict[int, list[tuple[int, int]]]:
        """Row -> [(earlier row, distance)] of the chunk's pairs within ``max_distance``.

        All pairs at once with numpy (a chunk is small; the blocks bound the temporary
        arrays when it is not), so only the few rows with a near neighbour loop in Python.
        """
        import numpy as np

        from scrapy_simhash.index.memory import popcount, split_words

        words = split_words(fingerprints, self.words)
        count = len(fingerprints)
        block = max(1, _PAIR_BLOCK // count)
        earlier: dict[int, list[tuple[int, int]]] = {}
        for start in range(0, count, block):
            rows = words[start : start + block]
            end = start + rows.shape[0]
            distance = popcount(rows[:, None, 0] ^ words[None, :end, 0])
            for w in range(1, self.words):
                distance += popcount(rows[:, None, w] ^ words[None, :end, w])
            later, before = np.nonzero(distance <= self.max_distance)
            later += start
            pairs = before < later
            for row, other, near in zip(later[pairs].tolist(), before[pairs].tolist(),
                                        distance[later[pairs] - start, before[pairs]].tolist(),
                                        strict=True):
                earlier.setdefault(row, []).append((other, near))
        return earlier


@dataclass
class DedupJob:
    """Everything ``dedup`` needs besides the records."""

    fields: list[str]
    id_field: str | None
    html: bool
    algorithm: str
    options: dict[str, Any]
    index_uri: str = "memory://"
    namespace: str = "pages"
    jobs: int = 1
    chunk_size: int = DEFAULT_CHUNK
    progress: bool = False
    skipped: list[RecordError] = field(default_factory=list)
    #: For each text field no record has had so far: the message for the first record without it
    missing_fields: dict[str, str] = field(default_factory=dict)
    fields_seen: set[str] = field(default_factory=set)  # text fields some record had
    extraction_failures: int = 0  # records whose extractor raised (kept unfingerprinted)
    first_extraction_failure: str | None = None


def run_dedup(
    reader: RecordReader,
    job: DedupJob,
    on_kept: Callable[[Record], None],
    on_duplicate: Callable[[Duplicate], None],
    before_commit: Callable[[], None] | None = None,
) -> DedupSummary:
    """Deduplicate ``reader``'s records in input order; the first of each cluster is kept.

    ``before_commit`` runs once every record was decided, before the index stores the run
    (a SQLite index: its one transaction is committed): an output that cannot be completed
    fails the run there, and leaves the index as it was."""
    started = time.perf_counter()
    detector = build_detector(job.algorithm, job.options)
    scheme = urlsplit(job.index_uri).scheme
    try:
        index = detector.open_index(
            job.index_uri, namespace=job.namespace,
            **(_one_transaction_options(detector) if scheme == "sqlite" else {}),
        )
    except ValueError as error:  # IndexParameterMismatch is a ValueError too
        raise CliError(str(error)) from None
    summary = DedupSummary()
    keeper = ClusterKeeper(detector, index)
    pool = _start_pool(job) if job.jobs > 1 else None
    bar = _progress_bar(reader, job.progress)
    finished = False
    try:
        prepared = (_prepare(chunk, reader, job) for chunk in _chunked(reader, job.chunk_size))
        for records, keys, signatures in _signed(prepared, detector, pool, job):
            signatures = _failures_noted(records, signatures, reader, job)
            decisions = keeper.decide(keys, signatures)
            for record, key, signature, match in zip(
                records, keys, signatures, decisions, strict=True
            ):
                summary.records += 1
                if match is None:
                    summary.kept += 1
                    summary.unfingerprinted += signature is None
                    on_kept(record)
                else:
                    summary.dropped += 1
                    on_duplicate(Duplicate(key, match.key, match.distance))
            if bar is not None:
                bar.update(reader.bytes_read - bar.n)
                bar.set_postfix(records=summary.records, dropped=summary.dropped, refresh=False)
        for name, message in job.missing_fields.items():  # no record had it: a typo, not a
            if name not in job.fields_seen:  # sparse feed
                raise CliError(message)
        if before_commit is not None:
            before_commit()
        index.flush()
        finished = True
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.terminate()
            pool.join()
        try:
            if not finished:
                _undo_unfinished_run(index, keeper, job, scheme)
        finally:
            index.close()
    summary.skipped = len(reader.skipped) + len(job.skipped)
    summary.seconds = time.perf_counter() - started
    return summary


def _failures_noted(
    records: list[Record], signatures: list[Any], reader: RecordReader, job: DedupJob
) -> list[Any]:
    """``signatures`` with None for each :class:`ExtractionFailed`, whose first cause and count
    the job keeps (reported once, after the run)."""
    if not any(isinstance(signature, ExtractionFailed) for signature in signatures):
        return signatures
    out = []
    for record, signature in zip(records, signatures, strict=True):
        if isinstance(signature, ExtractionFailed):
            job.extraction_failures += 1
            if job.first_extraction_failure is None:
                where = f"{reader.name}:{record.line}"
                job.first_extraction_failure = f"{where}: {signature.cause}"
            signature = None
        out.append(signature)
    return out


def _one_transaction_options(detector: Any) -> dict[str, Any]:
    """Index options that make a run against a SQLite file one transaction, committed at the
    end: a run that fails or is interrupted leaves the index as it was, instead of storing
    records that a repeated run would then drop as seen."""
    options: dict[str, Any] = {"commit_every": 1 << 62}
    if detector.name == "simhash":
        options["commit_interval"] = math.inf
    return options


def _undo_unfinished_run(index: Any, keeper: ClusterKeeper, job: DedupJob, scheme: str) -> None:
    """After a failed or interrupted run: roll a SQLite index back, or say what stays stored."""
    if scheme == "sqlite":  # the run was one transaction (_one_transaction_options)
        index.rollback()
    elif keeper.added and scheme != "memory":
        where = f"{mask_password(job.index_uri)} (namespace {job.namespace})"
        print(f"{PROG}: the run stopped after storing {keeper.added} fingerprint(s) in {where}; "
              "running it again drops those records as already seen", file=sys.stderr)


def _chunked(records: Iterable[Record], size: int) -> Iterator[list[Record]]:
    iterator = iter(records)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _prepare(
    chunk: list[Record], reader: RecordReader, job: DedupJob
) -> tuple[list[Record], list[str], str, list[Any]]:
    """(records, ids, payload kind, payloads) of one chunk; bad records are dropped or fatal."""
    records, keys, items = [], [], []
    folder = reader.fmt == "html"
    for record in chunk:
        try:
            key = _record_id(record, job, folder)
        except UnknownField as missing:
            if record.number == 1:
                raise CliError(_unknown_field_message(reader, record, str(missing))) from None
            error = RecordError(reader.name, record.line, f"record has no {str(missing)!r} field")
            if reader.on_error == "stop":
                raise error from None
            job.skipped.append(error)
            continue
        if folder:
            items.append((record.data["html"], None))
        else:
            # Scrapy's exports leave unset fields out: a record's text is the fields it has
            # (none: kept, unfingerprinted); a field no record has is an unknown field.
            absent: list[str] = []
            try:
                text = record_text(record, job.fields, absent)
            except UnknownField:
                text = ""
            for name in absent:
                if name not in job.missing_fields:
                    job.missing_fields[name] = _unknown_field_message(reader, record, name)
            if len(job.fields_seen) < len(job.fields):  # (until each field was seen once)
                job.fields_seen.update(name for name in job.fields if name not in absent)
            items.append((text, _url(record)) if job.html else text)
        records.append(record)
        keys.append(key)
    kind = "html" if folder or job.html else "text"
    return records, keys, kind, items


def _record_id(record: Record, job: DedupJob, folder: bool) -> str:
    if job.id_field is None:
        key = record.data["path"] if folder else str(record.number)
    else:
        key = as_text(field_value(record.data, job.id_field))
    # Storable and printable: a file name's undecodable bytes, a JSON "\ud83d", as escapes.
    if folder:
        return key.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _url(record: Record) -> str | None:
    url = record.data.get("url")
    return url if isinstance(url, str) else None


def _unknown_field_message(reader: RecordReader, record: Record, name: str) -> str:
    known = ", ".join(reader.fieldnames or list(record.data)) or "none"
    line = 1 if reader.fieldnames is not None else record.line  # a CSV's fields: its header
    return f"{reader.name}:{line}: unknown field {name!r} (fields: {known})"


def _signed(
    prepared: Iterable[tuple[list[Record], list[str], str, list[Any]]],
    detector: Any,
    pool: Any,
    job: DedupJob,
) -> Iterator[tuple[list[Record], list[str], list[Any]]]:
    """Chunks with their signatures, in input order; with a pool, a few chunks run ahead."""
    if pool is None:
        for records, keys, kind, items in prepared:
            yield records, keys, sign_batch(detector, kind, items)
        return
    pending: deque = deque()
    slice_size = max(1, -(-job.chunk_size // (_workers(job) * 2)))

    def collect() -> tuple:
        records, keys, futures = pending.popleft()
        return records, keys, [sig for future in futures for sig in future.get()]

    for records, keys, kind, items in prepared:
        futures = [
            pool.apply_async(_sign_in_worker, (kind, items[start : start + slice_size]))
            for start in range(0, len(items), slice_size)
        ]
        pending.append((records, keys, futures))
        if len(pending) > 2:
            yield collect()
    while pending:
        yield collect()


def _workers(job: DedupJob) -> int:
    """Fingerprinting processes: ``jobs - 1``, since this process, which reads, queries the
    index and writes, has a core's worth of work itself (measured: with ``--jobs 2`` on two
    cores one worker beside it is faster than two, which would share its core)."""
    return max(1, job.jobs - 1)


def _start_pool(job: DedupJob) -> Any:
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    return context.Pool(_workers(job), initializer=_init_worker,
                        initargs=(job.algorithm, job.options))


def _progress_bar(reader: RecordReader, wanted: bool) -> Any:
    if not wanted:
        return None
    from tqdm import tqdm

    folder = reader.fmt == "html"
    return tqdm(
        total=reader.total_bytes or None,  # None: unknown (a stream)
        unit="file" if folder else "B",
        unit_scale=not folder,
        desc="dedup",
        file=sys.stderr,
        dynamic_ncols=True,
    )


def cmd_dedup(args: argparse.Namespace) -> int:
    try:
        reader = RecordReader(Path(args.input), args.format, args.on_error)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None
    except ValueError as error:
        raise CliError(str(error)) from None
    if reader.fmt == "html" and args.field:
        raise CliError("--field does not apply to a folder of HTML files (pages are read whole)")
    if reader.fmt != "html" and not args.field:
        raise CliError(
            f"{reader.name}: name the text to compare with --field (repeat it for several)"
        )
    if args.jobs < 1:
        raise CliError(f"--jobs must be at least 1, got {args.jobs}")
    if args.chunk_size < 1:
        raise CliError(f"--chunk-size must be at least 1, got {args.chunk_size}")
    if args.out == args.dups == STDIO or (
        args.dups and _same_file(args.out, args.dups)
    ):
        raise CliError(f"--out and --dups name the same file: {args.out}")
    inputs = {"the input": args.input}
    index_file = _sqlite_path(args.index)
    if index_file:
        inputs["the index"] = index_file
    _check_outputs({"--out": args.out, "--dups": args.dups}, inputs)
    options = detector_options(args)
    job = DedupJob(
        fields=args.field or [],
        id_field=args.id_field,
        html=args.html,
        algorithm=args.algorithm,
        options=options,
        index_uri=args.index,
        namespace=args.namespace,
        jobs=args.jobs,
        chunk_size=args.chunk_size,
        progress=not args.quiet and sys.stderr.isatty(),
    )
    kept_file, dups_file = AtomicWriter(args.out), _maybe_writer(args.dups)
    with kept_file as kept_stream, dups_file as dups_stream:
        writer = RecordWriter(kept_stream, reader)

        def on_duplicate(duplicate: Duplicate) -> None:
            if dups_stream is not None:
                dups_stream.write(duplicate.as_json() + "\n")

        def complete_outputs() -> None:
            """Both outputs whole and on disk before the index stores the run: a full disk
            fails the run with the index as it was (the files are put in place after)."""
            writer.close()
            kept_file.prepare()
            dups_file.prepare()

        try:
            summary = run_dedup(reader, job, writer.write, on_duplicate, complete_outputs)
        except RecordError as error:
            if error.skippable and reader.on_error == "stop":
                raise CliError(f"{error}; use --on-error skip to leave such records out") from None
            raise CliError(str(error)) from None
    for error in (reader.skipped + job.skipped)[:_MAX_WARNINGS]:
        print(f"{PROG}: skipped {error}", file=sys.stderr)
    if summary.skipped > _MAX_WARNINGS:
        print(f"{PROG}: ... and {summary.skipped - _MAX_WARNINGS} more skipped", file=sys.stderr)
    if job.extraction_failures:
        print(f"{PROG}: the extractor failed on {job.extraction_failures} record(s), kept "
              f"unfingerprinted; the first: {job.first_extraction_failure}", file=sys.stderr)
    print(summary.line(), file=sys.stderr if STDIO in (args.out, args.dups) else sys.stdout)
    return 0


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same resolved path, or (both existing) the same
    inode (a hard link). ``-`` (standard input or output) is no file."""
    if STDIO in (a, b):
        return False
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:  # one does not exist (yet)
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def _check_outputs(outputs: dict[str, str | None], inputs: dict[str, str]) -> None:
    """Refuse, before anything is written, an output that is a folder or the same file as an
    input (``{option: path}``, ``{what: path}``): writing it would destroy the input."""
    for option, output in outputs.items():
        if not output or output == STDIO:
            continue
        if Path(output).is_dir():
            raise CliError(f"{output}: is a folder; name a file to write")
        for what, source in inputs.items():
            if _same_file(output, source):
                raise CliError(f"{option} {output}: is {what} ({source}); name another file "
                               "to write")


def _sqlite_path(uri: str) -> str | None:
    """The file of a ``sqlite:///path`` index URI; None for other schemes or in-memory."""
    if not uri.startswith("sqlite:"):
        return None
    from scrapy_simhash.index.sqlite import path_of

    return path_of(uri) or None


class _NoWriter:
    def __enter__(self) -> None:
        return None

    def prepare(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _maybe_writer(path: str | None) -> Any:
    return AtomicWriter(path) if path else _NoWriter()


# ----------------------------------------------------------------------------- compare


def cmd_compare(args: argparse.Namespace) -> int:
    detector = build_detector(args.algorithm, detector_options(args))
    fingerprinter = detector.fingerprinter
    sides = []
    for label, name, url in (("A", args.a, args.url_a), ("B", args.b, args.url_b)):
        data = _read_input_file(name)
        text = data.decode("utf-8", "replace") if args.text else fingerprinter.extract(
            data, None, url
        )
        sides.append((label, name, text, detector.signature(text)))
    for label, name, text, signature in sides:
        tokens = len(fingerprinter.tokens(text))
        print(f"{label}: {name}")
        print(f"  main text    {len(text)} characters, {tokens} tokens")
        if signature is None:
            print(f"  fingerprint  none (fewer than {fingerprinter.min_tokens} tokens)")
        else:
            print(f"  fingerprint  {_signature_hex(detector, signature)}")
    (_, _, text_a, sig_a), (_, _, text_b, sig_b) = sides
    if sig_a is None or sig_b is None:
        print("distance     not computed (a side has no fingerprint)")
        print("verdict      not comparable: too little text")
    else:
        duplicate = detector.is_duplicate(sig_a, sig_b)
        print(f"distance     {_distance_text(detector, sig_a, sig_b)}")
        print(f"verdict      {'near-duplicate' if duplicate else 'different'}")
    if args.diff:
        diff = difflib.unified_diff(
            text_a.splitlines(), text_b.splitlines(),
            fromfile=f"A: {args.a}", tofile=f"B: {args.b}", lineterm="",
        )
        lines = list(diff)
        print()
        print("\n".join(lines) if lines else "(the extracted texts are identical)")
    return 0


def _read_input_file(name: str) -> bytes:
    if "://" in name and not name.startswith("file://"):
        raise CliError(
            f"{name}: compare reads saved pages; download it first (e.g. curl -o page.html URL)"
        )
    path = Path(name.removeprefix("file://"))
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a folder, not a file") from None


def _signature_hex(detector: Any, signature: Any) -> str:
    if detector.name == "simhash":
        return f"{signature:0{detector.bits // 4}x} ({detector.bits} bits)"
    return f"{detector.fingerprint_of(signature):016x} ({detector.name} signature digest)"


def _distance_text(detector: Any, a: Any, b: Any) -> str:
    if detector.name == "simhash":
        return (f"{detector.distance(a, b)} bits (near-duplicate at {detector.max_distance} "
                "or fewer)")
    if detector.name == "minhash":
        return (f"{detector.distance(a, b):.3f} (estimated Jaccard {detector.estimate(a, b):.3f}, "
                f"near-duplicate at {detector.threshold} or more)")
    return f"{detector.distance(a, b):g} ({detector.name}: 0 means equal)"


# ----------------------------------------------------------------------------- index


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


# ----------------------------------------------------------------------------- report


def cmd_report(args: argparse.Namespace) -> int:
    from scrapy_simhash import htmlreport

    if args.dups != STDIO and Path(args.dups).is_dir():
        raise CliError(f"{args.dups}: is a folder; name the --dups file of dedup (JSON lines)")
    _check_outputs({"--html": args.html}, {"the input": args.dups})
    try:
        rows = htmlreport.read_duplicates(args.dups)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None
    except ValueError as error:  # a RecordError, or a file the reader cannot take
        raise CliError(str(error)) from None
    name = "stdin" if args.dups == STDIO else Path(args.dups).name
    page = htmlreport.render_report(
        rows, title=args.title or f"Near-duplicates in {name}", max_clusters=args.max_clusters,
    )
    with AtomicWriter(args.html) as stream:
        stream.write(page)
    clusters = len({row.duplicate_of for row in rows})  # one cluster per kept record
    to_stdout = args.html == STDIO
    print(f"{'<stdout>' if to_stdout else args.html}: {len(rows)} duplicates in {clusters} "
          "clusters", file=sys.stderr if to_stdout else sys.stdout)
    return 0


# ----------------------------------------------------------------------------- parser


def _add_detector_options(parser: argparse.ArgumentParser) -> None:
    from scrapy_simhash.detectors import ALGORITHMS, DEFAULT_ALGORITHM

    group = parser.add_argument_group("detector (defaults: the library's)")
    group.add_argument("--algorithm", choices=ALGORITHMS, default=DEFAULT_ALGORITHM)
    group.add_argument("--bits", type=int, help="fingerprint width: 64 or 128")
    group.add_argument("--max-distance", "-k", type=int, help="Hamming distance of duplicates")
    group.add_argument("--features", help="words, shingles or chars")
    group.add_argument("--weighting", help="tf, logtf or tfidf")
    group.add_argument("--tokenizer", help="auto (jieba for Chinese) or words")
    group.add_argument("--min-tokens", type=int, help="fewer tokens: no fingerprint, kept")
    group.add_argument("--extractor", help="main-text extractor for HTML (builtin, wholepage...)")
    group.add_argument("--fold-traditional", action="store_true",
                       help="fold Traditional Chinese to Simplified (needs opencc)")
    group.add_argument("--threshold", type=float, help="minhash: Jaccard threshold")
    group.add_argument("--num-perm", type=int, help="minhash: permutations")
    group.add_argument("--option", "-o", action="append", metavar="NAME=VALUE",
                       help="any other detector option (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Near-duplicate tools: deduplicate exports, explain decisions, "
        "inspect indexes, report clusters.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    dedup = commands.add_parser(
        "dedup", help="keep the first of each near-duplicate cluster of a feed export",
        description="Read JSON lines, a JSON array, CSV or a folder of HTML files; write the "
        "kept records in the same format and the dropped ones as JSON lines "
        '{"id", "duplicate_of", "distance"}.',
    )
    dedup.add_argument("input", help="a .jsonl/.jl, .json, .csv file, a folder of .html files, "
                       "or - for standard input")
    dedup.add_argument("--field", "-f", action="append",
                       help="field holding the text (repeat to join several)")
    dedup.add_argument("--html", action="store_true",
                       help="the fields hold HTML: extract the main text first")
    dedup.add_argument("--id-field", help="field naming a record (default: its 1-based number)")
    dedup.add_argument("--out", required=True,
                       help="kept records (a folder input: their paths); - for standard output "
                       "(the summary then goes to stderr)")
    dedup.add_argument("--dups", help="dropped records as JSON lines (- for standard output)")
    dedup.add_argument("--format", choices=("jsonl", "json", "csv", "html"),
                       help="input format (default: from the name, else the first character)")
    dedup.add_argument("--index", default="memory://",
                       help="index URI: memory://, sqlite:///path.db, redis://... (default: "
                       "memory://); a stored index also drops records seen in earlier runs")
    dedup.add_argument("--namespace", default="pages", help="index namespace")
    dedup.add_argument("--on-error", choices=("stop", "skip"), default="stop",
                       help="a malformed record stops the run (default) or is skipped")
    dedup.add_argument("--jobs", "-j", type=int, default=1,
                       help="processes: N - 1 fingerprint while this one reads, queries the "
                       "index and writes (default 1: all in this process)")
    dedup.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK, help=argparse.SUPPRESS)
    dedup.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    _add_detector_options(dedup)
    dedup.set_defaults(handler=cmd_dedup)

    compare = commands.add_parser(
        "compare", help="fingerprints, distance and verdict of two saved pages",
        description="Explain a decision: both fingerprints, their distance and the verdict.",
    )
    compare.add_argument("a", help="first page (HTML file, or text with --text)")
    compare.add_argument("b", help="second page")
    compare.add_argument("--text", action="store_true", help="the files are plain text")
    compare.add_argument("--diff", action="store_true",
                         help="print a unified diff of the extracted texts")
    compare.add_argument("--url-a", help="URL of the first page (for URL-aware extractors)")
    compare.add_argument("--url-b", help="URL of the second page")
    _add_detector_options(compare)
    compare.set_defaults(handler=cmd_compare)

    index = commands.add_parser("index", help="inspect a stored SimHash index")
    index_commands = index.add_subparsers(dest="index_command", required=True, metavar="ACTION")
    stats = index_commands.add_parser("stats", help="size, parameters and bucket balance")
    stats.add_argument("uri", help="sqlite:///path.db, redis://...")
    stats.add_argument("--namespace", default="pages")
    stats.add_argument("--json", action="store_true", help="machine-readable output")
    stats.set_defaults(handler=cmd_index_stats)
    query = index_commands.add_parser("query", help="the stored fingerprints nearest a page")
    query.add_argument("uri")
    source = query.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", metavar="FILE", help="a plain-text file")
    source.add_argument("--html", metavar="FILE", help="an HTML file (main text extracted)")
    query.add_argument("--url", help="the page's URL (for URL-aware extractors)")
    query.add_argument("--namespace", default="pages")
    query.add_argument("--max-distance", "-k", type=int,
                       help="search radius (default and maximum: the index's)")
    query.add_argument("--min-tokens", type=int, help=argparse.SUPPRESS)
    query.add_argument("--limit", type=int, default=20, help="matches shown (default 20)")
    query.set_defaults(handler=cmd_index_query)

    report = commands.add_parser(
        "report", help="an HTML page of the duplicate clusters and a distance histogram",
    )
    report.add_argument("dups", help="the --dups file of dedup (- for standard input)")
    report.add_argument("--html", required=True, metavar="OUT",
                        help="the page to write (- for standard output)")
    report.add_argument("--title", help="page title")
    report.add_argument("--max-clusters", type=int, default=500,
                        help="clusters listed (largest first; default 500)")
    report.set_defaults(handler=cmd_report)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 usage or input error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except CliError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except OSError as error:  # an output folder that is missing, a file name too long...
        where = f"{error.filename}: " if error.filename else ""
        print(f"{PROG}: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except (NearDuplicateIndexError, sqlite3.Error) as error:  # the index cannot be used
        print(f"{PROG}: error: index: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
