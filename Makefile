# Two commands from a fresh Debian / Raspberry Pi OS machine with Python 3.11+:
#   make run    create .venv, install, start the main job (simulation by default)
#   make test   install what the tests need (Debian packages too when root), run everything
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Debian packages the test suite needs; installed by `make test` when run as root.
# mosquitto and postgresql: the fleet tests start throwaway servers of their own on free
# ports (PostgreSQL's programs from /usr/lib/postgresql/*/bin, run as nobody when root).
DEB_TEST_PACKAGES := chromium mosquitto postgresql
PYTEST_ARGS ?= -n auto

.PHONY: run run-terminal test lint typecheck check bench mutants soak clean deb-test-packages

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || \
	  { echo "knapp needs Python 3.11 or newer; found: $$($(PYTHON) --version 2>&1)"; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing python3-venv (Debian ships venv separately)"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv \
	      && $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "cannot create a virtual environment: run 'sudo apt-get install python3-venv' first"; \
	    exit 1; \
	  fi; }
	@$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.run-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@ $(VENV)/.run-installed

deb-test-packages:
	@missing=""; for p in $(DEB_TEST_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "missing Debian packages:$$missing (run make test as root to install them)"; fi; \
	fi

# The kiosk in simulation mode (prints the URL to open). Data goes to the
# per-user data directory; `make run-terminal` plays a match in the terminal instead
# (you against two bots, at the keyboard).
run: $(VENV)/.run-installed
	$(BIN)/knapp serve --sim

# You play the first seat from the keyboard (s v c t d, q quits); bots play the others.
SEAT ?= You
run-terminal: $(VENV)/.run-installed
	$(BIN)/knapp simulate --live --seat "$(SEAT)"

lint: $(VENV)/.test-installed
	$(BIN)/ruff check controller tests bench hardware
	@if [ -f firmware/ruff.toml ]; then $(BIN)/ruff check --config firmware/ruff.toml firmware; fi
	$(BIN)/lint-imports

typecheck: $(VENV)/.test-installed
	$(BIN)/mypy

test: $(VENV)/.test-installed deb-test-packages lint typecheck
	$(BIN)/python -m pytest $(PYTEST_ARGS)

check: test

bench: $(VENV)/.test-installed
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Mutation testing (not part of `make test`: it takes hours) with mutmut over the modules
# pyproject.toml's [tool.mutmut] names; MUTATE=controller/pads/clocksync.py (or a folder)
# runs one module. It goes on where it stopped; the table per module follows, and
# docs/mutation.md says why the survivors left are equivalent.
MUTATE ?=
mutants: $(VENV)/.test-installed
	nice $(BIN)/mutmut run --max-children 2 \
	  $(if $(MUTATE),"$(subst /,.,$(patsubst %/,%,$(MUTATE:.py=))).*")
	$(BIN)/python bench/mutation_table.py

# Hours of unattended play in simulated time with kills, power cuts, a filling disk and a
# hostile client (bench/soak.py); SOAK_ARGS="--hours 8 --seed 2" changes the run.
SOAK_ARGS ?=
soak: $(VENV)/.test-installed
	$(BIN)/python bench/soak.py $(SOAK_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis build *.egg-info mutants
