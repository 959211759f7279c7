#!/usr/bin/env bash
# Every test: formatting and lints (rustfmt, clippy, ESLint), Rust unit and integration
# tests (including real Chromium and Firefox ESR, headless, no debugger), the
# extension's JS unit tests, and web-ext lint.
# Installs the browsers and npm tools first when it can.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh all

echo "==> cargo fmt --check, clippy -D warnings, ESLint"
cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
npx --no-install eslint .

echo "==> cargo build"
cargo build --workspace --all-targets --quiet

echo "==> JS unit tests (node --test)"
node --test extension/tests/

echo "==> web-ext lint"
lint_json=$(npx --no-install web-ext lint --source-dir extension --ignore-files 'tests/**' --self-hosted --output json)
errors=$(printf '%s' "$lint_json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);for(const e of r.errors)console.error(`  ${e.code}: ${e.message} (${e.file})`);console.log(r.errors.length)})')
echo "web-ext lint: $errors error(s)"
[ "$errors" = 0 ]

echo "==> cargo test (unit, integration, real-browser end to end)"
cargo test --workspace -- --test-threads=2

echo "==> observed-run detection under a CDP-driven browser (node --test)"
node --test tests/e2e/

echo "==> Windows under Wine: install, doctor, uninstall, registry, native host, sink"
tests/windows/wine-e2e.sh
