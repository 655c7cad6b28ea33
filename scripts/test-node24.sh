#!/usr/bin/env bash
# Runs the unit tier (`npm run test:unit`) and the suites of the PostgreSQL driver and store
# (project postgres) under Node 24 LTS, leaving this checkout untouched.
#
# Node 24 comes from the npm registry, the only network these machines have: the package
# `node-<platform>-<arch>` (what the `node` package's preinstall script fetches) holds the binary
# and its headers (include/node). It is installed straight into the temporary directory: the
# `node` package needs its install script approved under npm 11, and `npx -p node@24` shares one
# cache directory between concurrent runs, which reinstall it under each other.
# better-sqlite3 is a native module built for one Node ABI, so the project is copied (with
# node_modules, without .git) and better-sqlite3 rebuilt there under Node 24; node-gyp cannot
# download headers here, and npm_config_nodedir points it at the shipped ones.
#
#   bash scripts/test-node24.sh [vitest args]        # NODE24_VERSION=24 by default
#   KEEP_NODE24_COPY=1 bash scripts/test-node24.sh   # keep the copy for a second look
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

work="$(mktemp -d "${TMPDIR:-/tmp}/swe-scoring-node24-XXXXXX")"
cleanup() {
  if [[ -n "${KEEP_NODE24_COPY:-}" ]]; then echo "test-node24: copy kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

pkg="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
npm install --prefix "$work/node24" --no-save --no-audit --no-fund --prefer-offline --loglevel=error \
  "$pkg@${NODE24_VERSION:-24}" >/dev/null
nodedir="$work/node24/node_modules/$pkg"
node24="$nodedir/bin/node"
if [[ ! -x "$node24" || ! -f "$nodedir/include/node/node_version.h" ]]; then
  echo "test-node24: $pkg has no bin/node or include/node/node_version.h" >&2
  exit 1
fi
echo "test-node24: $("$node24" --version) from $pkg ($((SECONDS - started)) s)"

# The vite cache holds Node 20 paths and results: start without it.
rsync -a --exclude=/.git --exclude=/node_modules/.vite ./ "$work/project/"
echo "test-node24: project copied ($((SECONDS - started)) s)"

# Everything below runs with Node 24 first on PATH: npm, node-gyp and vitest all start `node`.
export PATH="$nodedir/bin:$PATH"
cd "$work/project"
# The build is cached per better-sqlite3 version and Node ABI (NODE24_NO_CACHE=1 rebuilds).
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
cache="${XDG_CACHE_HOME:-$HOME/.cache}/swe-scoring"
key="better-sqlite3-$(node -p 'require("better-sqlite3/package.json").version')-abi$(node -p 'process.versions.modules')-$(node -p 'process.platform + "-" + process.arch').node"
if [[ -z "${NODE24_NO_CACHE:-}" && -f "$cache/$key" ]]; then
  cp "$cache/$key" "$addon"
  echo "test-node24: better-sqlite3 from the cache ($cache/$key)"
else
  # node-gyp straight away (its `build-release` script): the install script would first try
  # GitHub for a prebuilt binary.
  (cd node_modules/better-sqlite3 && npm_config_nodedir="$nodedir" npm run --silent build-release >/dev/null)
  mkdir -p "$cache" && cp "$addon" "$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key"
fi
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get(); console.log('test-node24: better-sqlite3 loads under', process.version)"
echo "test-node24: better-sqlite3 ready ($((SECONDS - started)) s)"

SCORING_SECOND_RUNTIME=1 npm run test:unit -- --project postgres "$@"
