"""The ``report`` page: duplicate clusters (largest first) and a distance histogram, one file.

Input rows are the JSON lines of ``scrapy-simhash dedup --dups`` (``id``, ``duplicate_of``,
``distance``) or of a crawl's ``SIMHASH_REPORT_FILE`` (``url`` instead of ``id``). A cluster is a
kept record with the records dropped as its duplicates. The page has no external assets: the
histogram is a PNG (matplotlib, Agg) in a ``data:`` URI and every user string is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scrapy_simhash.cli.records import RecordError, RecordReader


@dataclass(frozen=True, slots=True)
class DuplicateRow:
    """One dropped record."""

    id: str
    duplicate_of: str
    distance: float | int | None
    line: int


@dataclass
class Cluster:
    """A kept record and its dropped duplicates, in input order."""

    kept: str
    duplicates: list[DuplicateRow] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Records in the cluster, the kept one included."""
        return 1 + len(self.duplicates)


def read_duplicates(path: str | Path) -> list[DuplicateRow]:
    """The rows of a duplicates file; rows without ``duplicate_of`` (drops by policy) are
    left out. A malformed line or a row without an id raises :class:`RecordError`."""
    rows = []
    for record in RecordReader(Path(path), "jsonl"):
        data = record.data
        key = data.get("id", data.get("url"))
        if key is None:
            raise RecordError(path, record.line, "row has neither 'id' nor 'url'")
        if data.get("duplicate_of") is None:
            continue
        distance = data.get("distance")
        if (not isinstance(distance, int | float) or isinstance(distance, bool)
                or not math.isfinite(distance)):
            distance = None
        rows.append(DuplicateRow(str(key), str(data["duplicate_of"]), distance, record.line))
    return rows


def build_clusters(rows: Iterable[DuplicateRow]) -> list[Cluster]:
    """Clusters, largest first; equal sizes in the order their kept record first appears."""
    clusters: dict[str, Cluster] = {}
    for row in rows:
        clusters.setdefault(row.duplicate_of, Cluster(row.duplicate_of)).duplicates.append(row)
    ordered = list(clusters.values())  # dicts keep first-appearance order; sort is stable
    ordered.sort(key=lambda cluster: -cluster.size)
    return ordered


#: Beyond this span of integer distances, the histogram has 20 bins instead of a bar each.
MAX_BARS = 200


def distance_histogram_png(distances: Sequence[float | int]) -> bytes:
    """A bar chart of how many duplicates lie at each distance, as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(6.4, 3.2), dpi=100)
    axes = figure.add_subplot()
    integers = bool(distances) and all(float(d).is_integer() for d in distances)
    if integers and max(distances) - min(distances) <= MAX_BARS:  # a bar per distance
        counts = Counter(int(d) for d in distances)
        low, high = min(counts), max(counts)
        values = list(range(low, high + 1))
        axes.bar(values, [counts.get(v, 0) for v in values], color="#3b6ea5", width=0.8)
        axes.set_xticks(values)
    elif distances:
        axes.hist([float(d) for d in distances], bins=20, color="#3b6ea5")
    axes.set_xlabel("distance to the kept record")
    axes.set_ylabel("duplicates")
    axes.set_title("Distance histogram")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222}
table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #ddd}
td.n{text-align:right}details{margin:.3em 0}summary{cursor:pointer}code{word-break:break-all}
img{max-width:100%}
"""


def render_report(
    rows: Sequence[DuplicateRow], *, title: str, max_clusters: int = 500
) -> str:
    """The whole HTML page."""
    esc = html.escape
    clusters = build_clusters(rows)
    distances = [row.distance for row in rows if row.distance is not None]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        "<table>",
        f'<tr><th>duplicates dropped</th><td class="n">{len(rows)}</td></tr>',
        f'<tr><th>clusters</th><td class="n">{len(clusters)}</td></tr>',
        f'<tr><th>largest cluster</th><td class="n">{clusters[0].size if clusters else 0}'
        "</td></tr>",
        "</table>",
    ]
    if distances:
        png = base64.b64encode(distance_histogram_png(distances)).decode("ascii")
        parts.append(
            f'<p><img alt="histogram of duplicate distances" src="data:image/png;base64,{png}">'
            "</p>"
        )
    else:
        parts.append("<p>No distances to plot.</p>")
    shown = clusters[: max(0, max_clusters)]
    parts.append(f"<h2>Clusters, largest first ({len(shown)} of {len(clusters)})</h2>")
    for cluster in shown:
        parts.append(
            f"<details><summary>{cluster.size} records: kept <code>{esc(cluster.kept)}</code>"
            "</summary><table><tr><th>dropped</th><th>distance</th></tr>"
        )
        for row in cluster.duplicates:
            distance = "" if row.distance is None else f"{row.distance:g}"
            parts.append(
                f'<tr><td><code>{esc(row.id)}</code></td><td class="n">{distance}</td></tr>'
            )
        parts.append("</table></details>")
    if len(clusters) > len(shown):
        parts.append(f"<p>{len(clusters) - len(shown)} smaller clusters not listed.</p>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
