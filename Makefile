# Two commands do all setup on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install clean bench

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/fattree study flagship -o out

test: $(STAMP)
	$(BIN)/python -m pytest tests src/fattree

bench: $(STAMP)
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) out .pytest_cache
