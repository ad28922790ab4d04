"""Several processes opening one new index file at once, as crawls started together do."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable
from pathlib import Path


def _open_when_released(open_one: Callable[[str], None], path: str, barrier, results) -> None:
    try:
        barrier.wait(timeout=30)
        open_one(path)
        results.put("ok")
    except Exception as error:
        results.put(f"{type(error).__name__}: {error}")


def open_at_once(
    paths: Iterable[Path], open_one: Callable[[str], None], processes: int = 6
) -> list[str]:
    """For each path in turn, ``processes`` forked processes call ``open_one(path)`` together;
    what each reported: ``"ok"`` or its error."""
    context = multiprocessing.get_context("fork")
    outcomes: list[str] = []
    for path in paths:
        barrier, results = context.Barrier(processes), context.Queue()
        arguments = (open_one, str(path), barrier, results)
        openers = [context.Process(target=_open_when_released, args=arguments)
                   for _ in range(processes)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join(timeout=60)
        outcomes += [results.get(timeout=10) for _ in openers]
    return outcomes
