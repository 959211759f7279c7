use super::*;
use crate::domain::plan::{AutoBudget, DownloadWorkload, EncryptedWorkload, ParallelWorkload};
use serde_json::Value;

const MIB: u64 = 1 << 20;

/// The kind of error `change` makes of the default plan (checked against LIMITS, so the
/// answer does not depend on this machine's memory).
fn kind_of(change: impl FnOnce(&mut Plan)) -> Option<&'static str> {
    let mut plan = Plan::default();
    change(&mut plan);
    plan.validate_within(&LIMITS).err().map(|e| e.kind())
}

#[test]
fn the_default_plan_and_every_limit_itself_are_accepted() {
    assert_eq!(kind_of(|_| {}), None);
    let edges = |p: &mut Plan| {
        (p.size_bytes, p.reps, p.warmup) = (LIMITS.size_bytes.min, LIMITS.reps.max, 100);
        p.auto = Some(AutoBudget {
            max_reps: LIMITS.auto_max_reps.max,
            max_seconds: LIMITS.auto_max_seconds.max,
        });
        p.horizon = Some(0.5);
    };
    assert_eq!(kind_of(edges), None);
}

type Change = Box<dyn FnOnce(&mut Plan)>;

#[test]
fn each_rule_has_its_own_kind() {
    let cases: Vec<(&str, Change)> = vec![
        ("size-too-small", Box::new(|p| p.size_bytes = 0)),
        ("size-too-large", Box::new(|p| p.size_bytes = 5 << 30)),
        ("reps-out-of-range", Box::new(|p| p.reps = 0)),
        ("reps-out-of-range", Box::new(|p| p.reps = 1001)),
        ("warmup-out-of-range", Box::new(|p| p.warmup = 101)),
        ("horizon-out-of-range", Box::new(|p| p.horizon = Some(0.0))),
        (
            "horizon-out-of-range",
            Box::new(|p| p.horizon = Some(f64::NAN)),
        ),
        ("no-arms", Box::new(|p| p.bodies.clear())),
        (
            "repeated-body",
            Box::new(|p| p.bodies = vec![BodyKind::Blob, BodyKind::Blob]),
        ),
        (
            "repeated-transport",
            Box::new(|p| p.transports = vec![Transport::H2, Transport::H2]),
        ),
        (
            "tls-without-bodies",
            Box::new(|p| {
                p.bodies.clear();
                p.workloads.download = Some(DownloadWorkload { bytes: MIB });
                p.transports = vec![Transport::H2];
            }),
        ),
        (
            "negative-control-without-bodies",
            Box::new(|p| {
                p.bodies.clear();
                p.workloads.download = Some(DownloadWorkload { bytes: MIB });
                p.negative_control = true;
            }),
        ),
        (
            "no-chunk-sizes",
            Box::new(|p| p.workloads.encrypted = Some(encrypted(vec![]))),
        ),
        (
            "chunk-size-out-of-range",
            Box::new(|p| p.workloads.encrypted = Some(encrypted(vec![MIB, 65 * MIB]))),
        ),
        (
            "no-streams",
            Box::new(|p| p.workloads.parallel = Some(parallel(vec![]))),
        ),
        (
            "streams-out-of-range",
            Box::new(|p| p.workloads.parallel = Some(parallel(vec![1, 65]))),
        ),
        (
            "auto-reps-out-of-range",
            Box::new(|p| p.auto = Some(auto(0, 60))),
        ),
        (
            "auto-seconds-out-of-range",
            Box::new(|p| p.auto = Some(auto(30, 0))),
        ),
        // Each load's whole block: 600 x 2 reps, more than a run may take.
        (
            "load-blocks-over-reps",
            Box::new(|p| {
                p.block_reps = Some(600);
                p.loads = vec![
                    crate::domain::conditions::Load::None,
                    crate::domain::conditions::Load::Cpu,
                ];
            }),
        ),
    ];
    for (kind, change) in cases {
        assert_eq!(kind_of(change), Some(kind));
    }
}

#[test]
fn every_size_in_a_plan_is_held_to_the_same_limits() {
    let huge = 5 << 30;
    let encrypted_file = kind_of(|p| {
        p.workloads.encrypted = Some(EncryptedWorkload {
            file_bytes: huge,
            chunk_sizes: vec![MIB],
        })
    });
    let download = kind_of(|p| p.workloads.download = Some(DownloadWorkload { bytes: 1 }));
    let parallel_body = kind_of(|p| {
        p.workloads.parallel = Some(ParallelWorkload {
            bytes: huge,
            streams: vec![2],
        })
    });
    assert_eq!(encrypted_file, Some("size-too-large"));
    assert_eq!(download, Some("size-too-small"));
    assert_eq!(parallel_body, Some("size-too-large"));
}

fn encrypted(chunk_sizes: Vec<u64>) -> EncryptedWorkload {
    EncryptedWorkload {
        file_bytes: 64 * MIB,
        chunk_sizes,
    }
}

fn parallel(streams: Vec<u32>) -> ParallelWorkload {
    ParallelWorkload {
        bytes: MIB,
        streams,
    }
}

fn auto(max_reps: u32, max_seconds: u64) -> AutoBudget {
    AutoBudget {
        max_reps,
        max_seconds,
    }
}

/// The JS module the extension imports: the fixture's data, since an extension cannot
/// read files at run time.
fn js_module(data: &Value) -> String {
    format!(
        "// Generated from host/src/domain/plan/validate.rs by\n\
         // `UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib plan::validate`: do not\n\
         // edit. The same data as tests/fixtures/plan-limits.json (extension/tests checks).\n\
         export const PLAN_LIMITS = {};\n",
        serde_json::to_string_pretty(data).unwrap()
    )
}

#[test]
fn the_shared_fixture_holds_the_body_kinds_transports_and_limits_of_the_core() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let data = shared_data();
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        let json = serde_json::to_string_pretty(&data).unwrap() + "\n";
        std::fs::write(format!("{root}/tests/fixtures/plan-limits.json"), json).unwrap();
        std::fs::write(
            format!("{root}/extension/lib/plan-limits.js"),
            js_module(&data),
        )
        .unwrap();
    }
    let text = std::fs::read_to_string(format!("{root}/tests/fixtures/plan-limits.json"));
    let fixture: Value = serde_json::from_str(&text.unwrap()).unwrap();
    assert_eq!(fixture, data);
}
