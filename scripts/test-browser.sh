#!/usr/bin/env bash
# The dashboard's browser tests (test/browser, Debian's chromium). Where chromium is missing they
# are skipped with a notice, except in CI (CI=true), where .ci/run installs it and a missing
# browser is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "browser tests: /usr/bin/chromium is missing (CI installs it with scripts/ensure-chromium.sh)" >&2
    exit 1
  fi
  echo "browser tests SKIPPED: /usr/bin/chromium is missing; install it with 'bash scripts/ensure-chromium.sh' (apt-get install chromium)"
  exit 0
fi
exec npx vitest run -c test/browser/vitest.config.ts "$@"
