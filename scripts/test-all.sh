#!/usr/bin/env bash
# Every test: formatting and lints (rustfmt, clippy, ESLint), Rust unit and integration
# tests (including real Chromium and Firefox ESR, headless, no debugger), the
# extension's JS unit tests, web-ext lint, real-input popup tests under Xvfb, and
# Windows under Wine.
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

echo "==> web-ext lint of the Firefox package (no errors, no warnings)"
# Firefox users load what `unobserved pack` writes, so that is what must lint clean.
pack_dir=$(mktemp -d)
target/debug/unobserved pack --out "$pack_dir" 2>/dev/null >/dev/null
npx --no-install web-ext lint --source-dir "$pack_dir/firefox" --self-hosted --warnings-as-errors --output text
rm -rf "$pack_dir"

echo "==> cargo test (unit, integration, real-browser end to end)"
cargo test --workspace -- --test-threads=2

echo "==> observed-run detection under a CDP-driven Chromium and a WebKitWebDriver-driven WebKit (node --test)"
node --test tests/e2e/

echo "==> the popup as a person uses it: real keys in headed Chromium and Firefox under Xvfb"
tests/real-input/chromium.sh
tests/real-input/firefox.sh

echo "==> Windows under Wine: install, doctor, uninstall, registry, native host, sink"
tests/windows/wine-e2e.sh
