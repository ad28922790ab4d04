"""``python -m scrapy_simhash.crawl.workers``: one worker process (see :mod:`.child`)."""

import sys

from scrapy_simhash.crawl.workers.child import main

sys.exit(main())
