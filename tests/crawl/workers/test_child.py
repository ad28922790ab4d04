"""The worker process's loop, driven through in-memory streams."""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys

import pytest

from scrapy_simhash.crawl.itempage import ItemFields, item_signature
from scrapy_simhash.crawl.settings import SimhashConfig, build_detector
from scrapy_simhash.crawl.urlrules import declared_canonical
from scrapy_simhash.crawl.workers.child import (
    COMMAND_CODE,
    HEADER,
    encode_frame,
    frame_parts,
    read_frame,
    serve,
    shutdown_signals_blocked,
)

ARTICLE = (
    "<html><head><title>Tides</title></head><body><nav><a href='/'>Home</a></nav><article>"
    "<h1>Why the tides turn</h1>"
    + "<p>The moon pulls on the oceans and the water rises along the coast twice a day.</p>" * 6
    + "</article></body></html>"
)


READY = ("ready", None, 0.0, None)


def _run(*messages) -> list:
    """The worker's answers to the tasks, after its ready frame (checked here)."""
    source = io.BytesIO(b"".join(encode_frame(message) for message in messages))
    sink = io.BytesIO()
    serve(source, sink)
    sink.seek(0)
    answers = []
    while (answer := read_frame(sink)) is not None:
        answers.append(answer)
    if answers and answers[0][0] != "fatal":
        assert answers.pop(0) == READY  # before any task's answer
    return answers


def test_answers_each_task_in_order_with_the_crawls_signature():
    config = SimhashConfig()
    detector = build_detector(config)
    text = "The moon pulls on the oceans and the water rises twice a day. " * 5
    answers = _run(
        ("init", config),
        ("page", "http://example.com/a", ARTICLE.encode(), "text/html; charset=utf-8", None),
        ("text", text),
        ("text", "too short"),
        ("page", "http://example.com/raw", ARTICLE.encode(), None, "utf-8"),
    )
    assert [status for status, *_ in answers] == ["ok"] * 4
    page, item, short, explicit = (value for _, value, _, _ in answers)
    assert page == detector.sign_html(ARTICLE)
    assert item == detector.sign_text(text)
    assert short.signature is None
    assert explicit == page  # an encoding given to the response instead of a header
    assert all(seconds >= 0 and note is None for _, _, seconds, note in answers)


def test_a_failing_task_is_answered_with_its_error_and_the_loop_goes_on():
    config = SimhashConfig(
        fingerprint_kwargs={"extractor": "tests.crawl.workers.hostile_extractor.fail_on_tides"}
    )
    page = ("page", "http://example.com/a", ARTICLE.encode(), "text/html", None)
    answers = _run(("init", config), page, ("text", "words " * 40))
    assert answers[0][0] == "error"
    assert answers[0][1] == "ValueError: this extractor cannot read tides"
    assert answers[1][0] == "ok"


def test_an_unusable_configuration_is_fatal():
    config = SimhashConfig(fingerprint_kwargs={"bits": 7})
    answers = _run(("init", config), ("text", "words " * 40))
    assert len(answers) == 1
    status, message, _, _ = answers[0]
    assert status == "fatal"
    assert "bits" in message


def test_end_of_input_ends_the_loop():
    assert _run() == []
    assert _run(("init", SimhashConfig())) == []


def test_the_worker_says_it_is_ready_once_its_detector_is_built():
    sink = io.BytesIO()
    serve(io.BytesIO(encode_frame(("init", SimhashConfig()))), sink)
    sink.seek(0)
    assert read_frame(sink) == READY
    assert read_frame(sink) is None


def test_a_page_task_that_asks_for_it_gets_the_declared_canonical_url_with_its_note():
    head = '<link rel="canonical" href="/tides">'
    body = ARTICLE.replace("<title>", head + "<title>").encode()
    url = "http://example.com/tides?ref=home"
    answers = _run(
        ("init", SimhashConfig()),
        ("page", url, body, "text/html; charset=utf-8", None, True),
        ("page", url, body, "text/html; charset=utf-8", None, False),
    )
    (_, asked, _, note), (_, plain, _, plain_note) = answers
    assert note == (None, "http://example.com/tides") == (None, declared_canonical(body, url))
    assert plain_note is None
    assert asked == plain


