"""_probe: the compiled single-query probe finds the positions the numpy version finds.

Each test runs both on the same sealed runs: the default 128-bit layout and a 64-bit probing
one, random fingerprints with near-duplicates planted, a hot bucket, and the wider key and
offset types the kernel also accepts.
"""

from __future__ import annotations

import dataclasses
import random
from unittest import mock

import numpy as np
import pytest
from speedups import compiled_module, needs, require_built

from scrapy_simhash.index import MemoryIndex, make_layout
from scrapy_simhash.index import memory as memory_module
from scrapy_simhash.index.memory import FingerprintTables

_probe = compiled_module("scrapy_simhash.index._probe")
needs_module = needs(_probe)


def test_compiled_module_is_built():
    require_built(_probe, "scrapy_simhash.index._probe", "the numpy probe")
    assert memory_module._compiled_run_candidates is _probe.run_candidates


def _engine(bits: int, k: int, fingerprints: list[int]) -> FingerprintTables:
    engine = FingerprintTables(make_layout(bits, k), buffer_size=256, fanout=3)
    for fingerprint in fingerprints:
        engine.append(fingerprint)
    engine.seal()
    return engine


def _near(rng: random.Random, fingerprint: int, bits: int, flips: int) -> int:
    for bit in rng.sample(range(bits), flips):
        fingerprint ^= 1 << bit
    return fingerprint


def _compiled(engine: FingerprintTables, run, probes: np.ndarray) -> np.ndarray:
    return _probe.run_candidates(
        run.keys, run.directory, run.table_base, run.table_shift, probes,
        int(engine._key_mask), int(engine._key_shift),
    )


@needs_module
@pytest.mark.parametrize(("bits", "k"), [(128, 16), (64, 6)])
def test_same_positions_as_numpy_on_every_run(bits, k):
    rng = random.Random(bits + k)
    stored = [rng.getrandbits(bits) for _ in range(3000)]
    engine = _engine(bits, k, stored)
    runs = [run for run in engine._levels if run is not None]
    assert runs
    queries = [_near(rng, rng.choice(stored), bits, rng.randint(0, k + 2)) for _ in range(150)]
    queries += [rng.getrandbits(bits) for _ in range(50)]
    found = 0
    for query in queries:
        probes = engine._query_probes(query)
        for run in runs:
            compiled = _compiled(engine, run, probes)
            assert compiled.dtype == np.int64
            assert compiled.tolist() == engine._run_candidates(run, probes)[0].tolist()
            found += compiled.size
    assert found > len(queries)  # near-duplicates were found, not only empty answers


@needs_module
def test_same_positions_with_wide_keys_and_offsets_and_a_hot_bucket():
    hot = [(row << 100) for row in range(600)]  # the low tables' keys are all zero
    rng = random.Random(7)
    engine = _engine(128, 16, hot + [rng.getrandbits(128) for _ in range(600)])
    for run in (run for run in engine._levels if run is not None):
        wide = dataclasses.replace(
            run, keys=run.keys.astype(np.uint64), directory=run.directory.astype(np.int64)
        )
        for query in (0, hot[5], rng.getrandbits(128)):
            probes = engine._query_probes(query)
            expected = engine._run_candidates(run, probes)[0].tolist()
            assert _compiled(engine, run, probes).tolist() == expected
            assert _compiled(engine, wide, probes).tolist() == expected
    assert engine.search(0, 16)[:1] == [(0, 0)]


def test_single_queries_answer_alike_with_and_without_the_module():
    rng = random.Random(11)
    index = MemoryIndex(bits=128, max_distance=16, buffer_size=128)
    stored = [rng.getrandbits(128) for _ in range(2000)]
    for n, fingerprint in enumerate(stored):
        index.add(str(n), fingerprint)
    queries = [_near(rng, rng.choice(stored), 128, rng.randint(0, 20)) for _ in range(100)]
    answers = [index.query(query) for query in queries]
    with mock.patch.object(memory_module, "_compiled_run_candidates", None):
        assert [index.query(query) for query in queries] == answers
    assert index.query_many(queries) == answers
    assert sum(bool(answer) for answer in answers) > 50
