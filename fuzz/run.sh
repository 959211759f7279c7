#!/usr/bin/env bash
# Runs every fuzz target for a bounded time and prints executions and crashes.
#   fuzz/run.sh [seconds per target, default 60]
# Needs cargo-fuzz (`cargo install cargo-fuzz`). The toolchain here is stable, so
# RUSTC_BOOTSTRAP lets cargo fuzz use the sanitizer flags it needs.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
export RUSTC_BOOTSTRAP=1
for target in native_frames sink_request store_lines; do
  mkdir -p "corpus/$target" "artifacts/$target"
  log="artifacts/$target/run.log"
  set +e
  cargo fuzz run "$target" "corpus/$target" -- -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1
  code=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1 || true)
  crashes=$(find "artifacts/$target" -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' | wc -l)
  echo "$target: ${execs:-?} executions in ${secs}s, $crashes crash(es), exit $code"
done
