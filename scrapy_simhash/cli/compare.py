"""``scrapy-simhash compare``: explain one decision, two documents side by side."""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path
from typing import Any

from scrapy_simhash.cli.common import CliError, build_detector, detector_options


def cmd_compare(args: argparse.Namespace) -> int:
    detector = build_detector(args.algorithm, detector_options(args))
    fingerprinter = detector.fingerprinter
    sides = []
    for label, name, url in (("A", args.a, args.url_a), ("B", args.b, args.url_b)):
        data = _read_input_file(name)
        text = data.decode("utf-8", "replace") if args.text else fingerprinter.extract(
            data, None, url
        )
        sides.append((label, name, text, detector.signature(text)))
    for label, name, text, signature in sides:
        tokens = len(fingerprinter.tokens(text))
        print(f"{label}: {name}")
        print(f"  main text    {len(text)} characters, {tokens} tokens")
        if signature is None:
            print(f"  fingerprint  none (fewer than {fingerprinter.min_tokens} tokens)")
        else:
            print(f"  fingerprint  {_signature_hex(detector, signature)}")
    (_, _, text_a, sig_a), (_, _, text_b, sig_b) = sides
    if sig_a is None or sig_b is None:
        print("distance     not computed (a side has no fingerprint)")
        print("verdict      not comparable: too little text")
    else:
        duplicate = detector.is_duplicate(sig_a, sig_b)
        print(f"distance     {_distance_text(detector, sig_a, sig_b)}")
        print(f"verdict      {'near-duplicate' if duplicate else 'different'}")
    if args.diff:
        diff = difflib.unified_diff(
            text_a.splitlines(), text_b.splitlines(),
            fromfile=f"A: {args.a}", tofile=f"B: {args.b}", lineterm="",
        )
        lines = list(diff)
        print()
        print("\n".join(lines) if lines else "(the extracted texts are identical)")
    return 0


def _read_input_file(name: str) -> bytes:
    if "://" in name and not name.startswith("file://"):
        raise CliError(
            f"{name}: compare reads saved pages; download it first (e.g. curl -o page.html URL)"
        )
    path = Path(name.removeprefix("file://"))
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a folder, not a file") from None


def _signature_hex(detector: Any, signature: Any) -> str:
    if detector.name == "simhash":
        return f"{signature:0{detector.bits // 4}x} ({detector.bits} bits)"
    return f"{detector.fingerprint_of(signature):016x} ({detector.name} signature digest)"


def _distance_text(detector: Any, a: Any, b: Any) -> str:
    if detector.name == "simhash":
        return (f"{detector.distance(a, b)} bits (near-duplicate at {detector.max_distance} "
                "or fewer)")
    if detector.name == "minhash":
        return (f"{detector.distance(a, b):.3f} (estimated Jaccard {detector.estimate(a, b):.3f}, "
                f"near-duplicate at {detector.threshold} or more)")
    return f"{detector.distance(a, b):g} ({detector.name}: 0 means equal)"
