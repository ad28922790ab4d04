"""Start the demo site on 127.0.0.1, crawl it with ``scrapy crawl news``, show what was dropped.

    cd example_project && python run_demo.py        (or: make demo)

The crawl log shows the ``Simhash:`` summary line when the spider closes;
``output/duplicates.jsonl`` lists each dropped page and the page it duplicates,
``output/items.jsonl`` the items the spider yielded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from demosite.server import DemoServer  # noqa: E402


def main() -> int:
    server = DemoServer().start()
    output = HERE / "output"
    output.mkdir(exist_ok=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(HERE), str(HERE.parent), *filter(None, [env.get("PYTHONPATH")])]
    )
    print(f"Demo site serving at {server.url}/", flush=True)
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-a", f"start_url={server.url}/",
               "-O", "output/items.jsonl", *sys.argv[1:]]
    print("Running:", " ".join(command), flush=True)
    try:
        status = subprocess.call(command, cwd=HERE, env=env)
    finally:
        server.stop()
    report = output / "duplicates.jsonl"
    if status != 0:  # a crawl stopped at start-up leaves the previous run's report: not this one's
        print(f"\nThe crawl failed (exit status {status}); see its log above.")
        return status
    if report.is_file():
        rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
        print(f"\n{len(rows)} near-duplicates dropped (from {report.relative_to(HERE)}):")
        for row in rows:
            print(f"  {row['url']}\n      duplicates {row['duplicate_of']} "
                  f"(distance {row['distance']})")
    print(f"\nItems: {output / 'items.jsonl'}\nStats: {output / 'stats.json'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
