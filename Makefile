# Two entry points (see README): `make demo` runs the example crawl, `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= test,chinese,cli,redis,distributed,extractors,bench

# The oldest Scrapy we support gets its own environment; Scrapy 2.13.0 predates Twisted 25.5.
OLDEST_VENV ?= .venv-oldest
OLDEST_PINS ?= "scrapy==2.13.0" "twisted<25.5"

.PHONY: demo test test-newest test-oldest lint bench clean

# The compiled modules (setup.py) are rebuilt when their sources change. uv installs both
# environments: it downloads in parallel and keeps one cache for the two of them. Bytecode is
# compiled at install, as pip does: every crawl test starts Python processes that import Scrapy.
PYX := $(wildcard scrapy_simhash/*.pyx scrapy_simhash/*/*.pyx)
UV := $(BIN)/uv
$(BIN)/.installed: pyproject.toml setup.py $(PYX)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv
	$(UV) pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[$(EXTRAS)]"
	touch $@

demo: $(BIN)/.installed
	cd example_project && ../$(BIN)/python run_demo.py

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/lint-imports

$(OLDEST_VENV)/bin/.installed: pyproject.toml setup.py $(PYX) $(BIN)/.installed
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(UV) pip install --quiet --compile-bytecode --python $(OLDEST_VENV)/bin/python $(OLDEST_PINS) -e ".[test,chinese,redis]"
	touch $@

# The whole suite on the newest Scrapy, then the Scrapy-facing tests on the oldest supported
# one, each spread over one process more than the machine has cores (pytest-xdist: the crawl
# tests spend much of their time waiting on sockets and subprocesses).
PYTEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")

test: test-newest test-oldest

test-newest: $(BIN)/.installed lint
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

test-oldest: $(OLDEST_VENV)/bin/.installed
	$(OLDEST_VENV)/bin/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist worksteal \
		-m "not scrapy_version_independent" tests/crawl

bench: $(BIN)/.installed
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) $(OLDEST_VENV) build *.egg-info .pytest_cache .ruff_cache
	rm -f $(PYX:.pyx=.c) scrapy_simhash/*.so scrapy_simhash/*/*.so
