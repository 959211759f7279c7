// Generated from host/src/domain/plan/validate.rs by
// `UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib plan::validate`: do not
// edit. The same data as tests/fixtures/plan-limits.json (extension/tests checks).
export const PLAN_LIMITS = {
  "auto_default": {
    "max_reps": 1000,
    "max_seconds": 60
  },
  "body_kinds": [
    "Uint8Array",
    "ArrayBuffer",
    "Blob",
    "ReadableStream"
  ],
  "limits": {
    "auto_max_reps": {
      "max": 1000,
      "min": 1
    },
    "auto_max_seconds": {
      "max": 864000,
      "min": 1
    },
    "chunk_bytes": {
      "max": 67108864,
      "min": 1024
    },
    "horizon": {
      "above": 0.0,
      "below": 1.0
    },
    "reps": {
      "max": 1000,
      "min": 1
    },
    "size_bytes": {
      "max": 4294967296,
      "min": 1024
    },
    "streams": {
      "max": 64,
      "min": 1
    },
    "warmup": {
      "max": 100,
      "min": 0
    }
  },
  "loads": [
    "none",
    "cpu"
  ],
  "page_return_ms": 30000,
  "plan_error_kinds": [
    "size-too-small",
    "size-too-large",
    "reps-out-of-range",
    "warmup-out-of-range",
    "no-arms",
    "unknown-body",
    "repeated-body",
    "repeated-transport",
    "tls-without-bodies",
    "negative-control-without-bodies",
    "no-chunk-sizes",
    "chunk-size-out-of-range",
    "no-streams",
    "streams-out-of-range",
    "horizon-out-of-range",
    "auto-reps-out-of-range",
    "auto-seconds-out-of-range",
    "block-reps-out-of-range",
    "load-blocks-over-reps",
    "repeated-load",
    "load-not-on-this-os",
    "repeated-api",
    "xhr-without-bodies",
    "repeated-module",
    "too-many-modules",
    "module-name-taken",
    "baseline-not-a-module",
    "module-timeout-out-of-range"
  ],
  "transports": [
    "h1",
    "h1-tls",
    "h2"
  ]
};
