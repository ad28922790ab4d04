"""The write end of a worker's stdin, owned by the crawl: each frame goes out with one ``writev``.

Twisted's process transport joins every frame into one new buffer (a copy of the page's body),
then adds the pipe to the reactor's poller and writes it on the next round, and takes it off the
poller again: per page, a copy and two ``epoll_ctl`` calls on the crawl's busiest thread, and a
frame that leaves one round late. :class:`FrameWriter` writes a frame at once, from its parts as
they are (the body's own bytes), into a non-blocking pipe widened to hold a whole page; only what
the pipe cannot take is queued, and written when the reactor reports the pipe writable.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterable
from typing import Any

from twisted.internet.interfaces import IWriteDescriptor
from zope.interface import implementer

#: Bytes of the pipe to each worker, where the system allows it (Linux: 64 KiB by default).
PIPE_SIZE = 1 << 20
#: The most buffers one ``writev`` call is given (POSIX guarantees at least 16).
MAX_PARTS = 16


def open_pipe() -> tuple[int, int]:
    """(read end, write end) of a new pipe; the write end is non-blocking and, where the system
    allows it, holds :data:`PIPE_SIZE` bytes, so a page seldom waits for the worker to read."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        import fcntl
    except ImportError:  # not POSIX
        return read_end, write_end
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(write_end, set_size, PIPE_SIZE)
    return read_end, write_end


@implementer(IWriteDescriptor)
class FrameWriter:
    """Writes byte strings to a non-blocking pipe in order, without joining them first.

    ``write`` sends what the pipe takes at once and queues the rest (as views of the caller's
    bytes, never copies); the reactor then calls :meth:`doWrite` when the pipe has room. A reader
    that has gone (``EPIPE``) or any other error closes the writer and drops what was queued:
    the worker is gone, and its process protocol fails or hands on its tasks.
    """

    def __init__(self, fd: int, reactor: Any = None) -> None:
        if reactor is None:
            from twisted.internet import reactor
        self._fd = fd
        self._reactor = reactor
        self._queue: deque[memoryview] = deque()
        self._watched = False  # registered with the reactor for writability
        self._closing = False  # close once the queue is written
        self.error: OSError | None = None  # why writing stopped, if it failed

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def queued(self) -> int:
        """Bytes waiting for room in the pipe."""
        return sum(view.nbytes for view in self._queue)

    def write(self, parts: Iterable[bytes]) -> None:
        """Send ``parts`` in order after everything written before."""
        if self.closed or self._closing:
            return
        behind = bool(self._queue)  # earlier bytes still wait for room: these go after them
        self._queue.extend(memoryview(part).cast("B") for part in parts if len(part))
        if behind:
            return
        self._flush()
        if self._queue and not self.closed:
            self._watch(True)

    def close(self) -> None:
        """End of input for the reader, once what is queued has been written."""
        self._closing = True
        if not self._queue:
            self._close_now()

    def abort(self) -> None:
        """Close at once, dropping what is queued."""
        self._queue.clear()
        self._close_now()

    # -- IWriteDescriptor --------------------------------------------------------------------

    def fileno(self) -> int:
        return self._fd

    def doWrite(self) -> None:
        self._flush()
        if not self._queue:
            self._watch(False)
            if self._closing:
                self._close_now()

    def connectionLost(self, reason: Any) -> None:
        self.abort()

    def logPrefix(self) -> str:
        return "FrameWriter"

    # -- internals ---------------------------------------------------------------------------

    def _flush(self) -> None:
        """Write queued bytes until the pipe is full or the queue empty."""
        queue = self._queue
        while queue:
            parts = [queue[index] for index in range(min(len(queue), MAX_PARTS))]
            try:
                sent = os.writev(self._fd, parts)
            except BlockingIOError:
                return
            except InterruptedError:
                continue
            except OSError as error:  # EPIPE: the worker is gone
                self.error = error
                self.abort()
                return
            while sent:
                head = queue[0]
                if sent < head.nbytes:
                    queue[0] = head[sent:]
                    break
                sent -= head.nbytes
                queue.popleft()

    def _watch(self, on: bool) -> None:
        if on == self._watched:
            return
        self._watched = on
        if on:
            self._reactor.addWriter(self)
        else:
            self._reactor.removeWriter(self)

    def _close_now(self) -> None:
        if self.closed:
            return
        self._watch(False)
        fd, self._fd = self._fd, -1
        with contextlib.suppress(OSError):
            os.close(fd)
