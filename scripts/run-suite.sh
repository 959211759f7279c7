#!/usr/bin/env bash
# The main job: the default suite (32 MiB x 6 reps of Uint8Array, ArrayBuffer, Blob and
# ReadableStream) in a throwaway Chromium profile, headless, nothing attached, then the
# results table. Extra arguments go to `unobserved run` (try --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh chromium
cargo build --release --quiet
exec target/release/unobserved run --browser chromium "$@"
