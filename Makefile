# The two commands: `make run` and `make test`. Both create .venv and install what they need.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint install services clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/chuhan serve --host 127.0.0.1 --port 8000 --data-dir data

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

# Chromium, CJK fonts, nginx, PostgreSQL and Redis: installed and started when missing (as
# root), or one message naming the command to run.
services:
	tools/test-services

test: $(STAMP) services
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest -n 2 --timeout 600

clean:
	rm -rf $(VENV) data
