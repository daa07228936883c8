# The commands of the README: `make demo`, `make test` (the fast run) and `make test-all` (the whole suite, .ci/run's).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo replay-demo test test-slow test-all bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# every install takes the versions constraints.txt names: a fresh clone gets what the suite passed with
PIP_INSTALL := $(BIN)/python -m pip install --quiet -c constraints.txt

# what the commands need (the HTML report included), and no more: `make demo` stays light
$(VENV)/.installed-main: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP_INSTALL) -e '.[html]'
	touch $@

# the test suite's extras (pytest, hypothesis, the MCP SDK, dask, moto, mkdocs...)
$(VENV)/.installed: pyproject.toml constraints.txt $(VENV)/.installed-main
	$(PIP_INSTALL) -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed-main
	$(BIN)/toolaudit scan sample_logs/

# replay a recorded session's Bash greps through a dedicated, capped grep (tests/fixtures/)
replay-demo: $(VENV)/.installed-main
	$(BIN)/toolaudit replay tests/fixtures/search_session.jsonl --workspace tests/fixtures/search_repo \
		--translate shell-search --tool 'grep=builtin:grep?max_matches=100&max_bytes=10000' \
		--tool 'glob=builtin:glob' --tool 'Read=builtin:read_file?max_chars=5000'

# the fast run: every test not marked `slow` (browser, terminal, cluster, real-corpus sweeps: see tests/conftest.py),
# on two workers (pytest-xdist): a contributor's two cores. The rewritten test modules are kept as bytecode
# even where PYTHONDONTWRITEBYTECODE is set (rewriting ~240 modules again costs each worker ~11 s a run)
test: install
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -m 'not slow' -n 2

# the tests marked `slow`, and no other
test-slow: install
	$(BIN)/python -m pytest -m slow

# the whole suite, as .ci/run runs it: each test once, the fast ones first
test-all: test test-slow

bench: install
	$(BIN)/python benchmarks/bench_scan.py

clean:
	rm -rf $(VENV) build *.egg-info
