"""The worker process: ``python -m scrapy_simhash.workers``.

It reads frames from stdin and writes one frame per task to its stdout, in order. A frame is a
4-byte big-endian length and a pickle. The first frame is ``("init", config)``: the crawl's
:class:`~scrapy_simhash.settings.SimhashConfig`, from which the worker builds the same detector
as the crawl. Then tasks ``("page", url, body, content_type, encoding)`` (from which the
worker rebuilds the crawl's ``HtmlResponse``, so Scrapy decodes and parses it the same way) and
``("text", text)``, each answered by ``("ok", signature, seconds, note)`` or
``("error", "Type: message", seconds, None)``. An unusable ``init`` is answered by
``("fatal", "Type: message", 0.0, None)`` and the worker exits. At end of input (the crawl
closed the pipe, or died) it exits.

Whatever the libraries print goes to stderr: the real stdout is kept for frames only.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import time
from typing import IO, Any

HEADER = struct.Struct("!I")


def encode_frame(message: Any) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def read_frame(stream: IO[bytes]) -> Any | None:
    """The next message, or None at end of input."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (length,) = HEADER.unpack(header)
    payload = stream.read(length)
    if len(payload) < length:
        return None
    return pickle.loads(payload)


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def serve(source: IO[bytes], sink: IO[bytes]) -> int:
    """Answer tasks from ``source`` on ``sink`` until end of input."""
    from scrapy_simhash.workers.tasks import page_signature, rebuilt_response, text_signature

    init = read_frame(source)
    if init is None:
        return 0
    try:
        from scrapy_simhash.dedup import build_detector

        detector = build_detector(init[1])
    except Exception as error:
        sink.write(encode_frame(("fatal", _describe(error), 0.0, None)))
        sink.flush()
        return 1
    while (task := read_frame(source)) is not None:
        started = time.perf_counter()
        try:
            note = None
            if task[0] == "page":
                signature, note = page_signature(detector, rebuilt_response(*task[1:]))
            else:
                signature = text_signature(detector, task[1])
            answer = ("ok", signature, time.perf_counter() - started, note)
        except Exception as error:
            answer = ("error", _describe(error), time.perf_counter() - started, None)
        sink.write(encode_frame(answer))
        sink.flush()
    return 0


def main() -> int:
    # Ctrl-C reaches the whole process group: the crawl shuts down gracefully and still needs
    # its workers meanwhile; they exit when it closes their stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt frames
    return serve(sys.stdin.buffer, sink)
