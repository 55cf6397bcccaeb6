# Two commands do all set-up on a fresh machine with Python 3.11+ and make:
#   make run    install what is needed and open the workstation on the bundled demo data
#   make test   install what is needed and run the whole test suite (ruff, mypy --strict,
#               the import contracts of pyproject.toml, pytest)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-0

.PHONY: run test install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/abp-tui $(ARGS)

test: $(STAMP)
	$(BIN)/ruff check abp_tui tests
	$(BIN)/ruff format --check abp_tui tests
	$(BIN)/mypy abp_tui tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/pytest -n $(or $(PYTEST_WORKERS),auto) $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
