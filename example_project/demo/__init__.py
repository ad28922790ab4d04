"""The example Scrapy project: crawls the demo site with near-duplicate detection enabled."""
