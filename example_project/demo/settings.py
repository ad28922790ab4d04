"""Settings of the example project: scrapy-simhash enabled with one line, the rest default."""

BOT_NAME = "demo"
SPIDER_MODULES = ["demo.spiders"]
NEWSPIDER_MODULE = "demo.spiders"

# The one line that enables near-duplicate detection (middleware + pipeline, default settings).
ADDONS = {"scrapy_simhash.Addon": 0}

# Where the dropped duplicates are listed (JSON lines: kind, url, duplicate_of, distance).
SIMHASH_REPORT_FILE = "output/duplicates.jsonl"
# The demo lists every duplicate it downloads and drops; learned URL rules would skip some of
# those downloads instead, depending on the order the pages come in.
SIMHASH_URL_RULES = False

# The demo site runs on loopback; be quick and polite.
ROBOTSTXT_OBEY = False
CONCURRENT_REQUESTS = 8
DOWNLOAD_DELAY = 0
RETRY_TIMES = 1
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"

# Dump the final crawl stats to a JSON file (see demo/extensions.py); used by the tests.
EXTENSIONS = {"demo.extensions.StatsDump": 500}
STATS_DUMP_FILE = "output/stats.json"
