"""A tiny Scrapy project for distributed crawls: scrapy-redis queue + scrapy-simhash Redis index.

It is the README's "several crawl processes, one queue, one index" example, run by the tests:
``site.py`` serves near-duplicate clusters on 127.0.0.1, ``spiders.py`` has a ``RedisSpider``
fed from a Redis list, ``settings.py`` wires scrapy-redis and scrapy-simhash together.
"""
