"""Fixtures of the scrapy-redis tests: a real redis-server (tests/redisfixture.py)."""

from redisfixture import redis_prefix, redis_server, redis_url  # noqa: F401
