"""The worker process: ``python -m scrapy_simhash.crawl.workers``.

It reads frames from stdin and writes one frame per task to its stdout, in order. A frame is an
8-byte header (two big-endian lengths), a pickle (protocol 5) and the raw bytes of at most one
out-of-band buffer: a page's body travels as a :class:`pickle.PickleBuffer`, so neither side copies
it into or out of the pickle (PEP 574). The first frame is ``("init", config)``: the crawl's
:class:`~scrapy_simhash.crawl.settings.SimhashConfig`, from which the worker builds the same
detector as the crawl, and answers ``("ready", None, 0.0, None)`` once it is built and warmed
up. Then tasks ``("page", url, body, content_type, encoding, read_canonical)`` (from which the
worker rebuilds the crawl's ``HtmlResponse``, so Scrapy decodes and parses it the same way, or
parses the same document straight from the body: ``signing.tree_from_body``; with
``read_canonical`` the note is (note, ``urlrules.declared_canonical`` of the page)),
``("text", text)`` and ``("item", key, parts, pages)`` (an item's text fields, signed by
``itempage.item_signature``: its note is a tuple or None), each answered by
``("ok", signature, seconds, note)`` or ``("error", "Type: message", seconds, None)``. An
unusable ``init`` is answered by ``("fatal", "Type: message", 0.0, None)`` and the worker
exits. At end of input (the crawl closed the pipe, or died) it exits.

Whatever the libraries print goes to stderr: the real stdout is kept for frames only.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

#: Lengths of the pickle and of the out-of-band bytes that follow it.
HEADER = struct.Struct("!II")


def frame_parts(message: Any) -> list[bytes]:
    """A frame as byte strings to write in order; a :class:`pickle.PickleBuffer` of a bytes
    object in ``message`` (at most one) is sent after the pickle as that very object, not copied
    into it."""
    buffers: list[pickle.PickleBuffer] = []
    payload = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    if len(buffers) > 1:
        raise ValueError("a frame carries at most one out-of-band buffer")
    raw = b""
    if buffers:
        view = buffers[0].raw()
        whole = isinstance(view.obj, bytes) and len(view.obj) == view.nbytes
        raw = view.obj if whole else view.tobytes()
    return [HEADER.pack(len(payload), len(raw)), payload, raw]


def encode_frame(message: Any) -> bytes:
    return b"".join(frame_parts(message))


def decode_frame(payload: bytes | bytearray, raw: bytes | bytearray) -> Any:
    """The message of a frame's pickle and out-of-band bytes (see :func:`frame_parts`)."""
    return pickle.loads(payload, buffers=(raw,))


def read_frame(stream: IO[bytes]) -> Any | None:
    """The next message, or None at end of input."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    length, raw_length = HEADER.unpack(header)
    payload = stream.read(length)
    raw = stream.read(raw_length) if raw_length else b""
    if len(payload) < length or len(raw) < raw_length:
        return None
    return decode_frame(payload, raw)


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def serve(source: IO[bytes], sink: IO[bytes]) -> int:
    """Answer tasks from ``source`` on ``sink`` until end of input."""
    from scrapy_simhash.crawl.itempage import ItemFields, item_signature
    from scrapy_simhash.crawl.signing import page_signature, rebuilt_response, text_signature
    from scrapy_simhash.crawl.urlrules import declared_canonical

    try:  # an init this process cannot even read (a class only the crawl has, say) is fatal too
        init = read_frame(source)
        if init is None:
            return 0
        from scrapy_simhash.crawl.settings import build_detector

        config = init[1]
        detector = build_detector(config)
    except Exception as error:
        sink.write(encode_frame(("fatal", _describe(error), 0.0, None)))
        sink.flush()
        return 1
    sink.write(encode_frame(("ready", None, 0.0, None)))  # warmed up: send the pages now
    sink.flush()
    while (task := read_frame(source)) is not None:
        started = time.perf_counter()
        try:
            note = None
            if task[0] == "page":
                response = rebuilt_response(*task[1:5])
                signature, note = page_signature(detector, response, own_copy=True)
                if task[5:6] == (True,):  # and the URL the page declares as its own
                    note = (note, declared_canonical(response.body, response.url))
            elif task[0] == "item":
                signature, note = item_signature(
                    detector, ItemFields(*task[1:]), max_size=config.max_body_size
                )
            else:
                signature = text_signature(detector, task[1])
            answer = ("ok", signature, time.perf_counter() - started, note)
        except Exception as error:
            answer = ("error", _describe(error), time.perf_counter() - started, None)
        sink.write(encode_frame(answer))
        sink.flush()
    return 0


#: Signals Scrapy answers with a graceful shutdown. Ctrl-C reaches the whole process group, and a
#: service manager (systemd's default) sends SIGTERM to every process of the service: the crawl
#: still needs its workers while it shuts down, and they exit when it closes their stdin.
SHUTDOWN_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def main() -> int:
    # (The crawl starts workers with :data:`COMMAND_CODE`, which ignores these before any import.)
    for shutdown in SHUTDOWN_SIGNALS:
        signal.signal(shutdown, signal.SIG_IGN)
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt frames
    try:
        return serve(sys.stdin.buffer, sink)
    except BrokenPipeError:
        # The crawl has gone (it ended before this worker was ready, say): nobody to answer.
        # Leave at once: the interpreter's own flush of the sink at exit would fail again.
        os._exit(0)


#: How the crawl starts a worker (with the shutdown signals blocked, see
#: :func:`shutdown_signals_blocked`): SIGINT and SIGTERM ignored first, then the imports (about
#: 0.2 s, during which a Ctrl-C would otherwise kill the worker the crawl still needs to shut
#: down). The same as ``python -m scrapy_simhash.crawl.workers`` once it runs (``__main__`` is that
#: module).
COMMAND_CODE = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "signal.signal(signal.SIGTERM, signal.SIG_IGN); import runpy; "
    "runpy.run_module('scrapy_simhash.crawl.workers', run_name='__main__', alter_sys=True)"
)


@contextlib.contextmanager
def shutdown_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back in this thread meanwhile (one sent then comes after). A
    process started meanwhile is born with them blocked, so a Ctrl-C in its interpreter's own
    start-up, before :data:`COMMAND_CODE` ignores them, cannot kill it (ignoring a signal
    discards one pending)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(SHUTDOWN_SIGNALS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
