//! Unobserved: measure fetch() uploads in an everyday browser with nothing attached,
//! and verify every byte that arrives.
//!
//! The modules by layer, lowest first: each imports only lower layers
//! (`host/tests/layers.rs` keeps it so; docs/architecture.md draws it).

/// layer 11. The command line: one file per subcommand.
pub mod cli;
/// layer 4. What the machine did while a run measured: the sampler, the loads, the calibration.
pub mod conditions;
/// layer 0. The vocabulary, pure: arms, plans and their limits, samples, runs, the timeline record; imports nothing else here.
pub mod domain;
/// layer 6. Every word and number format: the output formats (table, markdown, CSV, JSON, HTML) behind one trait.
pub mod export;
/// layer 10. `unobserved run`: browsers launched in throwaway profiles, interleaved runs, series.
pub mod launch;
/// layer 3. Workload modules on disk and the registry of those the user added.
pub mod modules;
/// layer 8. The native messaging host: one file per message, one dispatch.
pub mod native;
/// layer 1. What the binary stands on: the state dir, logging, TLS, exit codes, CPU, untrusted text, turns between runs.
pub mod platform;
/// layer 7. Native messaging: frames and every wire type (PROTOCOL.md).
pub mod protocol;
/// layer 5. Reports recomputed from the store: summaries, comparisons, phases, the checks, as data.
pub mod report;
/// layer 9. `unobserved serve`: the benchmark page over HTTP, for browsers without native messaging.
pub mod serve;
/// layer 3. The hashing sink: HTTP on loopback (or as `unobserved sink`) that takes uploads and records what arrived in its ledger.
pub mod sink;
/// layer 2. Numbers only: medians, intervals, comparisons and their verdicts, integrity tallies.
pub mod stats;
/// layer 3. The results store: `results.jsonl`, its records and typed warnings.
pub mod store;
/// layer 4. From a page's claim plus the sink's ledger record to the sample stored.
pub mod verify;
