"""Index URIs: one parser, one scheme table, errors that name the option at fault."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_simhash.index import SCHEMES, open_index
from scrapy_simhash.index import base as base_module
from scrapy_simhash.index.uri import (
    CLASS_SCHEME,
    IndexOptionError,
    literal_sqlite_path,
    mask_password,
    parse_index_uri,
    sqlite_uri,
)


@pytest.mark.parametrize(
    ("uri", "path"),
    [("sqlite:///relative.db", Path("relative.db")),
     ("sqlite:////absolute/index.db", Path("/absolute/index.db")),
     ("sqlite://", None),
     ("sqlite:///", None),
     ("sqlite:///my%20index.db", Path("my index.db")),  # percent-decoded
     ("sqlite:///my index.db", Path("my index.db")),  # a space may be written as it is
     ("sqlite:///what%3F.db?commit_every=5", Path("what?.db")),  # a "?" in a name: %3F
     ("sqlite:///100%25.db", Path("100%.db")),
     ("sqlite:///run#2.db", Path("run#2.db")),  # "#" is no fragment: part of the name
     ("sqlite:///%E7%B4%A2%E5%BC%95.db", Path("索引.db"))],
)
def test_an_sqlite_path_runs_to_the_query_string_percent_decoded(uri, path):
    parsed = parse_index_uri(uri)
    assert (parsed.scheme, parsed.sqlite_path, parsed.target) == ("sqlite", path, path)


@pytest.mark.parametrize(
    "name", ["plain.db", "a#b.db", "x %20 y.db", "what?.db", "100%.db", "索引 #1?.db"]
)
@pytest.mark.parametrize("folder", ["", "/tmp/some dir/"])
def test_sqlite_uri_writes_any_path_so_that_it_reads_back(folder, name):
    path = Path(folder + name)
    uri = sqlite_uri(path)
    assert uri.startswith("sqlite:///")
    assert parse_index_uri(uri).sqlite_path == path
    assert literal_sqlite_path(f"sqlite:///{folder}{name}") == path  # as a user types it


def test_query_options_are_converted_once_and_a_prefix_kept_as_written():
    parsed = parse_index_uri("sqlite:///x.db?commit_every=25&cache=false&commit_interval=0.5")
    assert dict(parsed.options) == {"commit_every": 25, "cache": False, "commit_interval": 0.5}
    redis = parse_index_uri("redis://:pw@h:1/0?prefix=0601&batch_size=7&socket_timeout=3&bits=64")
    assert dict(redis.options) == {"prefix": "0601", "batch_size": 7, "bits": 64}
    assert redis.target == "redis://:pw@h:1/0?socket_timeout=3"  # redis-py's options stay
    assert "pw" not in repr(redis) and "***" in repr(redis)


def test_dotted_paths_and_schemes_come_from_one_table():
    assert parse_index_uri("memory://").backend == SCHEMES["memory"]
    assert parse_index_uri("MEMORY://").scheme == "memory"
    dotted = parse_index_uri("mypkg.mymod.MyIndex?flavour=x")
    assert (dotted.scheme, dotted.target, dict(dotted.options)) == (
        CLASS_SCHEME, "mypkg.mymod.MyIndex", {"flavour": "x"}
    )
    assert dotted.backend == "mypkg.mymod.MyIndex"


@pytest.mark.parametrize(
    ("uri", "given", "name"),
    [("ftp://host/x", {}, "uri"),
     ("not a uri", {}, "uri"),
     ("no_such_module.Index", {}, "uri"),
     ("sqlite:///x.db?namespace=items", {}, "namespace"),
     ("redis://h/0?params=x", {}, "params"),
     ("sqlite:///what?.db", {}, ".db"),  # a "?" of the file name, unescaped
     ("memory://?bits=64", {"bits": 128}, "bits"),
     ("memory://?max_distance=3", {"max_distance": 4}, "max_distance"),
     ("memory://?tables=manku", {"tables": "auto"}, "tables")],
)
def test_errors_name_the_option_at_fault(uri, given, name):
    with pytest.raises(IndexOptionError) as raised:
        open_index(uri, **given)
    assert raised.value.name == name
    assert isinstance(raised.value, ValueError)


def test_passwords_are_masked_in_one_place():
    assert base_module.mask_password is mask_password
    assert mask_password("redis://u:secret@h:1/0?password=x") == "redis://u:***@h:1/0?password=***"
    assert "secret" not in mask_password("redis://u:secret@h:notaport/0")


def test_the_storage_side_loads_classes_without_scrapy(tmp_path):
    """Dotted paths are imported with importlib: opening indexes never imports Scrapy/Twisted."""
    code = (
        "import sys\n"
        "from scrapy_simhash.index import open_index\n"
        "open_index('scrapy_simhash.index.memory.MemoryIndex').close()\n"
        f"open_index({sqlite_uri(tmp_path / 'x #1.db')!r}).close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "x #1.db").is_file()


def test_a_bare_file_name_is_told_how_to_name_an_sqlite_file():
    from scrapy_simhash.index import IndexOptionError, open_index

    with pytest.raises(IndexOptionError, match=r"for an SQLite file write sqlite:///seen\.db"):
        open_index("seen.db")
