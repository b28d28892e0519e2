# Manaforge. `make run` starts the platform; `make test` runs every check. Both install what they need first.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PROTOS := $(shell find proto/manaforge -name '*.proto')
GEN_STAMP := proto/manaforge/.generated

.PHONY: install proto engines run demo test lint typecheck unit stack bench envbench arena arena-openspiel decisions predictability golden clean check-proto soak scale web chromium screenshots redis promtool podman image deploy-test upgrade-test sdk

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) is needed (Debian: apt-get install python3.11 python3.11-venv)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade "pip==25.3"
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e . || $(BIN)/pip install --quiet --no-deps -e .
	touch $@

proto: $(GEN_STAMP)

# Generated code (messages, gRPC stubs and their mypy stubs) is built here and never edited by hand.
$(GEN_STAMP): $(STAMP) $(PROTOS) deploy/protogen.py
	$(PY) -m deploy.protogen proto
	touch $@

# The rules modules compiled to C extensions with mypyc (deploy/engines.py says which), beside their sources; built
# when one is missing or an engine_core source changed since (build/engines.json records what the build read).
engines: $(GEN_STAMP)
	$(PY) -m deploy.engines

WEB := gateway/web
WEB_SOURCES := $(shell find $(WEB)/src -path $(WEB)/src/gen -prune -o -type f -print 2>/dev/null) \
	$(WEB)/index.html $(WEB)/vite.config.ts $(WEB)/tsconfig.json
WEB_BUILT := $(WEB)/dist/index.html

web: $(WEB_BUILT)

# The browser client: npm packages as package-lock.json pins them; TypeScript generated from proto/ (protoc-gen-es)
# under src/gen, never edited by hand; a Vite build into dist/. (Card facts come from GetCatalogue at run time.)
$(WEB)/node_modules/.package-lock.json: $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error

$(WEB_BUILT): $(GEN_STAMP) $(WEB)/node_modules/.package-lock.json $(WEB_SOURCES)
	rm -rf $(WEB)/src/gen && mkdir -p $(WEB)/src/gen
	$(PY) -m grpc_tools.protoc -Iproto -I"$$($(PY) -c 'import grpc_tools, os; print(os.path.dirname(grpc_tools.__file__))')/_proto" \
		--plugin=protoc-gen-es=$(WEB)/node_modules/.bin/protoc-gen-es --es_out=$(WEB)/src/gen --es_opt=target=ts \
		$(PROTOS:proto/%=%)
	cd $(WEB) && node_modules/.bin/tsc --noEmit && node_modules/.bin/vite build --logLevel warn

# Debian packages the targets below need, installed when missing (as root, or through sudo).
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# apt-get waits up to 10 minutes for another install's lock on the package manager instead of failing at once.
APT_GET := $(SUDO) apt-get -o DPkg::Lock::Timeout=600
apt_install = $(APT_GET) install -y $(1) || { $(APT_GET) update && $(APT_GET) install -y $(1); }

# The browser tests drive Debian's Chromium (headless); installed here when missing.
chromium: /usr/bin/chromium

/usr/bin/chromium:
	$(call apt_install,chromium)

# Redis 7 (Debian's redis-server, 7.0): the embedded Redis of `make run` and of the tests' stacks (deploy/launcher.py).
redis: /usr/bin/redis-server

/usr/bin/redis-server:
	$(call apt_install,redis-server)

# promtool checks the alert rules (deploy/prometheus/alerts.yml): Debian's prometheus package (its daemon is not
# started; tests/deploy/test_alerts.py runs promtool only).
promtool: /usr/bin/promtool

/usr/bin/promtool:
	$(call apt_install,--no-install-recommends prometheus)

# Containers: Debian's podman with the runc runtime (crun refuses the cgroup layout of these machines) and no default
# ulimits (they cannot be raised here), set in a drop-in of containers.conf; mmdebstrap makes base images. Named
# although podman only recommends them: netavark and aardvark-dns (pods find each other by name), catatonit (podman
# builds its pods' infra image from it where the registry's pause image cannot be pulled), iptables (netavark sets up
# a container network's rules with it: without it, a build step that uses the network fails "netavark: No such file
# or directory").
CONTAINERS_CONF := /etc/containers/containers.conf.d/50-manaforge.conf
PODMAN_PACKAGES := podman runc mmdebstrap netavark aardvark-dns catatonit iptables
podman: /usr/bin/podman /usr/sbin/runc /usr/bin/mmdebstrap /usr/bin/catatonit /usr/sbin/iptables $(CONTAINERS_CONF)

