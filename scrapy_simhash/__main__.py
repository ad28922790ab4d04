"""``python -m scrapy_simhash``: the ``scrapy-simhash`` command line."""

import sys

from scrapy_simhash.cli import main

if __name__ == "__main__":  # worker processes import this module too: run only when executed
    sys.exit(main())
