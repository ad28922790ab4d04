"""The ``scrapy-simhash`` argument parser and entry point: one sub-command per module."""

from __future__ import annotations

import argparse
import signal
import sqlite3
import sys
import threading
from collections.abc import Sequence

from scrapy_simhash.cli.common import (
    DEFAULT_CHUNK,
    PROG,
    CliError,
    Terminated,
    outputs_done,
    raise_terminated,
)
from scrapy_simhash.cli.compare import cmd_compare
from scrapy_simhash.cli.dedup import cmd_dedup
from scrapy_simhash.cli.index import cmd_index_query, cmd_index_stats
from scrapy_simhash.cli.report import cmd_report
from scrapy_simhash.index import NearDuplicateIndexError


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
    compare.add_argument("--show", action="store_true",
                         help="print each page's main text, and for HTML the content beside "
                              "it and its own comments (what the evidence compares)")
    compare.add_argument("--url-a", help="URL of the first page (for URL-aware extractors)")
    compare.add_argument("--url-b", help="URL of the second page")
    compare.add_argument("--encoding-a", metavar="CHARSET",
                         help="charset the first page was served with (its Content-Type's), "
                              "when the file does not say it")
    compare.add_argument("--encoding-b", metavar="CHARSET", help="the same, second page")
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
    """Run the command line; returns the exit status: 0 done, 1 its output closed early
    (a broken pipe), 2 usage or input error, 130 interrupted (SIGINT), 143 terminated
    (SIGTERM)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, raise_terminated) if in_main_thread else None
    status = None
    outputs_done.clear()
    try:
        status = _run(args)
        return status
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
            if argv is None and status is not None:
                # The program (argv not given): its run is over, its outputs are in place and
                # its status is known; a signal now would only turn that status into a
                # traceback or a death by the signal while the interpreter exits.
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _run(args: argparse.Namespace) -> int:
    """The command's exit status; every error one line on stderr, never a traceback."""
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
    except RecursionError:  # a reader that missed a deeply nested value
        print(f"{PROG}: error: input nested too deeply to read", file=sys.stderr)
        return 2
    except MemoryError:  # a single value too large to hold (a line of gigabytes, say)
        print(f"{PROG}: error: out of memory reading the input", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)
    except Exception as error:
        # A signal raised inside a library that turned it into an error of its own (numpy
        # does, in a comparison): the run was interrupted all the same.
        interrupt = _interrupt_behind(error)
        if interrupt is None:
            raise
        return _interrupted(interrupt)


def _interrupted(interrupt: KeyboardInterrupt) -> int:
    """SIGINT (130) or SIGTERM (143, :class:`Terminated`); 0 when the outputs were in place
    already (the run was done)."""
    if outputs_done.done:
        return 0
    terminated = isinstance(interrupt, Terminated)
    print(f"{PROG}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return 143 if terminated else 130


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The SIGINT or SIGTERM (:class:`Terminated`) that ``error`` was raised while handling."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


if __name__ == "__main__":
    sys.exit(main())
