"""Index test fixtures: a real redis-server for the Redis backend (see tests/redisfixture.py)."""

from redisfixture import redis_prefix, redis_server, redis_url  # noqa: F401
