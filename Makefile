# One entry point for people and CI. Everything runs inside .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install browser test lint typecheck unit serve demo bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	@echo "==> $(VENV): a virtual environment of its own ($(PYTHON))"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "==> installing shitsuji and its dependencies (the first time takes a few minutes)"
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	touch $(STAMP)
	@echo "==> installed: $(BIN)/shitsuji --version"

browser:
	scripts/ensure-chromium

lint: install
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: install
	$(BIN)/mypy

unit: install browser
	$(BIN)/pytest -q

test: lint typecheck unit

serve: install
	$(BIN)/shitsuji serve

demo: install
	$(BIN)/shitsuji demo

bench: install
	$(BIN)/shitsuji bench japanese ../shared/data/ja
	$(BIN)/shitsuji bench locomo ../shared/data/locomo/locomo-dev.json
	$(BIN)/shitsuji bench longmemeval ../shared/data/longmemeval/lme-oracle-dev.json --pooled
	$(BIN)/shitsuji bench latency
	$(BIN)/shitsuji bench context ../shared/data/locomo/locomo-dev.json
	$(BIN)/shitsuji bench attacks

clean:
	rm -rf $(VENV) build dist src/*.egg-info .mypy_cache .pytest_cache .ruff_cache
