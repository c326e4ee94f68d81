# The two commands: `make run` and `make test`. Both create .venv and install what they need.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The compiled rules core and search (mypyc, chuhan/native.py), rebuilt when a source changes;
# a stale build is never used (the import finder checks every source's hash).
NATIVE := $(VENV)/chuhan-native/manifest.json
NATIVE_SOURCES := src/chuhan/native.py $(addprefix src/chuhan/rules/,geometry.py board.py \
	janggi.py jieqi.py wxf.py) $(addprefix src/chuhan/engine/,evaluation.py search.py jieqi.py variants.py)
# The rules and engine tests run a second time on the pure-Python modules (the fallback).
PURE_TESTS := tests/test_rules_xiangqi.py tests/test_janggi.py tests/test_jieqi.py \
	tests/test_engine.py tests/test_engine_tactics.py tests/test_engine_book.py \
	tests/test_native.py tests/test_uci.py tests/test_wxf.py tests/test_engine_memory.py

.PHONY: run test test-fast lint install services clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

$(NATIVE): $(STAMP) $(NATIVE_SOURCES)
	$(PY) -c 'import sys, chuhan.native as n; sys.exit(n.main(["build"]))'

install: $(STAMP) $(NATIVE)

run: $(STAMP) $(NATIVE)
	$(VENV)/bin/chuhan serve --host 127.0.0.1 --port 8000 --data-dir data

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench tools
	$(VENV)/bin/ruff format --check src tests bench tools
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports  # the server's layers (pyproject.toml, [tool.importlinter])

# Chromium, CJK fonts, nginx, PostgreSQL and Redis: installed and started when missing (as
# root), or one message naming the command to run.
services:
	tools/test-services

test: $(STAMP) $(NATIVE) services
	$(VENV)/bin/ruff check src tests bench tools
	$(VENV)/bin/ruff format --check src tests bench tools
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(VENV)/bin/pytest -n 2 --timeout 600
	CHUHAN_PURE_PYTHON=1 $(VENV)/bin/pytest -n 2 --timeout 600 -q $(PURE_TESTS)

# The fast tier: rules, engine, notation, records and the server's pure rules, with no service
# and no other process (FAST_FILES in tests/conftest.py); about 25 s of CPU, for while you work.
test-fast: $(STAMP) $(NATIVE)
	$(VENV)/bin/pytest -n 2 -q -m fast

clean:
	rm -rf $(VENV) data
