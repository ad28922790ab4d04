"""A custom extractor whose import, in a worker process, waits until the test opens a gate (the
file named by ``$SIMHASH_TEST_GATE``): a worker that takes as long to start as the test wants."""

from __future__ import annotations

import os
import time
from pathlib import Path

from scrapy_simhash.extract import extract_main_text as extract  # noqa: F401
from tests.crawl.workers.hostile_extractor import _in_worker

if _in_worker():
    gate = Path(os.environ["SIMHASH_TEST_GATE"])
    Path(f"{gate}.waiting").touch()
    deadline = time.monotonic() + 60
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
