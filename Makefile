# Two commands do all set-up on a fresh machine with Python 3.11+ and make:
#   make run    install what the workstation needs and open it on the bundled demo data
#   make test   install the test tools too and run the whole test suite (ruff, mypy --strict,
#               the import contracts of pyproject.toml, pytest)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# pip byte-compiles every file it installs unless told not to; SciPy alone is thousands of
# modules the workstation never imports. Python compiles what it does import, once, on first use.
PIP := $(BIN)/python -m pip install --disable-pip-version-check --no-compile --progress-bar on
RUN_STAMP := $(VENV)/.installed-run-1
DEV_STAMP := $(VENV)/.installed-dev-1

.PHONY: run test install install-dev clean

$(BIN)/python:
	@echo "Creating $(VENV) (once) ..."
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "Installing what the workstation needs into $(VENV) (once; about 220 MB) ..."
	$(PIP) -e .
	@touch $(RUN_STAMP)

$(DEV_STAMP): $(RUN_STAMP)
	@echo "Installing the test tools into $(VENV) (once) ..."
	$(PIP) -e '.[dev]'
	@touch $(DEV_STAMP)

install: $(RUN_STAMP)

install-dev: $(DEV_STAMP)

run: $(RUN_STAMP)
	$(BIN)/abp-tui $(ARGS)

test: $(DEV_STAMP)
	$(BIN)/ruff check abp_tui tests
	$(BIN)/ruff format --check abp_tui tests
	$(BIN)/mypy abp_tui tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest -n $(or $(PYTEST_WORKERS),auto) $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
