# Two entry points (see README): `make demo` runs the example crawl, `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
EXTRAS ?= test,chinese,redis,distributed,extractors,bench

.PHONY: demo test lint bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

demo: $(BIN)/.installed
	cd example_project && ../$(BIN)/python run_demo.py

lint: $(BIN)/.installed
	$(BIN)/ruff check .

test: $(BIN)/.installed lint
	$(BIN)/python -m pytest -q

bench: $(BIN)/.installed
	for b in benchmarks/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
