# Manaforge. `make run` starts the platform; `make test` runs every check. Both install what they need first.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PROTOS := $(shell find proto/manaforge -name '*.proto')
GEN_STAMP := proto/manaforge/.generated

.PHONY: install proto run demo test lint typecheck unit stack bench arena golden clean check-proto soak

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) is needed (Debian: apt-get install python3.11 python3.11-venv)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade "pip==25.3"
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e . || $(BIN)/pip install --quiet --no-deps -e .
	touch $@

proto: $(GEN_STAMP)

# Generated code (messages, gRPC stubs and their mypy stubs) is built here and never edited by hand.
$(GEN_STAMP): $(STAMP) $(PROTOS)
	$(PY) -m deploy.protogen proto
	touch $@

check-proto: $(GEN_STAMP)
	$(PY) -m deploy.protogen --check proto

run: proto
	$(PY) -m deploy.launcher run

demo: proto
	$(PY) -m deploy.launcher demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: proto
	$(BIN)/mypy

unit: proto
	$(BIN)/pytest -q tests/engine

stack: proto
	$(BIN)/pytest -q tests/stack

test: proto check-proto lint typecheck
	$(BIN)/pytest -q -p no:cacheprovider -n 2 --durations=10

bench: proto
	$(PY) -m deploy.bench

arena: proto
	$(PY) -m deploy.arena

golden: proto
	$(PY) -m tests.engine.regen_golden

clean:
	rm -rf $(VENV) run .mypy_cache .ruff_cache .pytest_cache $(GEN_STAMP)
	find proto/manaforge -name '*_pb2*.py*' -delete

soak: proto
	$(PY) -m deploy.soak
