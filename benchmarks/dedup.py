"""Offline dedup at scale: ``scrapy-simhash dedup`` beside the PyPI ``simhash`` package and
datasketch's MinHashLSH on the same records with planted near-duplicates.

Records are built from the corpora's ground-truth main texts (never copied into the repo): each
base record joins ``--paragraphs`` paragraphs drawn at random (seeded) from the whole paragraph
pool, so base records are distinct; ``--dup-rate`` of the records are planted copies of an
earlier record with about ``--edit-rate`` of their words (characters for Chinese) substituted,
deleted or inserted. Two base records never share more than one paragraph. Each method runs in
its own subprocess (peak RSS: the kernel's VmHWM of that process; with ``--jobs 2`` the worker
process, which holds only the fingerprinter, is not counted) and reads the same file:

- ours: the CLI's engine in-process (``cli.main(["dedup", ...])``, output files written),
  library defaults, ``--jobs 1`` and ``--jobs 2`` (one fingerprinting worker beside the process
  that reads, queries the index and writes); it judges as a crawl does: a candidate within the
  threshold is dropped only when the evidence (shared word 3-grams) confirms it, and a record of
  fewer than 300 words, as an item's text, only when its 3-grams are nearly all shared (Jaccard
  0.9), which a 2% edit rate (each edit changing up to three 3-grams) often falls below;
- simhash 2.1.2: ``Simhash(text)`` + ``SimhashIndex(k=3)`` ``get_near_dups``/``add`` loop
  (its bit array is widened to int64, one line, because numpy 2 overflows its uint8 times a
  feature weight above 255: the same workaround as benchmarks/fingerprint.py);
- datasketch: ``MinHash(num_perm=128)`` over word 3-shingles + ``MinHashLSH(threshold=0.8)``
  ``query``/``insert`` loop.

A flagged record is a true positive when it was planted and the record it was matched to belongs
to its cluster. Figures are medians over ``--repeats`` runs (methods take turns).

    python benchmarks/dedup.py [--records 100000] [--repeats 1] [--methods ours,simhash]

The default (100,000 records, one run of each method) takes about two and a half minutes
here, almost all of it the two peers; ``--repeats 3`` gives medians in about seven.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

METHODS = ("ours", "ours-jobs2", "simhash", "datasketch")
_CJK = re.compile(r"[\u3400-\u9fff]")


# ----------------------------------------------------------------------------- records


def paragraph_pool() -> list[str]:
    """Paragraphs of the corpora's ground-truth texts, long enough to carry content."""
    from corpora import iter_pages

    pool = []
    for page in iter_pages(with_truth_text=True):
        for paragraph in page.truth_text.split("\n"):
            paragraph = " ".join(paragraph.split())
            if len(paragraph) >= (25 if _CJK.search(paragraph) else 60):
                pool.append(paragraph)
    return sorted(set(pool))


def edit(text: str, rate: float, rng: random.Random, vocabulary: list[str]) -> str:
    """``text`` with about ``rate`` of its words (or Chinese characters) edited."""
    chinese = len(_CJK.findall(text)) > len(text) / 3
    units = list(text) if chinese else text.split(" ")
    for _ in range(max(1, round(rate * len(units)))):
        where = rng.randrange(len(units))
        action = rng.random()
        if action < 0.5:
            units[where] = rng.choice(vocabulary) if not chinese else rng.choice(text)
        elif action < 0.75 and len(units) > 1:
            del units[where]
        else:
            units.insert(where, rng.choice(vocabulary) if not chinese else rng.choice(text))
    return ("" if chinese else " ").join(units)


def build_records(path: Path, count: int, paragraphs: int, dup_rate: float, edit_rate: float,
                  seed: int) -> dict[str, str]:
    """Write ``count`` records as JSON lines; returns id -> cluster id (its original's id)."""
    rng = random.Random(seed)
    pool = paragraph_pool()
    vocabulary = sorted({w for p in pool[:2000] for w in p.split(" ") if w.isalpha()})
    clusters: dict[str, str] = {}
    bases: list[tuple[str, str]] = []
    used_pairs: set[tuple[int, int]] = set()  # two base records share at most one paragraph
    with path.open("w", encoding="utf-8") as stream:
        for number in range(1, count + 1):
            key = f"r{number:07d}"
            if bases and rng.random() < dup_rate:
                original, text = rng.choice(bases)
                text = edit(text, edit_rate, rng, vocabulary)
                clusters[key] = original
            else:
                while True:
                    chosen = rng.sample(range(len(pool)), paragraphs)
                    pairs = {(a, b) for a in chosen for b in chosen if a < b}
                    if not pairs & used_pairs:
                        break
                used_pairs |= pairs
                text = "\n".join(pool[i] for i in chosen)
                clusters[key] = key
                bases.append((key, text))
            stream.write(json.dumps({"id": key, "text": text}, ensure_ascii=False) + "\n")
    return clusters


# ----------------------------------------------------------------------------- methods


