"""Builds the compiled modules; the package's metadata is in pyproject.toml.

``scrapy_simhash.extract._speedups`` (the extractor's walk), ``scrapy_simhash._jieba`` (jieba's cut
of Chinese text), ``scrapy_simhash._tokens`` (word hashes) and ``scrapy_simhash.index._probe`` (the
in-memory index's single-query probe) are optional: where they cannot be built (no C compiler),
setuptools goes on without them, and the package uses the same code in Python or numpy (the walk,
the words, the probe) or rjieba (the cut), with the same results, more slowly.
"""

import os
import platform
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class ParallelBuildExt(build_ext):
    """Compiles the modules side by side: each is one large generated C file."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1


def popcount_flags() -> list[str]:
    """x86-64 (not MSVC): the index probe counts bits with the popcnt instruction, which it
    checks for at import (without it, the numpy probe is used)."""
    if sys.platform != "win32" and platform.machine().lower() in ("x86_64", "amd64"):
        return ["-mpopcnt"]
    return []


def extensions() -> list[Extension]:
    import lxml
    from Cython.Build import cythonize

    walk = Extension(
        "scrapy_simhash.extract._speedups",
        ["scrapy_simhash/extract/_speedups.pyx"],
        include_dirs=lxml.get_include(),
        optional=True,
    )
    jieba_cut = Extension(
        "scrapy_simhash._jieba", ["scrapy_simhash/_jieba.pyx"], optional=True
    )
    tokens = Extension("scrapy_simhash._tokens", ["scrapy_simhash/_tokens.pyx"], optional=True)
    probe = Extension(
        "scrapy_simhash.index._probe",
        ["scrapy_simhash/index/_probe.pyx"],
        extra_compile_args=popcount_flags(),
        optional=True,
    )
    return cythonize(
        [walk, jieba_cut, tokens, probe], compiler_directives={"language_level": "3"}, quiet=True
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": ParallelBuildExt})
