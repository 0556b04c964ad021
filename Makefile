# Two commands do all the set-up on a fresh machine:
#   make demo   -- a scripted multi-day conversation on the embedded store
#   make test   -- the whole test suite (starts what the tests need, and stops it again;
#                  without Redis or Chromium their tests skip, one line per reason)
# Each creates .venv and installs the package; the base needs no torch. For the
# extras (`make test` installs all of them), a CPU build of torch goes in first:
# sentence-transformers ([st]) needs torch, and a plain `pip install torch` on Linux
# brings several GB of CUDA wheels. It comes from PyTorch's CPU index; where that
# index cannot be reached, the plain pin is installed instead (a machine with a
# local CPU wheel still gets that).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
TORCH  ?= torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test bench clean services

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.dev: $(VENV)/.base
	$(PIP) install --quiet --retries 1 "$(TORCH)" --index-url $(TORCH_INDEX) || $(PIP) install --quiet "$(TORCH)"
	$(PIP) install --quiet -e ".[all,dev]"
	touch $@

demo: $(VENV)/.base
	HF_HUB_OFFLINE=1 $(VENV)/bin/hindsight demo

services:
	bash scripts/services.sh start

# what `pip install "hindsight-memory[mcp]" langchain-mcp-adapters` gives (mcp 1.x): tests/mcp/test_langchain_adapters.py
.venv-mcp-clients/.made: pyproject.toml
	PYTHON=$(PYTHON) bash scripts/mcp_clients_venv.sh
	touch $@

# the type checker first (pyproject.toml: [tool.mypy]; a type error fails the run), then one shell: what
# services.sh started is stopped on the way out (a failure or Ctrl-C too), and pytest's exit code is make's
test: $(VENV)/.dev .venv-mcp-clients/.made
	$(PY) -m mypy
	bash scripts/services.sh start; \
	trap 'bash scripts/services.sh stop' EXIT; trap 'exit 130' INT TERM; \
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

.venv-peers/.mem0: $(VENV)/.dev
	bash benchmarks/peers_venv.sh
	touch $@

# every run behind a figure of the README and docs/benchmarks.md (benchmarks/__main__.py: FIGURES), then the
# plots and the rendered sections; hours on two cores. `python -m benchmarks all --dry-run` lists the runs.
bench: $(VENV)/.dev .venv-peers/.mem0
	HF_HUB_OFFLINE=1 $(PY) -m benchmarks all

clean:
	rm -rf $(VENV) .venv-peers .venv-mcp-clients .pytest_cache
