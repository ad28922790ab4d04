"""The processes that sign records for ``dedup --jobs N``.

Each worker has a pipe of its own and no lock shared with the others or with this process, so
ending the run is always just killing them: no worker can be left holding something the end
waits for. (``multiprocessing.Pool.terminate`` can wait forever when Ctrl-C arrives while its
task thread is between two writes of a large task.) A worker answers its tasks in order; one
thread per worker writes its tasks and one reads its answers, so this process goes on reading
and deciding while the workers sign.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from multiprocessing import forkserver
from typing import Any

from scrapy_simhash.cli.common import CliError, sign_batch, signals_deferred

#: Seconds to wait for every worker to start before the run goes on with those that did.
START_SECONDS = 60.0
_STARTED = "started"


class WorkerDied(CliError):
    """A worker process ended while it owed answers (killed, out of memory, crashed)."""


def _serve(connection: Any, algorithm: str, options: dict[str, Any]) -> None:
    """A worker's life: say it started, build the detector, answer ``(kind, items)`` tasks
    until ``None`` or the end of its pipe. Ctrl-C signals the whole process group: workers
    ignore it and the parent alone decides (it kills them)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (a parent's handler may be inherited)
    connection.send(_STARTED)
    from scrapy_simhash.detectors import get_detector

    detector = get_detector(algorithm, **options)
    while True:
        try:
            task = connection.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            answer: tuple[bool, Any] = (True, sign_batch(detector, *task))
        except Exception as error:
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception as error:  # an exception that does not pickle
            connection.send((False, RuntimeError(f"{type(error).__name__}: {error}")))


class _Worker:
    """One process, its pipe, the answers it owes (oldest first) and its two threads."""

    def __init__(self, context: Any, algorithm: str, options: dict[str, Any]) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, algorithm, options),
                                       daemon=True)
        self.process.start()
        child.close()
        self.owed: deque[Future] = deque()
        self.tasks: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.dead = False
        self.reader: threading.Thread | None = None

    def run_threads(self) -> None:
        threading.Thread(target=self._write_tasks, daemon=True).start()
        self.reader = threading.Thread(target=self._read_answers, daemon=True)
        self.reader.start()

    def submit(self, task: tuple[str, Sequence[Any]]) -> Future:
        future: Future = Future()
        with self.lock:
            if self.dead:
                future.set_exception(self._died())
                return future
            self.owed.append(future)
        self.tasks.put(task)
        return future

    def _write_tasks(self) -> None:
        while (task := self.tasks.get()) is not None:
            try:
                self.connection.send(task)
            except Exception:  # the worker is gone (or killed): the reader reports it
                return

    def _read_answers(self) -> None:
        while True:
            try:
                answer = self.connection.recv()
            except Exception:  # its end, or the pipe closed by kill()
                break
            if answer == _STARTED:  # (not read at the start: the worker was slow)
                continue
            ok, value = answer
            future = self.owed.popleft()
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        self.process.join(timeout=5.0)  # for its exit code (only this thread joins it)
        with self.lock:
            self.dead = True
            owed, self.owed = list(self.owed), deque()
        for future in owed:
            future.set_exception(self._died())
        self.tasks.put(None)

    def _died(self) -> WorkerDied:
        code = self.process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return WorkerDied(f"a worker process ended while signing records ({how})")

    def kill(self) -> None:
        self.tasks.put(None)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            self.process.kill()
        if self.reader is None:
            self.process.join(timeout=5.0)
        else:  # it sees the pipe's end, collects the exit code and fails what is owed
            self.reader.join(timeout=10.0)
        self.connection.close()


class SigningWorkers:
    """``count`` worker processes signing ``(kind, items)`` tasks with the named detector;
    tasks go round the workers in turn, so answers come back in the order asked for when read
    in that order. ``close`` kills them: call it however the run ends."""

    def __init__(self, count: int, algorithm: str, options: dict[str, Any]) -> None:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self._workers: list[_Worker] = []
        self._turn = 0
        # Ctrl-C or SIGTERM meanwhile is acted on once the workers are up (a process killed
        # while it starts prints a traceback of its own). The fork server starts with Ctrl-C
        # ignored, so the workers it forks ignore it from their first instruction.
        if context.get_start_method() == "forkserver":
            with _sigint_ignored():
                forkserver.ensure_running()
        with signals_deferred():
            try:
                for _ in range(count):  # (one by one: close() ends those made if one fails)
                    self._workers.append(_Worker(context, algorithm, options))
                deadline = time.monotonic() + START_SECONDS
                for worker in self._workers:  # a worker that cannot start reports at its task
                    with contextlib.suppress(EOFError, OSError):
                        if worker.connection.poll(max(0.0, deadline - time.monotonic())):
                            worker.connection.recv()
            except BaseException:
                self.close()
                raise
        for worker in self._workers:
            worker.run_threads()

    def submit(self, kind: str, items: Sequence[Any]) -> Future:
        worker = self._workers[self._turn]
        self._turn = (self._turn + 1) % len(self._workers)
        return worker.submit((kind, items))

    def close(self) -> None:
        for worker in self._workers:
            worker.kill()
        self._workers = []


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
