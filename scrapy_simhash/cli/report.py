"""``scrapy-simhash report``: an HTML page of the duplicate clusters of a dedup run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrapy_simhash.cli.common import CliError, outputs_entered
from scrapy_simhash.cli.dedup import _check_outputs
from scrapy_simhash.cli.records import (
    STDIO,
    AtomicWriter,
)


def cmd_report(args: argparse.Namespace) -> int:
    from scrapy_simhash.cli import htmlreport

    try:  # the histogram's; checked first, so a missing extra costs no work and no file
        import matplotlib  # noqa: F401
    except ImportError:
        raise CliError(
            "report draws its histogram with matplotlib, which is not installed: "
            "pip install matplotlib (the package's 'cli' extra)"
        ) from None

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
    with outputs_entered(AtomicWriter(args.html)) as (stream,):
        stream.write(page)
    clusters = len({row.duplicate_of for row in rows})  # one cluster per kept record
    to_stdout = args.html == STDIO
    print(f"{'<stdout>' if to_stdout else args.html}: {len(rows)} duplicates in {clusters} "
          "clusters", file=sys.stderr if to_stdout else sys.stdout)
    return 0
