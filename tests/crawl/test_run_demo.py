"""The README's main command: ``make demo`` runs ``example_project/run_demo.py``."""

from __future__ import annotations

import shutil
import subprocess
import sys

from crawling import EXAMPLE_PROJECT
from demosite.site import EXPECTED


def run_demo(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """``run_demo.py`` in a copy of the example project (its output folder is the copy's)."""
    project = tmp_path / "example_project"
    shutil.copytree(EXAMPLE_PROJECT, project, ignore=shutil.ignore_patterns("output", ".scrapy"))
    return subprocess.run([sys.executable, "run_demo.py", *args], cwd=project,
                          capture_output=True, text=True, timeout=180)


def test_the_demo_crawls_the_site_and_lists_what_it_dropped(tmp_path):
    done = run_demo(tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    dropped = sum(outcome == "dropped" for outcome in EXPECTED.values())
    kept = sum(outcome == "kept" for outcome in EXPECTED.values())
    assert f"{dropped} near-duplicates dropped (from output/duplicates.jsonl)" in done.stdout
    assert done.stdout.count("      duplicates http://127.0.0.1:") == dropped
    assert (f"Simhash: pages {dropped + kept} checked, {dropped} dropped as near-duplicates, "
            f"{kept} kept") in done.stderr
    assert (tmp_path / "example_project" / "output" / "items.jsonl").is_file()


def test_a_demo_crawl_that_fails_does_not_list_an_earlier_report(tmp_path):
    earlier = run_demo(tmp_path)
    assert earlier.returncode == 0, earlier.stderr[-3000:]
    failed = subprocess.run(
        [sys.executable, "run_demo.py", "-s", "SIMHASH_ON_INDEX_ERROR=ignore"],
        cwd=tmp_path / "example_project", capture_output=True, text=True, timeout=180,
    )
    assert failed.returncode != 0
    assert "SIMHASH_ON_INDEX_ERROR='ignore' is invalid" in failed.stderr
    assert "The crawl failed (exit status" in failed.stdout
    assert "near-duplicates dropped" not in failed.stdout
