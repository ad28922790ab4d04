"""``scrapy-simhash dedup``: clean a feed export or a folder of pages, keeping the first page
of each cluster of near-duplicates (optionally against a stored index)."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scrapy_simhash.cli.common import (
    _MAX_WARNINGS,
    DEFAULT_CHUNK,
    PROG,
    CliError,
    ExtractionFailed,
    build_detector,
    detector_options,
    outputs_entered,
    sign_batch,
)
from scrapy_simhash.cli.keeper import ClusterKeeper
from scrapy_simhash.cli.records import (
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
from scrapy_simhash.cli.workers import SigningWorkers
from scrapy_simhash.index.base import mask_password


@dataclass
class DedupSummary:
    """What ``dedup`` did."""

    records: int = 0
    kept: int = 0
    unconfirmed: int = 0  # kept beside a near record whose evidence said the content differs
    dropped: int = 0
    unfingerprinted: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def line(self) -> str:
        rate = self.records / self.seconds if self.seconds > 0 else 0.0
        return (
            f"records {self.records}, kept {self.kept} ({self.unconfirmed} unconfirmed), "
            f"dropped {self.dropped}, "
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
    pool = SigningWorkers(_workers(job), job.algorithm, job.options) if job.jobs > 1 else None
    bar = _progress_bar(reader, job.progress)
    finished = False
    try:
        prepared = (_prepare(chunk, reader, job) for chunk in _chunked(reader, job.chunk_size))
        for records, keys, signatures in _signed(prepared, detector, pool, job):
            signatures = _failures_noted(records, signatures, reader, job)
            unconfirmed = keeper.unconfirmed
            decisions = keeper.decide(keys, signatures, [_url(record) for record in records])
            summary.unconfirmed += keeper.unconfirmed - unconfirmed
            for record, key, signature, match in zip(
                records, keys, signatures, decisions, strict=True
            ):
                summary.records += 1
                if match is None:
                    summary.kept += 1
                    summary.unfingerprinted += signature is None or signature.signature is None
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
            pool.close()
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
        return records, keys, [sig for future in futures for sig in future.result()]

    for records, keys, kind, items in prepared:
        futures = [
            pool.submit(kind, items[start : start + slice_size])
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
    with outputs_entered(kept_file, dups_file) as (kept_stream, dups_stream):
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
    """The file of a ``sqlite:///path`` index URI (percent-decoded, as the index reads it);
    None for other schemes, in-memory databases and URIs that do not parse (the index says
    why when it is opened)."""
    from scrapy_simhash.index.uri import parse_index_uri

    try:
        path = parse_index_uri(uri).sqlite_path
    except ValueError:
        return None
    return str(path) if path else None


class _NoWriter:
    def __enter__(self) -> None:
        return None

    def prepare(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _maybe_writer(path: str | None) -> Any:
    return AtomicWriter(path) if path else _NoWriter()
