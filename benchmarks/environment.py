"""Print the machine and package versions that benchmark figures depend on (for BENCHMARKS.md)."""

from __future__ import annotations

import importlib
import os
import platform
from importlib import metadata
from pathlib import Path

PACKAGES = [
    "scrapy-simhash", "scrapy", "twisted", "lxml", "numpy", "jieba", "rjieba", "simhash",
    "datasketch", "trafilatura", "readability-lxml", "resiliparse", "redis", "scrapy-redis",
]
COMPILED = [
    "scrapy_simhash.extract._speedups",
    "scrapy_simhash._jieba",
    "scrapy_simhash._tokens",
    "scrapy_simhash.index._probe",
]


def cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def memory_gib() -> str:
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        kib = int(meminfo.read_text().split()[1])
        return f"{kib / 2**20:.0f} GiB"
    return "unknown"


def main() -> None:
    print(f"- machine: {cpu_model()}, {os.cpu_count()} cores, {memory_gib()} RAM")
    print(f"- system: {platform.platform()}; Python {platform.python_version()}")
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    print(f"- packages: {', '.join(versions)}")
    built = []
    for module in COMPILED:
        try:
            importlib.import_module(module)
            built.append(f"{module} (built)")
        except ImportError:
            built.append(f"{module} (missing: the Python fallback runs)")
    print(f"- compiled modules: {', '.join(built)}")


if __name__ == "__main__":
    main()
