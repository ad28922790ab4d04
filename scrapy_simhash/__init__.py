"""scrapy-simhash: drop near-duplicate pages during a Scrapy crawl."""
