"""What every command shares: the error that ends a command, and building and running a
detector (in this process or in a pool of worker processes)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scrapy_simhash.index import coerce_option

PROG = "scrapy-simhash"
DEFAULT_CHUNK = 512
_MAX_WARNINGS = 20


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is, so that it stops as on Ctrl-C: temporary files
    removed, worker processes ended, a SQLite index left as it was."""


def raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


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


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM received inside are acted on at its end (as
    :class:`KeyboardInterrupt` or :class:`Terminated`), not where they arrive. Only in the main
    thread (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def defer(signum: int, frame: Any) -> None:
        received.append(signum)

    previous = {number: signal.signal(number, defer)
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if received:
        raise Terminated if received[0] == signal.SIGTERM else KeyboardInterrupt


@contextlib.contextmanager
def outputs_entered(*writers: Any) -> Iterator[list[Any]]:
    """The writers' streams (``with`` each writer), entered and exited with SIGINT and SIGTERM
    deferred: a temporary output file, once made, is always either put in place or removed,
    whenever a signal arrives (one that arrives meanwhile is acted on after)."""
    stack = contextlib.ExitStack()
    try:
        with signals_deferred():
            streams = [stack.enter_context(writer) for writer in writers]
        yield streams
    except BaseException:
        with signals_deferred():
            stack.__exit__(*sys.exc_info())  # (writers never suppress the exception)
        raise
    with signals_deferred():
        stack.__exit__(None, None, None)
        outputs_done.set()


class _Flag:
    """Whether the command's outputs are in place: a signal after that interrupts nothing (the
    run's work is done), so the command still ends with status 0."""

    def __init__(self) -> None:
        self.done = False

    def set(self) -> None:
        self.done = True

    def clear(self) -> None:
        self.done = False


outputs_done = _Flag()


@dataclass(frozen=True)
class ExtractionFailed:
    """In place of a signature: the extractor raised on this record's HTML (a custom
    ``--extractor``, say). The record is kept unfingerprinted, as the crawl keeps such a page."""

    cause: str


def sign_batch(detector: Any, kind: str, items: Sequence[Any]) -> list[Any]:
    """What a crawl computes for texts (``kind="text"``: :meth:`Detector.sign_text`) or for
    ``(html, url)`` pairs (``kind="html"``: :meth:`Detector.sign_html`): a ``Signed``
    (signature and evidence) each, :class:`ExtractionFailed` for a page whose extraction raised.

    SimHash signs a batch of texts at once (:meth:`Fingerprinter.fingerprint_many`, the same
    bits as one by one) with their evidence (:func:`text_evidence_many`, the same bytes);
    pages and other detectors are signed one by one.
    """
    if kind == "html":
        return [_guarded(detector.sign_html, html, None, url) for html, url in items]
    if detector.name != "simhash":
        return [detector.sign_text(text) for text in items]
    from scrapy_simhash.cli.textevidence import text_evidence_many
    from scrapy_simhash.detectors import Signed

    signatures = detector.fingerprinter.fingerprint_many(items)
    signed = [i for i, signature in enumerate(signatures) if signature is not None]
    evidence = iter(text_evidence_many([items[i] for i in signed]))
    return [
        Signed(None) if signature is None else Signed(signature, next(evidence))
        for signature in signatures
    ]


def _guarded(call: Callable[..., Any], *args: Any) -> Any:
    try:
        return call(*args)
    except Exception as error:
        return ExtractionFailed(f"{type(error).__name__}: {error}")

