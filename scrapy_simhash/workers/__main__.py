"""``python -m scrapy_simhash.workers``: one worker process (see :mod:`.child`)."""

import sys

from scrapy_simhash.workers.child import main

sys.exit(main())
