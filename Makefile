# Quick start: `make demo` and `make test`. Each sets up .venv on its own (idempotent).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean browser schemas

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
	@$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	@$(BIN)/gpuwise plan --example

# The browser tests drive Debian's chromium (Playwright cannot download its own browser here);
# installed with apt where we may, otherwise those tests skip and say why.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	  || echo "chromium is not installed: the browser tests will be skipped"

test: $(STAMP) browser
	@$(BIN)/ruff check src tests benchmarks
	@$(BIN)/mypy
	@OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -n auto  # one worker per core (tests/README: each test is independent); one BLAS thread each

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy

# The JSON schemas of the --json documents, from the report models (tests/test_schemas.py
# fails when a committed one is out of date).
schemas: $(STAMP)
	$(BIN)/python -m gpuwise.render.schemas docs/schemas

bench: $(STAMP)
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/memory_accuracy.py
	$(BIN)/python benchmarks/calibrate_speed.py --check
	$(BIN)/python benchmarks/speed_accuracy.py
	$(BIN)/python benchmarks/plan_speed.py
	$(BIN)/python benchmarks/web_speed.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
