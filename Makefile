# Two commands matter: `make run` (set up, index the samples with the Prefect flow, query) and
# `make test`. Everything installs into .venv at the repo root.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_VERBOSITY := error
export TOKENIZERS_PARALLELISM := false

.PHONY: install run test test-fast lint bench fuzz clean browser

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# The CPU build of torch first: a bare `torch` requirement would pull a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m flows.ingest samples index
	$(BIN)/docmill query index "How do I install Lumen on Linux?" --k 3
	$(BIN)/docmill query index "LRU cache eviction" --k 3 --mode hybrid
	$(BIN)/docmill query index "bm25 only: rate limiter tokens" --k 3 --mode bm25

# The search page is tested in a real headless browser (tests/docmill/test_page.py): Debian's
# chromium + chromium-driver; Arabic table cells are drawn with DejaVu Sans (fonts-dejavu-core,
# tests/parsers/test_unruled.py); Chinese on the page with Noto Sans CJK (fonts-noto-cjk; without
# it Chromium draws boxes). Installed once when any is missing (as root, or through sudo).
CJK_FONT := /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
browser:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver \
		-a -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf -a -f $(CJK_FONT) || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver \
			fonts-dejavu-core fonts-noto-cjk; }

test: $(STAMP) browser
	$(BIN)/pytest -q

test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not slow and not integration"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/pip install --quiet -e ".[bench]"
	$(BIN)/python bench/run_all.py

fuzz: $(STAMP)
	DOCMILL_FUZZ_EXAMPLES=$${DOCMILL_FUZZ_EXAMPLES:-2000} $(BIN)/pytest -q tests/fuzz

clean:
	rm -rf $(VENV) index .pytest_cache .mypy_cache .ruff_cache
