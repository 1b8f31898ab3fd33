# SML Lab — every target sets up what it needs itself.
#   make run    create .venv, install the app, start it on its built-in data
#   make test   create .venv, install the app with test extras, run the whole suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test bench screenshots self-test system-deps frozen clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

system-deps:
	@sh build/system-deps.sh

run: system-deps $(STAMP)
	$(PY) -m app

test: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/lint-imports

bench: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -s -p no:cacheprovider -o addopts="" -m benchmark tests/benchmarks

screenshots: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m app --screenshots docs/screenshots

self-test: system-deps $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m app --self-test

frozen: system-deps $(STAMP)
	$(PY) -m pip install --quiet -e ".[build]"
	sh build/build.sh

clean:
	rm -rf $(VENV) build/work build/dist
