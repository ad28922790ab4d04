"""Security: no unsafe deserialisation or code execution, parameterised SQL, confined Redis
keys, atomic report files, and pages that cannot make the plugin touch files or the network."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from scrapy_simhash.crawl.report import DuplicateReport
from scrapy_simhash.index import open_index

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_simhash"
SOURCES = sorted(PACKAGE.rglob("*.py"))

FORBIDDEN_MODULES = {"pickle", "cPickle", "_pickle", "marshal", "shelve", "dill", "cloudpickle",
                     "yaml", "jsonpickle", "subprocess", "telnetlib", "ftplib"}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "os.system", "os.popen",
                   "os.execv", "os.execl", "os.spawnl", "input", "yaml.load", "yaml.unsafe_load",
                   "pickle.loads", "pickle.load", "marshal.loads"}
# pickle crosses only the private pipes between a crawl and the worker processes it spawned
# (scrapy_simhash/workers), as multiprocessing's own pickles do: never data from a page, a file,
# an index or the network.
WORKERS = PACKAGE / "crawl" / "workers"
PICKLE_REVIEWED = {WORKERS / "child.py", WORKERS / "pool.py"}
PICKLE_NAMES = {"pickle", "pickle.loads", "pickle.load"}
SQL_WORDS = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|PRAGMA|WHERE|VALUES|ALTER)\b")
# What SQL text may interpolate: identifiers from validated namespaces, column lists, "?" lists,
# integer expressions of the layout, integer PRAGMA values. Values always go through "?".
SQL_INTERPOLATIONS = {
    "self._bands_table", "self._rows_table", "self._evidence_table", "clauses", "META_TABLE",
    "self.table", "table",
    "columns", "marks", "where", "key_expression(self.layout, table)",
    "-int(cache_size_mb * 1024)",
    # built from the namespace, which open_index checks against [A-Za-z_][A-Za-z0-9_]*
    "self.evidence_table", "self.removed_table",
}


def _parsed():
    for path in SOURCES:
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_scan_covers_the_whole_package():
    assert len(SOURCES) > 30 and PACKAGE / "index" / "sqlite.py" in SOURCES


def test_no_unsafe_modules_or_calls():
    found = []
    for path, tree in _parsed():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "").split(".")[0]]
            elif isinstance(node, ast.Call):
                names = []
                if ast.unparse(node.func) in FORBIDDEN_CALLS:
                    found.append(f"{path.name}:{node.lineno} {ast.unparse(node.func)}()")
                for keyword in node.keywords:
                    if keyword.arg == "shell" and ast.unparse(keyword.value) != "False":
                        found.append(f"{path.name}:{node.lineno} shell=...")
            else:
                continue
            found += [f"{path.name}:{node.lineno} import {n}" for n in names
                      if n in FORBIDDEN_MODULES]
    reviewed = {f"{path.name}:" for path in PICKLE_REVIEWED}
    found = [entry for entry in found
             if not (entry.startswith(tuple(reviewed))
                     and entry.split(" ", 1)[1].rstrip("()").removeprefix("import ")
                     in PICKLE_NAMES)]
    assert found == []


def test_pickle_is_only_read_from_the_workers_own_pipes():
    """Frames are unpickled in one place (child.decode_frame), from a worker's pipe only: the
    child's stdin (read_frame) and the crawl's buffer of a worker's stdout (pool.outReceived)."""
    child = (WORKERS / "child.py").read_text(encoding="utf-8")
    loads = [line.strip() for line in child.splitlines() if "pickle.load" in line]
    assert loads == ["return pickle.loads(payload, buffers=(raw,))"]
    for path in PICKLE_REVIEWED:
        source = path.read_text(encoding="utf-8")
        callers = [line.strip() for line in source.splitlines() if "decode_frame(" in line
                   and not line.lstrip().startswith(("def ", "from "))]
        assert callers, path
        assert all("self.buffer" in line or "payload, raw" in line for line in callers), callers
    pool = (WORKERS / "pool.py").read_text(encoding="utf-8")
    assert "pickle.load" not in pool


def test_sql_text_interpolates_only_reviewed_identifiers():
    """Every f-string that builds SQL interpolates names from the reviewed list; a new one fails
    here until it is reviewed (values must be "?" parameters, never formatted in)."""
    found = set()
    for path, tree in _parsed():
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
                if SQL_WORDS.search(text):
                    found |= {ast.unparse(v.value) for v in node.values
                              if isinstance(v, ast.FormattedValue)}
                    # % formatting or .format() on SQL would bypass this check: none allowed
            elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
                  and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)
                  and SQL_WORDS.search(node.left.value)):
                found.add(f"% formatting in {path.name}:{node.lineno}")
    assert found <= SQL_INTERPOLATIONS, found - SQL_INTERPOLATIONS


def _fingerprint(number: int) -> int:
    """Well-spread 64-bit fingerprints (no two within distance 3)."""
    return int.from_bytes(hashlib.blake2b(b"%d" % number, digest_size=8).digest(), "big")


