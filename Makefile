# Two commands do all setup on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast install clean bench

# Python keeps its bytecode caches here even where the environment turns them off: without
# them every test worker rewrites and compiles every test module again (seconds per run).
# The install writes none (--no-compile): the first import writes those of the modules
# used, a small part of the dependencies' files (half the install's time)
unexport PYTHONDONTWRITEBYTECODE

# which kernels the install compiles: what `make run` and a user's first commands use; the
# test targets install with every kernel, in one queue of compile steps
WARMUP ?= run

# uv (from PyPI) installs the same packages as pip in a third of the time (7 s instead of
# 21 s, and pip's own upgrade, on a 2-core machine); pip installs them where uv cannot.
# Neither writes bytecode: the first import writes that of the modules used
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	{ $(BIN)/pip install -q uv && $(BIN)/uv pip install -q --python $(BIN)/python -e ".[test]"; } \
	  || { $(BIN)/pip install -q --upgrade pip && $(BIN)/pip install -q --no-compile -e ".[test]"; }
	$(BIN)/fattree warmup --only $(WARMUP)
	touch $(STAMP)

install: $(STAMP)

# `fattree warmup` returns at once when this version of the sources is compiled; after an
# edit it compiles the new version's kernels before the work, not inside each test worker
run: $(STAMP)
	$(BIN)/fattree warmup --only run
	$(BIN)/fattree study flagship -o out

# every test (the README's command; CI runs it through .ci/run), one worker per core
test test-fast: WARMUP = all
test: $(STAMP)
	$(BIN)/fattree warmup
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=15 tests src/fattree

# the tests not marked slow (under a minute on two cores)
test-fast: $(STAMP)
	$(BIN)/fattree warmup
	$(BIN)/python -m pytest -n auto --dist worksteal -m "not slow" tests src/fattree

bench: $(STAMP)
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

# also numba's on-disk caches (cache=True), stale when a kernel's dependency changes
clean:
	rm -rf $(VENV) out .pytest_cache
	find src -name '*.nbi' -delete -o -name '*.nbc' -delete
