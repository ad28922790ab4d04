"""The package's import contracts (``[tool.importlinter]`` in pyproject.toml) hold: the command
line over the crawl wing over the engine, and no Scrapy or Twisted in the engine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept():
    pytest.importorskip("importlinter")
    command = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("lint-imports is not installed next to this Python")
    done = subprocess.run([command, "--no-cache"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_worker_process_leaves_the_crawl_machinery_alone():
    """The worker child builds its detector from the settings module, not from the crawl's
    decision code (which would bring the reactor-side modules along)."""
    script = ("import sys; from scrapy_simhash.crawl.workers import child; "
              "from scrapy_simhash.crawl.settings import build_detector; "
              "print(*sorted(m for m in sys.modules if m.startswith('scrapy_simhash.crawl')))")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    loaded = done.stdout.split()
    assert "scrapy_simhash.crawl.dedup" not in loaded
    assert "scrapy_simhash.crawl.workers.pool" not in loaded