HOSTILE_KEYS = ["'); DROP TABLE simhash_pages; --", '" OR 1=1 --', "\x00null", "k\nline",
                "键'\"`;", "%s %d ?", "*", "{tag}:*", "a" * 10_000]


@pytest.mark.parametrize("cache", [True, False])
def test_hostile_keys_round_trip_through_sqlite(tmp_path, cache):
    uri = f"sqlite:///{tmp_path / 'keys.db'}"
    with open_index(uri, bits=64, max_distance=3, cache=cache) as index:
        for number, key in enumerate(HOSTILE_KEYS):
            assert index.check_and_add(key, _fingerprint(number)) is None
    with open_index(uri, bits=64, max_distance=3, cache=cache) as index:
        assert len(index) == len(HOSTILE_KEYS)
        for number, key in enumerate(HOSTILE_KEYS):
            assert [m.key for m in index.query(_fingerprint(number))] == [key]


@pytest.mark.parametrize(
    "namespace",
    ["pages; DROP TABLE x", "a b", "x'--", "1pages", "", "é",
     "pages\n"],  # '$' would match before a final newline: the check uses fullmatch
)
def test_unsafe_namespaces_are_refused(tmp_path, namespace):
    with pytest.raises(ValueError, match="namespace"):
        open_index(f"sqlite:///{tmp_path / 'ns.db'}", namespace=namespace)


def test_redis_keys_stay_under_their_prefix(redis_server):
    redis = pytest.importorskip("redis")
    base = redis_server.url.rsplit("/", 1)[0] + "/7"  # a database of its own: every key is ours
    client = redis.Redis.from_url(base)
    client.flushdb()
    client.set("other:key", "untouched")
    uri = f"{base}?prefix=crawl1"
    with open_index(uri, bits=64, max_distance=3) as index:
        for number, key in enumerate(HOSTILE_KEYS):
            index.check_and_add(key, _fingerprint(number))
            index.query(_fingerprint(number))
            index.put_evidence(key, b"evidence")
        assert index.remove(HOSTILE_KEYS[0], _fingerprint(0))
    keys = [key.decode() for key in client.scan_iter("*")]
    assert client.get("other:key") == b"untouched"
    assert all(key.startswith("{crawl1:pages}:") for key in keys if key != "other:key"), keys
    for prefix in ("*", "a b", "x}y", "{", ""):
        with pytest.raises(ValueError, match="prefix"):
            open_index(f"{base}?prefix={quote(prefix)}", bits=64, max_distance=3)


def test_redis_prefix_with_a_trailing_newline_is_refused():
    from scrapy_simhash.index.redis import validate_prefix

    with pytest.raises(ValueError, match="prefix"):
        validate_prefix("crawl\n")


def test_duplicate_report_replaces_the_old_file_atomically(tmp_path):
    path = tmp_path / "dups.jsonl"
    path.write_text("previous crawl\n")
    report = DuplicateReport(path)
    report.open()
    report.write("page", "http://a/2", "http://a/1", 3)
    assert path.read_text() == "previous crawl\n"  # readers never see a half-written report
    report.close()
    assert json.loads(path.read_text())["url"] == "http://a/2"
    assert [p.name for p in tmp_path.iterdir()] == ["dups.jsonl"]  # no temporary file left
    assert (path.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_pages_cannot_make_the_plugin_touch_files_or_the_network(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-TOKEN-81\n")
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("audit_pages.py")), str(secret)],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )
    result = json.loads(done.stdout)
    assert result["pages"] > 40 and not result["leaked"]
    assert len(result["events"]) == 1 and result["events"][0].startswith("open "), result


@pytest.mark.parametrize("uri", ["memory://", "sqlite:///{tmp}/evidence.db"])
def test_hostile_keys_carry_evidence_and_are_removed_exactly(tmp_path, uri):
    uri = uri.format(tmp=tmp_path)
    with open_index(uri, bits=64, max_distance=3) as index:
        for number, key in enumerate(HOSTILE_KEYS):
            index.add(key, _fingerprint(number))
            index.put_evidence(key, key.encode()[:1024])
        assert index.get_evidence(HOSTILE_KEYS) == [key.encode()[:1024] for key in HOSTILE_KEYS]
        for number, key in enumerate(HOSTILE_KEYS[::2]):
            assert index.remove(key, _fingerprint(2 * number))
        kept = HOSTILE_KEYS[1::2]
        assert index.get_evidence(HOSTILE_KEYS[::2]) == [None] * len(HOSTILE_KEYS[::2])
        assert index.get_evidence(kept) == [key.encode()[:1024] for key in kept]
        assert len(index) == len(kept)
        for number, key in enumerate(HOSTILE_KEYS):
            expected = [key] if key in kept else []
            assert [m.key for m in index.query(_fingerprint(number))] == expected