def test_an_item_task_is_signed_as_the_crawl_signs_the_item():
    config = SimhashConfig()
    detector = build_detector(config)
    text = ["Tides", "The moon pulls on the oceans and the water rises twice a day. " * 5]
    as_text = ItemFields("http://example.com/a", text, [])
    as_page = ItemFields("http://example.com/b", ["Tides", ARTICLE], [("body", ARTICLE)])
    answers = _run(("init", config), ("item", *as_text), ("item", *as_page))
    (_, text_signature, _, text_note), (_, page_signature, _, page_note) = answers
    assert text_note is None
    assert text_signature == detector.sign_text("\n".join(text))
    assert page_note == ("body", "HTML", None)
    expected = item_signature(detector, as_page, max_size=config.max_body_size)
    assert (page_signature, page_note) == expected
    assert page_signature == detector.sign_html(ARTICLE)


def test_a_page_body_travels_out_of_band_as_the_very_bytes_object():
    body = ARTICLE.encode() * 50
    header, payload, raw = frame_parts(("page", "http://example.com/a", pickle.PickleBuffer(body)))
    assert raw is body  # not copied into the pickle, nor out of it
    assert len(payload) < 200
    stream = io.BytesIO(header + payload + raw + encode_frame(("text", "next")))
    assert read_frame(stream) == ("page", "http://example.com/a", body)
    assert read_frame(stream) == ("text", "next")
    assert read_frame(stream) is None


def test_a_body_sent_out_of_band_gets_the_same_signature():
    config = SimhashConfig()
    page = ("page", "http://example.com/a", pickle.PickleBuffer(ARTICLE.encode()), "text/html",
            None)
    [(status, signature, _, _)] = _run(("init", config), page)
    assert status == "ok"
    assert signature == build_detector(config).sign_html(ARTICLE)


def test_a_truncated_frame_reads_as_end_of_input():
    frame = encode_frame(("page", "http://example.com/a", pickle.PickleBuffer(b"x" * 100)))
    assert read_frame(io.BytesIO(frame[:-1])) is None


def test_an_init_the_worker_cannot_read_is_fatal(tmp_path, monkeypatch):
    """A setting pickled from a class the worker cannot import (one defined in the crawl's own
    script, say): a fatal answer (the crawl then works inline), not a crash and a restart."""
    (tmp_path / "only_in_the_crawl.py").write_text("class Extractor:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_in_the_crawl

    payload = pickle.dumps(("init", only_in_the_crawl.Extractor()), protocol=5)
    monkeypatch.delitem(sys.modules, "only_in_the_crawl")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    source = io.BytesIO(HEADER.pack(len(payload), 0) + payload)
    sink = io.BytesIO()
    assert serve(source, sink) == 1
    sink.seek(0)
    status, message, _, _ = read_frame(sink)
    assert status == "fatal"
    assert "only_in_the_crawl" in message


def _start_worker() -> subprocess.Popen:
    """A worker started as the crawl starts one."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    with shutdown_signals_blocked():
        return subprocess.Popen([sys.executable, "-c", COMMAND_CODE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def test_a_worker_whose_crawl_has_gone_exits_quietly():
    worker = _start_worker()
    worker.stdout.close()  # the crawl ended before its worker was ready
    worker.stdin.write(encode_frame(("init", SimhashConfig())))
    worker.stdin.close()
    assert worker.wait(timeout=60) == 0
    assert worker.stderr.read() == b""


@pytest.mark.parametrize("shutdown", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_a_starting_worker_ignores_ctrl_c_and_sigterm(shutdown):
    """Ctrl-C reaches the crawl's whole process group, a service manager's SIGTERM every process
    of the service; the crawl shuts down gracefully and needs its workers meanwhile, even ones
    whose interpreter is still starting."""
    worker = _start_worker()
    worker.send_signal(shutdown)  # at once: before it runs a line of its own
    worker.stdin.write(encode_frame(("init", SimhashConfig())))
    worker.stdin.flush()
    assert read_frame(worker.stdout) == READY
    worker.stdin.close()
    assert worker.wait(timeout=60) == 0
    worker.stdout.close()
    worker.stderr.close()
