"""The worker processes of ``dedup --jobs N``: answers in order, a dead worker reported, the end
always a kill that cannot wait on anything."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from scrapy_simhash.cli.common import CliError, sign_batch
from scrapy_simhash.cli.workers import SigningWorkers, WorkerDied
from scrapy_simhash.detectors import get_detector

from .samples import RECORDS

TEXTS = [body for _url, _title, body in RECORDS]


@pytest.fixture
def workers():
    pool = SigningWorkers(2, "simhash", {})
    yield pool
    pool.close()


def _children() -> list[multiprocessing.Process]:
    return [child for child in multiprocessing.active_children() if child.is_alive()]


def test_answers_come_back_in_the_order_asked_and_as_signed_here(workers) -> None:
    futures = [workers.submit("text", TEXTS[i : i + 2]) for i in range(0, len(TEXTS), 2)]
    answers = [signed for future in futures for signed in future.result(timeout=60)]
    assert answers == sign_batch(get_detector("simhash"), "text", TEXTS)
    assert any(signed.signature is not None for signed in answers)


def test_workers_ignore_ctrl_c_which_is_the_parents_to_act_on(workers) -> None:
    children = _children()
    assert len(children) == 2
    for child in children:
        os.kill(child.pid, signal.SIGINT)
    time.sleep(0.2)
    assert workers.submit("text", TEXTS[:1]).result(timeout=60)
    assert all(child.is_alive() for child in children)


def test_a_worker_killed_while_it_owes_answers_is_reported_not_waited_for(workers) -> None:
    workers.submit("text", TEXTS[:1]).result(timeout=60)  # both started
    victim = _children()[0]
    victim.kill()  # (not joined here: its pool's reader collects its exit code)
    deadline = time.monotonic() + 30
    failures = []
    while not failures and time.monotonic() < deadline:  # the turn reaches the dead one
        for future in [workers.submit("text", TEXTS[:1]) for _ in range(2)]:
            try:
                future.result(timeout=30)
            except WorkerDied as error:
                failures.append(error)
    assert failures, "no task failed after its worker was killed"
    assert isinstance(failures[0], CliError)
    assert str(failures[0]) == "a worker process ended while signing records (killed by signal 9)"


def test_close_ends_every_worker_at_once_even_mid_task_and_twice() -> None:
    pool = SigningWorkers(2, "simhash", {})
    big = TEXTS * 400
    pending = [pool.submit("text", big) for _ in range(6)]  # minutes of work queued
    children = _children()
    started = time.monotonic()
    pool.close()
    pool.close()
    assert time.monotonic() - started < 10
    assert not any(child.is_alive() for child in children)
    for future in pending:  # none left waiting for ever
        with pytest.raises(WorkerDied):
            future.result(timeout=10)
