"""The benchmarks' own helpers are imported as ``benchmarks.<module>`` from the checkout.

No ``__init__.py`` here on purpose: this folder must not become a package named ``benchmarks``
that would hide the checkout's ``benchmarks`` folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
