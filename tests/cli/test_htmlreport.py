"""Clusters and the page of ``scrapy-simhash report``."""

from __future__ import annotations

from pathlib import Path

from scrapy_simhash.cli.htmlreport import (
    DuplicateRow,
    build_clusters,
    distance_histogram_png,
    read_duplicates,
    render_report,
)


def row(key: str, original: str, distance: int | None = 1, line: int = 1) -> DuplicateRow:
    return DuplicateRow(key, original, distance, line)


def test_clusters_largest_first_then_in_order_of_appearance() -> None:
    rows = [row("b", "a"), row("y", "x"), row("c", "a"), row("n", "m"), row("z", "x"),
            row("d", "a")]
    clusters = build_clusters(rows)
    assert [(c.kept, c.size, [d.id for d in c.duplicates]) for c in clusters] == [
        ("a", 4, ["b", "c", "d"]), ("x", 3, ["y", "z"]), ("m", 2, ["n"]),
    ]


def test_read_duplicates_takes_ids_or_urls_and_leaves_out_policy_drops(tmp_path: Path) -> None:
    path = tmp_path / "dups.jsonl"
    path.write_text(
        '{"id": 7, "duplicate_of": 3, "distance": 2}\n'
        '{"kind": "page", "url": "https://a.example/2", "duplicate_of": "https://a.example/1",'
        ' "distance": 0}\n'
        '{"url": "https://a.example/3", "duplicate_of": null, "distance": null}\n',
        encoding="utf-8",
    )
    assert read_duplicates(path) == [
        DuplicateRow("7", "3", 2, 1),
        DuplicateRow("https://a.example/2", "https://a.example/1", 0, 2),
    ]


def test_page_without_distances_or_clusters_has_no_image() -> None:
    page = render_report([], title="Nothing & nobody")
    assert "<title>Nothing &amp; nobody</title>" in page
    assert "data:image/png" not in page and "No distances to plot." in page


def test_page_lists_at_most_max_clusters() -> None:
    rows = [row(f"d{i}", f"k{i}", i % 4) for i in range(5)]
    page = render_report(rows, title="t", max_clusters=2)
    assert "(2 of 5)" in page and "3 smaller clusters not listed." in page
    assert page.count("<details>") == 2


def test_far_apart_or_infinite_distances_still_give_a_histogram(tmp_path: Path) -> None:
    path = tmp_path / "dups.jsonl"
    path.write_text('{"id": 2, "duplicate_of": 1, "distance": 3000000}\n'
                    '{"id": 3, "duplicate_of": 1, "distance": 0}\n'
                    '{"id": 4, "duplicate_of": 1, "distance": Infinity}\n', encoding="utf-8")
    rows = read_duplicates(path)
    assert [r.distance for r in rows] == [3000000, 0, None]
    png = distance_histogram_png([r.distance for r in rows if r.distance is not None])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png[12:16] == b"IHDR"
    assert (int.from_bytes(png[16:20]), int.from_bytes(png[20:24])) == (640, 320)  # 6.4x3.2 in
