# Production Orchestrator. `make demo` and `make test` set themselves up on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PYTHONPATH := $(CURDIR)/functions
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20

.PHONY: setup demo test lint typecheck unit evidence clean synth cfn-lint demo-aws evidence-aws evidence-providers evidence-live \
	browser-deps serve torture torture-ci bench screens cost evidence-outbox week-model corpus-providers docs

# The package itself is installed editable, so .venv/bin/production-orchestrator and
# `python -m production_orchestrator` work without PYTHONPATH. Everything else comes from the lock, each file
# checked against its sha256 (the locked pip and setuptools too, which then build the package).
$(STAMP): requirements-dev.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --require-hashes -r requirements-dev.lock
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

setup: $(STAMP)

# requirements.txt / requirements-dev.txt -> requirements.lock, requirements-core.lock (the Lambda assets) and
# requirements-dev.lock (.venv), every distribution with its hashes (scripts/lock.py, uv). Needs the registry.
.PHONY: lock
lock: $(STAMP)
	$(PY) scripts/lock.py

# The CDK CLI (npm package aws-cdk, pinned in package.json) lives in node_modules/, not globally.
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

# No credentials; builds the Lambda assets with Python 3.12 (pip wheels for the Lambda platform from PyPI,
# cached in ~/.cache/production-orchestrator after the first build). The CLI runs on node_modules' Node 22.
synth: $(STAMP) $(NODE_STAMP)
	npx cdk synth --quiet

cfn-lint: synth
	$(VENV)/bin/cfn-lint --ignore-checks W3005 -- cdk.out/ProductionOrchestrator.template.json

demo: $(STAMP)
	$(PY) scripts/demo.py

# The synthesized Step Functions workflow on a local moto server, each Lambda call a fresh process.
demo-aws: $(STAMP)
	$(PY) scripts/demo_aws.py

evidence-aws: $(STAMP)
	$(PY) scripts/evidence_aws.py

lint: $(STAMP)
	$(VENV)/bin/ruff check functions infra tests scripts app.py
	$(VENV)/bin/ruff format --check functions infra tests scripts app.py

typecheck: $(STAMP)
	$(VENV)/bin/mypy

test: $(STAMP) lint typecheck
	$(PY) -m pytest -n 2 tests --ignore=tests/e2e

# The synthesized state machine executed on a moto server, every Lambda call a fresh process, and the deploy
# guide's steps as written (docs/how-to/deploy.md) (~4 min on 2 cores): its own target to keep `make test` within 10 minutes; CI runs both.
.PHONY: e2e
e2e: $(STAMP)
	$(PY) -m pytest -n 2 tests/e2e

# The whole e-mail corpus (tests/corpus/) read through the deterministic, Bedrock and Ollama clients (~3 min);
# `make test` reads a sample of it.
corpus-providers: $(STAMP)
	PO_FULL_CORPUS=1 $(PY) -m pytest -q tests/integration/test_providers_corpus.py

# Races, SIGKILL at every persistence point, tampering, hostile input: writes evidence/torture.json (~6 min).
torture: $(STAMP)
	$(PY) scripts/torture.py --size full

# The same families with small counts (~2.5 min), for CI; the report goes to a temp file.
torture-ci: $(STAMP)
	$(PY) scripts/torture.py --size ci --out $(or $(TMPDIR),/tmp)/torture-ci.json

# A shop's week, model-based, on SQLite and DynamoDB-on-moto with more and longer sequences than make test.
week-model: $(STAMP)
	PO_WEEK_EXAMPLES=$(or $(EXAMPLES),20) PO_WEEK_STEPS=$(or $(STEPS),30) $(PY) -m pytest -q tests/integration/test_week_model.py

# Benchmarks (not timed tests): writes evidence/bench.json. Quote medians; this machine is noisy.
bench: $(STAMP)
	$(PY) scripts/bench.py

# The planner against an independent OR-Tools CP-SAT model of the same rules on seeded shops of eight
# families and three sizes: writes evidence/bench_planner.json. CP-SAT's budget is work, not time, so the figures
# repeat on any machine (~31 min measured on 2 loaded cores, less idle). OR-Tools is dev-only.
.PHONY: bench-planner
bench-planner: $(STAMP)
	$(PY) scripts/bench_planner.py

# Debian's chromium and chromium-driver for the approval-page browser tests (tests/browser skip without them).
browser-deps:
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver)

# The approval pages of the local data dir on http://127.0.0.1:8765/ (links printed by start as APPROVAL_URL=).
serve: $(STAMP)
	$(PY) -m production_orchestrator serve

evidence: $(STAMP) evidence-providers evidence-aws evidence-outbox screens
	$(PY) scripts/evidence_local.py
	$(PY) scripts/evidence_policy.py

# Phone-sized screenshots of every approval page state, in headless Chromium, into evidence/screens/.
screens: $(STAMP) browser-deps
	PO_SCREENS_DIR=$(CURDIR)/evidence/screens $(PY) -m pytest -q tests/browser

# Deterministic, Bedrock and Ollama through their real Strands clients, against loopback servers (offline).
evidence-providers: $(STAMP)
	$(PY) scripts/evidence_providers.py

# The real service, not run in CI: make evidence-live PROVIDER=bedrock [MODEL=id REGION=r PROFILE=p]
PROVIDER ?= bedrock
evidence-live: $(STAMP)
	$(PY) scripts/evidence_providers.py --live --provider $(PROVIDER) $(if $(MODEL),--model $(MODEL)) \
		$(if $(REGION),--region $(REGION)) $(if $(PROFILE),--profile $(PROFILE)) \
		$(if $(OLLAMA_HOST),--ollama-host $(OLLAMA_HOST))

clean:
	rm -rf .production-orchestrator cdk.out .pytest_cache .mypy_cache .ruff_cache site

# The docs site: docs/reference/ written from the code (scripts/gen_reference.py; --check says whether the
# committed pages are current), then MkDocs (Material) into site/, strict and offline.
docs: $(STAMP)
	$(PY) scripts/gen_reference.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

# Monthly cost at 10 and 1,000 runs a day from the synthesized template (and evidence/bench.json): evidence/cost.json.
cost: $(STAMP)
	$(PY) scripts/cost_estimate.py
# Messages out, counted: approve -> outbox send twice to a loopback SMTP server, and the workflow on moto with
# SES (plus a retried send state); writes evidence/outbox.json (queued, delivered, duplicates).
evidence-outbox: $(STAMP)
	$(PY) scripts/evidence_outbox.py
# The approval policy, model-based (also run by `make evidence`): writes evidence/policy.json.
evidence-policy: $(STAMP)
	$(PY) scripts/evidence_policy.py

# A shop's week on docs/examples/ (import, three e-mails, approve, reject, a delivery, an order completes, a
# re-import with --dry-run), narrated; tests/contract/test_demo_week.py asserts every step.
.PHONY: demo-week
demo-week: $(STAMP)
	$(PY) scripts/demo_week.py

# A shop's month on the rehearsal clock: 20 working days of generated e-mails in five languages, decisions at
# human pace, deliveries, completions, a cancellation and an ERP re-import, every step a CLI process; exits 1 on a
# machine-day over capacity, a request lost or a message sent twice; writes evidence/month.json (~15 min on 2
# busy cores). tests/contract/test_demo_month.py runs it with --days 2 --emails 2.
.PHONY: demo-month
demo-month: $(STAMP)
	$(PY) scripts/demo_month.py
