"""Access to the evaluation corpora (real third-party pages with ground-truth main text).

The pages are never copied into this repository: they are read from the folder named by the
``SIMHASH_CORPORA`` environment variable, by default ``../shared/corpora`` (relative to the
working directory, then to the checkout). Tests and benchmarks use :func:`require_corpora_dir`,
which tells them to skip with a reason, or fails when ``SIMHASH_REQUIRE_CORPORA=1``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ENV_DIR = "SIMHASH_CORPORA"
ENV_REQUIRE = "SIMHASH_REQUIRE_CORPORA"

CHINESE = "zh"


class CorporaMissing(RuntimeError):
    """Raised when the corpora folder is absent (see :func:`require_corpora_dir`)."""


def corpora_dir() -> Path | None:
    """The corpora folder, or None when it cannot be found."""
    configured = os.environ.get(ENV_DIR)
    candidates = (
        [Path(configured)]
        if configured
        else [
            Path.cwd() / ".." / "shared" / "corpora",
            Path(__file__).resolve().parents[2] / "shared" / "corpora",
        ]
    )
    for candidate in candidates:
        if candidate.is_dir():
            return candidate.resolve()
    return None


def corpora_required() -> bool:
    return os.environ.get(ENV_REQUIRE, "") not in ("", "0", "false", "no")


def require_corpora_dir() -> Path:
    """The corpora folder; raises :class:`CorporaMissing` with a reason when it is absent."""
    found = corpora_dir()
    if found is None:
        where = os.environ.get(ENV_DIR) or "../shared/corpora"
        raise CorporaMissing(f"corpora not found at {where} (set {ENV_DIR} to their folder)")
    return found


@dataclass(frozen=True)
class CorpusPage:
    """One page of a corpus source: its HTML file and, where the source has it, ground truth."""

    source: str
    id: str
    lang: str
    html_path: Path
    meta: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def html(self) -> bytes:
        return self.html_path.read_bytes()

    @property
    def encoding(self) -> str | None:
        return self.meta.get("encoding")

    @property
    def url(self) -> str | None:
        return self.meta.get("url")

    @property
    def truth_path(self) -> Path | None:
        path = self.html_path.with_suffix(".txt")
        return path if path.is_file() else None

    @property
    def truth_text(self) -> str | None:
        """Ground-truth main text (full text), or None for sources that have none."""
        path = self.truth_path
        return path.read_text(encoding="utf-8") if path else None

    @property
    def truth_snippets(self) -> dict | None:
        """trafilatura-eval's must/must-not snippets (``with`` / ``without``), if any."""
        path = self.html_path.with_suffix(".gt.json")
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))


def iter_pages(
    sources: Iterable[str] | None = None,
    *,
    with_truth_text: bool = False,
    root: Path | None = None,
) -> Iterator[CorpusPage]:
    """Pages of the corpora in a stable order (source, then manifest order)."""
    root = root or require_corpora_dir()
    wanted = set(sources) if sources is not None else None
    for source_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        if wanted is not None and source_dir.name not in wanted:
            continue
        manifest = source_dir / "manifest.jsonl"
        if not manifest.is_file():
            continue
        for line in manifest.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            meta = json.loads(line)
            page = CorpusPage(
                source=source_dir.name,
                id=meta["id"],
                lang=meta.get("lang") or "und",
                html_path=source_dir / f"{meta['id']}.html",
                meta=meta,
            )
            if not page.html_path.is_file():
                continue
            if with_truth_text and page.truth_path is None:
                continue
            yield page
