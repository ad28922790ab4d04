"""Builds the one compiled module, ``scrapy_simhash.extract._speedups``; metadata: pyproject.toml.

The module is optional: where it cannot be built (no C compiler), setuptools goes on without it
and the extractor walks the tree in Python, with the same results, more slowly.
"""

from setuptools import Extension, setup


def extensions() -> list[Extension]:
    import lxml
    from Cython.Build import cythonize

    walk = Extension(
        "scrapy_simhash.extract._speedups",
        ["scrapy_simhash/extract/_speedups.pyx"],
        include_dirs=lxml.get_include(),
        optional=True,
    )
    return cythonize([walk], compiler_directives={"language_level": "3"}, quiet=True)


setup(ext_modules=extensions())
