"""Settings of the distributed example: every process runs ``scrapy crawl pages`` with these.

Per run, the tests pass ``-s REDIS_URL=...``, ``-s SIMHASH_INDEX_URI=...`` and the key names.
"""

BOT_NAME = "distcrawl"
SPIDER_MODULES = ["distcrawl.spiders"]

# scrapy-redis: one request queue and one request dupefilter shared by every process.
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
SCHEDULER_PERSIST = True  # a process that finishes first must not clear the others' queue
REDIS_URL = "redis://127.0.0.1:6379/0"
MAX_IDLE_TIME_BEFORE_CLOSE = 2  # seconds with an empty start-URL list, then the process stops

# scrapy-simhash: drop near-duplicate pages before the callback, against one shared Redis index.
DOWNLOADER_MIDDLEWARES = {"scrapy_simhash.middleware.SimhashDownloaderMiddleware": 540}
SIMHASH_INDEX_URI = "redis://127.0.0.1:6379/0?prefix=distcrawl"
SIMHASH_ON_INDEX_ERROR = "keep"  # Redis lost mid-crawl: keep the page (counted in the stats)

ROBOTSTXT_OBEY = False
TELNETCONSOLE_ENABLED = False
CONCURRENT_REQUESTS = 8
RETRY_TIMES = 1
LOG_LEVEL = "INFO"

EXTENSIONS = {"distcrawl.extensions.StatsDump": 500}  # STATS_DUMP_FILE=... (set by the tests)