/usr/bin/podman /usr/sbin/runc /usr/bin/mmdebstrap /usr/bin/catatonit /usr/sbin/iptables:
	$(call apt_install,$(PODMAN_PACKAGES))

$(CONTAINERS_CONF): deploy/containers.conf | /usr/bin/podman
	@echo "podman: writing $@ (runtime = runc, default_ulimits = []; see deploy/containers.conf)"
	$(SUDO) install -D -m 644 $< $@

# The images, built with podman: Manaforge's (deploy/Dockerfile; tagged with its version and commit, and `current`)
# and a Redis 7 (deploy/images.py says from what).
image: install web podman
	$(PY) -m deploy.images

# The deployment test: the one-machine deployment as docs/deployment.md gives it (deploy/single-host: its secrets
# script, then `podman kube play` of its pod, over TLS), games played through the containers, the health checks and
# the operator's tools run from the image, one container of each kind killed mid-game (tests/deploy).
deploy-test: image proto engines
	$(BIN)/pytest -q -s -p no:cacheprovider tests/deploy --deploy

# The upgrade test: the previous release (its commit recorded in deploy/releases.txt, not a tag: a clone has none;
# `python -m deploy.releases` says which; a git worktree of it) replaced by this checkout one process at a time
# while games are under way (tests/upgrade/test_upgrade.py; docs/operations.md, Upgrading).
upgrade-test: proto engines redis
	$(BIN)/pytest -q -s -p no:cacheprovider tests/upgrade --upgrade

# docs/screenshots: a board of every game in the browser client (a stack of its own, headless Chromium).
screenshots: proto web chromium redis
	$(PY) -m tests.browser.screenshots

check-proto: $(GEN_STAMP)
	$(PY) -m deploy.protogen --check proto

run: proto engines web redis
	$(PY) -m deploy.launcher run

demo: proto engines redis
	$(PY) -m deploy.demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: proto
	$(BIN)/mypy

unit: proto engines
	$(BIN)/pytest -q tests/engine

stack: proto engines redis
	$(BIN)/pytest -q tests/stack

# The client SDK's wheel (docs/sdk.md), to install elsewhere: its protobuf modules are generated from proto/ as it
# is built. Its tests (tests/sdk) run in `make test`.
sdk: $(STAMP)
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir build/sdk ./sdk

test: proto engines check-proto lint typecheck web chromium redis promtool
	$(BIN)/pytest -q -p no:cacheprovider -n 2 --durations=10

bench: proto engines redis
	$(PY) -m deploy.bench

ARENA_LEVELS ?= heuristic,ismcts
arena: proto engines
	$(PY) -m deploy.arena --seats 2,3,4 --levels $(ARENA_LEVELS) --n 200 --jobs $$(nproc)

# Our default level against OpenSpiel's own ISMCTS bot at equal simulated actions (docs/envs.md).
arena-openspiel: proto engines
	$(PY) -m deploy.arena --seats 2,3 --levels ismcts,openspiel-ismcts --n 30 --jobs $$(nproc)

# PettingZoo and OpenSpiel environment steps/s beside RLCard's UNO environment (docs/envs.md).
envbench: proto engines
	$(PY) -m deploy.envbench

decisions: proto engines
	$(PY) -m deploy.decisions

predictability: proto engines
	$(PY) -m deploy.predictability --seats 2,3,4

golden: proto engines
	$(PY) -m tests.engine.regen_golden

clean:
	[ ! -x $(PY) ] || $(PY) -m deploy.engines --clean
	rm -rf $(VENV) run .mypy_cache .ruff_cache .pytest_cache $(GEN_STAMP) $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen
	find proto/manaforge -name '*_pb2*.py*' -delete

soak: proto engines redis
	$(PY) -m deploy.soak

scale: proto engines redis
	$(PY) -m deploy.scale
