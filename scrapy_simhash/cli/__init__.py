"""``scrapy-simhash``: near-duplicates after the crawl, from the command line.

Commands: ``dedup`` (clean a feed export or a folder of pages), ``compare`` (explain one
decision), ``index stats`` / ``index query`` (look into a stored index) and ``report`` (an HTML
page of the duplicate clusters), one module each; :mod:`.main` holds the parser. Errors print
one line naming the file, line or field and exit with status 2. The engine defaults (bits,
distance, features...) are the library's: an option left out is not passed on, so the CLI
follows :class:`~scrapy_simhash.Fingerprinter`. :mod:`.records` reads and writes the records
(JSON lines, JSON, CSV, folders of pages); :mod:`.htmlreport` renders the report.
"""

from scrapy_simhash.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
