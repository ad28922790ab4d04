"""FrameWriter over a real pipe; the reactor is a stand-in that records what the writer asks of it
(the crawls in test_pool.py run it on Twisted's real one)."""

from __future__ import annotations

import errno
import os

import pytest

from scrapy_simhash.crawl.workers.pipe import FrameWriter, open_pipe


class _Reactor:
    """Records whether the writer is waiting for the pipe to be writable."""

    def __init__(self) -> None:
        self.writers: set[FrameWriter] = set()
        self.calls: list[str] = []

    def addWriter(self, writer: FrameWriter) -> None:
        self.calls.append("add")
        self.writers.add(writer)

    def removeWriter(self, writer: FrameWriter) -> None:
        self.calls.append("remove")
        self.writers.discard(writer)


@pytest.fixture
def pipe():
    read_end, write_end = open_pipe()
    os.set_blocking(read_end, False)
    yield read_end, write_end
    os.close(read_end)


def _drain(read_end: int, writer: FrameWriter, reactor: _Reactor) -> bytes:
    """Read until end of input, letting the writer go on whenever the reactor would."""
    received = bytearray()
    while True:
        try:
            chunk = os.read(read_end, 1 << 16)
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            return bytes(received)
        if chunk:
            received += chunk
        if writer in reactor.writers:
            writer.doWrite()


def test_frames_larger_than_the_pipe_arrive_whole_and_in_order(pipe):
    read_end, write_end = pipe
    reactor = _Reactor()
    writer = FrameWriter(write_end, reactor)
    big = os.urandom(3 << 20)  # three times what the widened pipe holds
    writer.write([b"head-1", big, b""])
    assert writer.queued > 0 and reactor.writers == {writer}  # the rest waits for room
    writer.write([b"head-2", b"small"])  # queued behind, never ahead of, the first frame
    writer.close()
    assert not writer.closed  # closed once what is queued has gone out
    assert _drain(read_end, writer, reactor) == b"head-1" + big + b"head-2small"
    assert writer.closed and reactor.writers == set()


def test_a_frame_the_pipe_can_take_goes_out_at_once(pipe):
    read_end, write_end = pipe
    reactor = _Reactor()
    writer = FrameWriter(write_end, reactor)
    body = b"<html>" + b"x" * 200_000 + b"</html>"
    writer.write([b"header", memoryview(body)])
    assert writer.queued == 0 and reactor.calls == []  # no round through the reactor
    writer.close()
    assert _drain(read_end, writer, reactor) == b"header" + body


def test_a_reader_that_is_gone_closes_the_writer_without_raising():
    read_end, write_end = open_pipe()
    os.close(read_end)
    reactor = _Reactor()
    writer = FrameWriter(write_end, reactor)
    writer.write([b"a task for a worker that has exited"])
    assert writer.closed
    assert writer.error is not None and writer.error.errno == errno.EPIPE
    writer.write([b"more"])  # ignored: the worker's protocol hands its tasks on
    writer.close()
    assert reactor.writers == set()


def test_abort_drops_what_is_queued_and_stops_waiting(pipe):
    _, write_end = pipe
    reactor = _Reactor()
    writer = FrameWriter(write_end, reactor)
    writer.write([os.urandom(2 << 20)])
    assert reactor.writers == {writer}
    writer.abort()
    assert writer.closed and writer.queued == 0 and reactor.writers == set()