def run_ours(data: Path, out: Path, jobs: int) -> list[tuple[str, list[str]]]:
    from scrapy_simhash.cli import main

    dups = out / "dups.jsonl"
    code = main(["dedup", str(data), "--field", "text", "--id-field", "id", "--out",
                 str(out / "kept.jsonl"), "--dups", str(dups), "--quiet", "--jobs", str(jobs)])
    if code:
        raise SystemExit(code)
    rows = (json.loads(line) for line in dups.read_text("utf-8").splitlines())
    return [(row["id"], [row["duplicate_of"]]) for row in rows]


def run_simhash(data: Path) -> list[tuple[str, list[str]]]:
    import logging

    import numpy as np
    from simhash import Simhash, SimhashIndex

    class PeerSimhash(Simhash):
        def _bitarray_from_bytes(self, b: bytes) -> np.ndarray:
            return super()._bitarray_from_bytes(b).astype(np.int64)

    logging.getLogger().setLevel(logging.ERROR)  # "Big bucket found" warnings
    index = SimhashIndex([], k=3)
    flagged = []
    with data.open(encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            signature = PeerSimhash(row["text"])
            near = index.get_near_dups(signature)
            if near:
                flagged.append((row["id"], near))
            else:
                index.add(row["id"], signature)
    return flagged


_PEER_TOKEN = re.compile(r"[\u3400-\u9fff]|[^\W_]+")


def run_datasketch(data: Path) -> list[tuple[str, list[str]]]:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    flagged = []
    with data.open(encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            tokens = _PEER_TOKEN.findall(row["text"].lower())
            shingles = {" ".join(tokens[i : i + 3]) for i in range(max(1, len(tokens) - 2))}
            signature = MinHash(num_perm=128)
            signature.update_batch([s.encode("utf-8") for s in shingles])
            near = lsh.query(signature)
            if near:
                flagged.append((row["id"], near))
            else:
                lsh.insert(row["id"], signature)
    return flagged


def worker(method: str, data: Path, out: Path) -> None:
    """Run one method; print seconds, peak RSS and the flagged records as one JSON line."""
    start = time.perf_counter()
    if method.startswith("ours"):
        flagged = run_ours(data, out, 2 if method == "ours-jobs2" else 1)
    elif method == "simhash":
        flagged = run_simhash(data)
    else:
        flagged = run_datasketch(data)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "rss_kb": peak_rss_kb(), "flagged": flagged}))


def peak_rss_kb() -> int:
    """This process's peak resident memory. ``ru_maxrss`` would start at the launching
    process's peak (Linux keeps it across exec), so read the kernel's per-image ``VmHWM``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


# ----------------------------------------------------------------------------- the table


def scores(flagged: list[tuple[str, list[str]]], clusters: dict[str, str]) -> tuple[float, ...]:
    planted = sum(1 for key, original in clusters.items() if key != original)
    correct = sum(
        1 for key, matches in flagged
        if clusters[key] != key and any(clusters.get(m) == clusters[key] for m in matches)
    )
    precision = correct / len(flagged) if flagged else 1.0
    recall = correct / planted if planted else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--paragraphs", type=int, default=3)
    parser.add_argument("--dup-rate", type=float, default=0.1)
    parser.add_argument("--edit-rate", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--worker", choices=METHODS, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.data, args.out)
        return

    methods = [m for m in args.methods.split(",") if m]
    with tempfile.TemporaryDirectory(prefix="dedup-bench-") as folder:
        data = Path(folder) / "records.jsonl"
        clusters = build_records(data, args.records, args.paragraphs, args.dup_rate,
                                 args.edit_rate, args.seed)
        megabytes = data.stat().st_size / 1e6
        planted = sum(1 for key, original in clusters.items() if key != original)
        print(f"{args.records} records ({megabytes:.1f} MB JSON lines), {planted} planted "
              f"near-duplicates with {args.edit_rate:.0%} edits; median of {args.repeats}")
        runs: dict[str, list[dict]] = {m: [] for m in methods}
        for _ in range(args.repeats):
            for method in methods:
                done = subprocess.run(
                    [sys.executable, __file__, "--worker", method, "--data", str(data),
                     "--out", folder], capture_output=True, text=True, check=True,
                )
                runs[method].append(json.loads(done.stdout.strip().splitlines()[-1]))
    peer = statistics.median(r["seconds"] for r in runs.get("simhash", [])) if (
        "simhash" in runs) else None
    print(f"{'method':40} {'records/s':>10} {'x simhash':>9} {'peak MB':>8} {'precision':>9} "
          f"{'recall':>7} {'F1':>6}")
    names = {
        "ours": "scrapy-simhash dedup (defaults, 1 job)",
        "ours-jobs2": "scrapy-simhash dedup (defaults, 2 jobs)",
        "simhash": "simhash 2.1.2 Simhash+SimhashIndex k=3",
        "datasketch": "datasketch MinHashLSH 0.8, 128 perm",
    }
    for method, results in runs.items():
        seconds = statistics.median(r["seconds"] for r in results)
        rss = statistics.median(r["rss_kb"] for r in results) / 1024
        precision, recall, f1 = scores(results[0]["flagged"], clusters)
        ratio = f"{peer / seconds:9.1f}" if peer else f"{'-':>9}"
        print(f"{names[method]:40} {args.records / seconds:10.0f} {ratio} {rss:8.0f} "
              f"{precision:9.3f} {recall:7.3f} {f1:6.3f}")


if __name__ == "__main__":
    main()
