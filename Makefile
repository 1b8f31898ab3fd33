# Thin wrappers around dev.py, which does all set-up itself (only Python is required).
PYTHON ?= python3
.PHONY: run test bench screenshots self-test frozen clean
run:         ; $(PYTHON) dev.py run
test:        ; $(PYTHON) dev.py test
bench:       ; $(PYTHON) dev.py bench
screenshots: ; $(PYTHON) dev.py screenshots
self-test:   ; $(PYTHON) dev.py self-test
frozen:      ; $(PYTHON) dev.py frozen
clean:       ; rm -rf .venv build/work build/dist
