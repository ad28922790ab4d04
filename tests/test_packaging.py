"""What the built wheel carries, read from pyproject.toml's package data settings: ``py.typed``
goes in, the C sources Cython generates stay out, and every glob names files that exist."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def setuptools_config() -> dict:
    with (REPO / "pyproject.toml").open("rb") as stream:
        return tomllib.load(stream)["tool"]["setuptools"]


def test_the_type_marker_ships_and_every_package_data_glob_matches_a_file():
    package_data = setuptools_config()["package-data"]
    assert "py.typed" in package_data["scrapy_simhash"]
    for package, globs in package_data.items():
        folder = REPO / package.replace(".", "/")
        for glob in globs:
            assert list(folder.glob(glob)), f"{package}: {glob!r} matches no file"


def test_generated_c_sources_stay_out_of_the_wheel():
    excluded = setuptools_config()["exclude-package-data"]
    assert "*.c" in excluded["*"]
    assert not (REPO / "MANIFEST.in").exists()  # nothing that would add them back
