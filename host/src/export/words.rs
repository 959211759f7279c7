//! Numbers and verdicts in words, one rule each: every report format here and the
//! extension's views (`extension/lib/words.js`, the popup, the summary tab and `serve`'s
//! page) write them alike. `tests/fixtures/formats.json` is written from these functions
//! by the test below and read by the extension's tests, so neither side can change a
//! rule alone.

use crate::domain::arm::Arm;
use crate::domain::plan::{AutoReason, AutoStop};
use crate::domain::run::EndReason;
use crate::domain::sample::SampleError;
use crate::domain::workload::{ModuleFailure, NotLoaded, CONTRACT};
use crate::report::chart_scale::Legend;
use crate::stats::compare::{Comparison, Verdict};
use crate::stats::integrity::IntegrityWhy;
use crate::stats::Integrity;

/// A browser as a reader is shown it: its name and version ("Chromium 156").
pub fn browser(env: &crate::domain::sample::Environment) -> String {
    format!("{} {}", env.browser, env.browser_version)
}

/// A SHA-256 as a reader is shown it: its first 12 hex digits.
pub fn short_sha(sha256: &str) -> String {
    sha256.chars().take(12).collect()
}

/// Whole Mbps, with decimals where whole numbers would round tiny bodies to 0:
/// "0.01", "42.3", "2190"; a dash for none.
pub fn mbps(v: Option<f64>) -> String {
    match v {
        Some(x) if x < 10.0 => format!("{x:.2}"),
        Some(x) if x < 100.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.0}"),
        None => "–".into(),
    }
}

/// "702–1036", or one dash without both ends.
pub fn range(min: Option<f64>, max: Option<f64>) -> String {
    match (min, max) {
        (Some(_), Some(_)) => format!("{}–{}", mbps(min), mbps(max)),
        _ => "–".into(),
    }
}

/// A median as a share of its link's (or sink's) ceiling: "76%"; a dash for none.
pub fn share(s: Option<f64>) -> String {
    s.map_or_else(|| "–".into(), |s| format!("{:.0}%", s * 100.0))
}

/// A horizon as a percentage: "5", "2.5".
fn percent(h: f64) -> String {
    let p = h * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// "faster", "same within ±5%", "not resolved", …
pub fn verdict(v: Verdict, horizon: f64) -> String {
    match v {
        Verdict::Faster => "faster".into(),
        Verdict::Slower => "slower".into(),
        Verdict::Same => format!("same within ±{}%", percent(horizon)),
        Verdict::NotResolved => "not resolved".into(),
        Verdict::NotComparable => "not comparable".into(),
        Verdict::Depends => "depends".into(),
    }
}

/// "1.95x [1.73–2.33]" at `digits` decimals, or the ratio with why it has no interval.
pub fn ratio(c: &Comparison, digits: usize) -> String {
    ratio_of(c.ratio, c.ci_low, c.ci_high, digits)
}

/// `ratio`, from its figures.
pub fn ratio_of(ratio: f64, lo: Option<f64>, hi: Option<f64>, digits: usize) -> String {
    match (lo, hi) {
        (Some(lo), Some(hi)) => format!("{ratio:.digits$}x [{lo:.digits$}–{hi:.digits$}]"),
        _ => format!("{ratio:.digits$}x [no 95% interval below 4 samples per arm]"),
    }
}

/// "1.26x [1.18–1.36] faster"; with parts (per condition, or blocks that parted),
/// "depends: 0.70x [0.65–0.76] slower when quiet; 1.61x [1.20–2.28] faster with the CPU
/// busy (this run's own load)".
pub fn comparison(c: &Comparison) -> String {
    if !c.parts.is_empty() {
        return super::conditions::comparison_text(c, 2);
    }
    format!("{} {}", ratio(c, 2), verdict(c.verdict, c.horizon))
}

/// "Blob h2 vs Blob h1: 1.10x [1.02–1.21] faster".
pub fn comparison_line(c: &Comparison) -> String {
    format!(
        "{} vs {}: {}",
        c.arm.label(),
        c.baseline.label(),
        comparison(c)
    )
}

/// The positive control's slowdown (detached / attached): "12.5x [11.7–13.4] slower
/// when attached", or a dash without a comparison.
pub fn slowdown(s: Option<&Comparison>) -> String {
    let Some(s) = s else {
        return "–".into();
    };
    // The ratio is detached / attached: "faster" means slower attached.
    let words = match s.verdict {
        Verdict::Faster => "slower when attached".to_owned(),
        Verdict::Slower => "faster when attached".to_owned(),
        v => verdict(v, s.horizon),
    };
    format!("{} {words}", ratio(s, 1))
}

/// The chart's legend: what the ceiling marks mean, or where a ceiling off the scale is.
pub fn legend(l: &Legend) -> String {
    let list = |v: &[f64]| {
        v.iter()
            .map(|c| mbps(Some(*c)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match l {
        Legend::OneCeiling { ceiling_mbps } => {
            format!("dashed: sink ceiling {} Mbps", mbps(Some(*ceiling_mbps)))
        }
        Legend::PerTransport => "dashed: the sink ceiling of each arm's transport".into(),
        Legend::OffScale {
            ceilings_mbps,
            times_edge,
        } => format!(
            "▸ sink ceiling {} Mbps, off the scale ({times_edge:.1}x the edge)",
            list(ceilings_mbps)
        ),
    }
}

/// One word for a table cell: "intact", "corrupted", "unsupported", …
pub fn integrity_word(i: &Integrity) -> &'static str {
    match i {
        Integrity::Intact => "intact",
        Integrity::Corrupted { .. } => "corrupted",
        Integrity::Unsupported { .. } => "unsupported",
        Integrity::Aborted { .. } => "aborted",
        Integrity::Error { .. } => "error",
        Integrity::NoSamples => "no samples",
    }
}

/// What arrived or what the browser said, when there is more than the word.
pub fn integrity_detail(i: &Integrity) -> Option<String> {
    match i {
        Integrity::Corrupted {
            bytes_received,
            head,
        } => Some(format!("received {bytes_received} bytes `{head}`")),
        Integrity::Unsupported {
            error,
            http_status,
            module_failure,
        }
        | Integrity::Aborted {
            error,
            http_status,
            module_failure,
        }
        | Integrity::Error {
            error,
            http_status,
            module_failure,
        } => Some(match (SampleError::of(error), module_failure) {
            // The module's own words, when it threw, after what went wrong.
            (None, Some(failure)) => format!("{} ({error})", module_failure_words(failure)),
            (_, Some(failure)) => module_failure_words(failure),
            (Some(kind), None) => sample_error(kind, *http_status),
            // The browser's own words, or an older sample's sentence, as they were.
            (None, None) => error.clone(),
        }),
        Integrity::Intact | Integrity::NoSamples => None,
    }
}

/// Why an upload failed, by its kind (and the sink's HTTP status, for `SinkStatus`).
pub fn sample_error(kind: SampleError, http_status: Option<u16>) -> String {
    match (kind, http_status) {
        (SampleError::FetchRejected, _) => "the browser rejected the upload".into(),
        (SampleError::SinkStatus, Some(status)) => format!("the sink answered HTTP {status}"),
        (SampleError::SinkStatus, None) => "the sink answered with an error status".into(),
        (SampleError::NoReply, _) => "the sink's answer could not be read".into(),
        (SampleError::DifferentBytes, _) => "the sink received other bytes than were sent".into(),
        (SampleError::NoRecord, _) => "the sink has no record of this upload".into(),
        (SampleError::NothingReceived, _) => "the sink reported no received bytes".into(),
        (SampleError::ModuleFailed, _) => "the workload module failed".into(),
    }
}

/// How a workload module failed (`domain::workload::ModuleFailure`), in words.
pub fn module_failure_words(failure: &ModuleFailure) -> String {
    match failure {
        ModuleFailure::NotLoaded { cause } => match cause {
            None | Some(NotLoaded::ImportFailed) => "the module could not be loaded".into(),
            Some(NotLoaded::OtherContract) => format!(
                "the module is not of contract {CONTRACT} (export const unobserved = {CONTRACT})"
            ),
            Some(NotLoaded::NoDefaultFunction) => "the module's default export is not a function \
                 (export default async function upload(ctx) {…})"
                .into(),
        },
        ModuleFailure::Threw => "the module threw".into(),
        ModuleFailure::TimedOut { timeout_ms: None } => "the module did not settle in time".into(),
        ModuleFailure::TimedOut {
            timeout_ms: Some(ms),
        } => format!("the module did not settle within {} s", *ms as f64 / 1000.0),
        ModuleFailure::Blocked { directive, url } => format!(
            "blocked by the page's Content-Security-Policy ({directive}): {url}; \
             a module may reach only the run's sink"
        ),
    }
}

/// Why an integrity finding happened, where the tool can explain it.
pub fn integrity_why(why: IntegrityWhy) -> &'static str {
    match why {
        IntegrityWhy::StreamUploadedAsText => "Firefox does not support a ReadableStream as a fetch() body: it uploads the stream's name as text, and fetch() still answers 200. An app that streams its uploads sends garbage in Firefox without any error.",
        IntegrityWhy::NoStreamUploads => "WebKitGTK does not upload a ReadableStream body over any transport: fetch() rejects it at once (NotSupportedError) and nothing is sent. Apple's WebKit enabled stream uploads over HTTP/2 in 2026, so Safari may differ.",
        IntegrityWhy::StreamNeedsHttp2 => "Chromium sends a ReadableStream body only over HTTP/2 or HTTP/3, and this sink spoke HTTP/1.1, so fetch() rejected it before sending anything. An h2 arm (`--transport h2`) measures it over HTTP/2.",
    }
}

/// Why an auto-sampled run stopped adding reps.
pub fn auto_stop(stop: AutoStop) -> &'static str {
    match stop {
        AutoStop::Settled => "every comparison is settled",
        AutoStop::BudgetReps => "the rep budget was spent",
        AutoStop::BudgetTime => "the time budget was spent",
    }
}

/// Why a run ended, typed (`domain::run::EndReason`), in words.
pub fn end_reason(reason: EndReason) -> &'static str {
    match reason {
        EndReason::SinkUnreachable => {
            "the sink went away: a sample's record could not be claimed from it"
        }
        EndReason::SinkStalled => "the sink stalled: it did not answer the host's own small upload",
        EndReason::PageStalled => {
            "the page or its browser stalled: the sink answered the host's own small upload at once"
        }
        EndReason::PageNotBack => {
            "the benchmark page reloaded itself for its next block and no fresh page came back"
        }
        EndReason::BenchTabClosed => "the benchmark tab closed before the run finished",
        EndReason::HostGone => "the extension lost the native host mid-run",
        EndReason::BackgroundStopped => {
            "the extension's background stopped mid-run (the browser ended it or it crashed)"
        }
        EndReason::PageFailed => "the benchmark page failed",
        EndReason::SampleNotStored => "the host did not store a sample",
    }
}

/// Why a run ended, in words: the typed reason, with the page's detail where the page's
/// side said it (a page's error); else the reason as stored (runs from before reasons
/// were typed, and the host's own count of missing samples).
pub fn end_words(why: Option<EndReason>, reason: Option<&str>) -> Option<String> {
    match (why, reason.filter(|r| !r.is_empty())) {
        (Some(why), Some(detail)) if why.told_by_page() => {
            Some(format!("{}: {detail}", end_reason(why)))
        }
        (Some(why), _) => Some(end_reason(why).to_owned()),
        (None, reason) => reason.map(str::to_owned),
    }
}

/// A run's end in words: its status, and why in brackets.
pub fn run_status(status: &str, why: Option<EndReason>, reason: Option<&str>) -> String {
    match end_words(why, reason) {
        Some(words) => format!("{status} ({words})"),
        None => status.to_owned(),
    }
}

/// `end_reason`, naming the sink (its origin) where the sink is the one at fault.
pub fn run_ended(reason: EndReason, sink: &str) -> String {
    format!("{} (sink {sink})", end_reason(reason))
}

/// A run that ran out of time.
pub fn timed_out(secs: u64) -> String {
    format!("the run did not finish within {secs}s (use --timeout to allow more)")
}

/// Why an auto-sampled run goes on or stops: "every comparison is settled", "not
/// settled: Blob, ReadableStream".
pub fn auto_reason(reason: &AutoReason) -> String {
    match reason {
        AutoReason::Settled => auto_stop(AutoStop::Settled).into(),
        AutoReason::BudgetReps => auto_stop(AutoStop::BudgetReps).into(),
        AutoReason::BudgetTime => auto_stop(AutoStop::BudgetTime).into(),
        AutoReason::NothingToCompare => "nothing settled to compare yet".into(),
        AutoReason::NotSettled { unsettled } => {
            let labels: Vec<String> = unsettled.iter().map(Arm::label).collect();
            format!("not settled: {}", labels.join(", "))
        }
        AutoReason::CheckFailed { error } => format!("auto-check failed: {error}"),
    }
}

/// The end reason of an auto-sampled run whose every step ran, which the page sends
/// with `run-finished`: "auto: every comparison is settled after 12 samples".
pub fn auto_done(reason: &AutoReason, samples: usize) -> String {
    format!("auto: {} after {samples} samples", auto_reason(reason))
}

/// "intact", or "corrupted: received 23 bytes `[object ReadableStream]`".
impl std::fmt::Display for Integrity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match integrity_detail(self) {
            Some(detail) => write!(f, "{}: {detail}", integrity_word(self)),
            None => f.write_str(integrity_word(self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::{Arm, ArmKind, BodyKind};
    use crate::stats::compare::Side;
    use serde_json::{json, Value};
    use strum::IntoEnumIterator;

    fn side(body: BodyKind) -> Side {
        Side::Arm {
            arm: Arm {
                kind: ArmKind::Body { body },
                transport: None,
                condition: None,
                api: None,
                repeat: false,
            },
        }
    }

    fn compared(ratio: f64, ci: Option<(f64, f64)>, horizon: f64, verdict: Verdict) -> Comparison {
        Comparison {
            arm: side(BodyKind::Blob),
            baseline: side(BodyKind::Uint8Array),
            ratio,
            ci_low: ci.map(|c| c.0),
            ci_high: ci.map(|c| c.1),
            horizon,
            verdict,
            blocks: None,
            parts: Vec::new(),
        }
    }

    /// Every case the extension's views must write as these functions do, ties and
    /// edges included (Rust rounds an exact tie to even).
    fn shared_cases() -> Value {
        let values = [
            0.0, 0.0123, 0.125, 5.234, 9.995, 10.25, 42.34, 99.96, 100.5, 101.5, 1036.4, 2189.6,
            14587.0,
        ];
        let comparisons = [
            compared(1.2634, Some((1.18, 1.3649)), 0.05, Verdict::Faster),
            compared(0.8, Some((0.7, 0.9)), 0.05, Verdict::Slower),
            compared(1.01, Some((0.99, 1.02)), 0.025, Verdict::Same),
            compared(1.125, Some((0.8, 1.4)), 0.05, Verdict::NotResolved),
            compared(1.0, None, 0.05, Verdict::NotResolved),
            compared(1.3, Some((1.1, 1.5)), 0.05, Verdict::NotComparable),
            compared(12.46, Some((11.7, 13.4)), 0.05, Verdict::Faster),
        ];
        let legends = [
            Legend::OneCeiling {
                ceiling_mbps: 1000.0,
            },
            Legend::PerTransport,
            Legend::OffScale {
                ceilings_mbps: vec![14587.0, 52.25],
                times_edge: 3.625,
            },
        ];
        let shares = [
            Some(0.0),
            Some(0.005),
            Some(0.4),
            Some(0.7649),
            Some(0.765),
            Some(1.0),
            Some(1.25),
            None,
        ];
        let integrity = [
            Integrity::Intact,
            Integrity::Corrupted {
                bytes_received: 23,
                head: "[object ReadableStream]".into(),
            },
            Integrity::Unsupported {
                error: "TypeError: Failed to fetch".into(),
                http_status: None,
                module_failure: None,
            },
            Integrity::Error {
                error: "sink-status".into(),
                http_status: Some(413),
                module_failure: None,
            },
            Integrity::Aborted {
                error: "sent 10 bytes, the sink received 5 with a different SHA-256".into(),
                http_status: None,
                module_failure: None,
            },
            Integrity::Error {
                error: "module-failed".into(),
                http_status: None,
                module_failure: Some(ModuleFailure::TimedOut {
                    timeout_ms: Some(2500),
                }),
            },
            Integrity::Error {
                error: "Error: no route".into(),
                http_status: None,
                module_failure: Some(ModuleFailure::Threw),
            },
            Integrity::NoSamples,
        ];
        let sample_errors = SampleError::iter().flat_map(|kind| {
            [None, Some(429)].map(|status| {
                json!({"kind": kind, "http_status": status, "text": sample_error(kind, status)})
            })
        });
        let mut comparisons = comparisons.to_vec();
        comparisons.extend(parted());
        json!({
            "mbps": values.iter().map(|v| json!({"value": v, "text": mbps(Some(*v))}))
                .chain([json!({"value": null, "text": mbps(None)})]).collect::<Vec<_>>(),
            "comparisons": comparisons.iter().map(|c| json!({
                "comparison": c, "text": comparison(c), "line": comparison_line(c),
                "slowdown": slowdown(Some(c)),
                "versus": crate::export::conditions::versus_cell(c, &c.baseline.label()),
            })).collect::<Vec<_>>(),
            "no_slowdown": slowdown(None),
            "shares": shares.iter().map(|s| json!({"value": s, "text": share(*s)}))
                .collect::<Vec<_>>(),
            "legends": legends.iter().map(|l| json!({"legend": l, "text": legend(l)}))
                .collect::<Vec<_>>(),
            "sample_errors": sample_errors.collect::<Vec<_>>(),
            "module_failures": module_failures().iter()
                .map(|f| json!({"failure": f, "text": module_failure_words(f)}))
                .collect::<Vec<_>>(),
            "integrity": integrity.iter().map(|i| json!({
                "integrity": i, "word": integrity_word(i), "detail": integrity_detail(i),
            })).collect::<Vec<_>>(),
            "conditions": crate::export::conditions::tests::shared_cases(),
            "end_reasons": EndReason::iter()
                .map(|r| json!({"end_reason": r, "text": end_reason(r)}))
                .collect::<Vec<_>>(),
            "end_words": end_words_cases(),
            "module_changed": module_changed(),
            "auto_reasons": auto_reasons().iter().map(|r| json!({
                "reason": r, "text": auto_reason(r), "done": auto_done(r, 12),
            })).collect::<Vec<_>>(),
        })
    }

    /// How a run's end is worded: a page's reason with its detail, one without, the
    /// host's (a page's word beside it is not shown), and reasons from before types.
    fn end_words_cases() -> Vec<Value> {
        [
            (Some(EndReason::PageFailed), Some("TypeError: x is undefined")),
            (Some(EndReason::BenchTabClosed), None),
            (Some(EndReason::HostGone), Some("")),
            (Some(EndReason::SinkStalled), Some("a page's word, not shown")),
            (Some(EndReason::PageStalled), None),
            (None, Some("")),
            (Some(EndReason::SinkUnreachable), Some("a page's word, not shown")),
            (None, Some("a reason stored before reasons were typed")),
            (None, None),
        ]
        .map(|(why, reason)| {
            json!({"end_reason": why, "reason": reason, "text": end_words(why, reason)})
        })
        .into()
    }

    /// Every way a module fails, each cause of not loading, with and without its number.
    fn module_failures() -> Vec<ModuleFailure> {
        use strum::IntoEnumIterator;
        let not_loaded = NotLoaded::iter().map(Some).chain([None]);
        let not_loaded = not_loaded.map(|cause| ModuleFailure::NotLoaded { cause });
        not_loaded
            .chain([
                ModuleFailure::Threw,
                ModuleFailure::TimedOut {
                    timeout_ms: Some(30_000),
                },
                ModuleFailure::TimedOut { timeout_ms: None },
                ModuleFailure::Blocked {
                    directive: "connect-src".into(),
                    url: "http://127.0.0.1:9/collect".into(),
                },
            ])
            .collect()
    }

    /// A run of a registered module whose file changed: its warning as the analysis
    /// carries it (kind, fields, message), and the words the popup must show for it.
    fn module_changed() -> Value {
        let w = crate::report::Warning::ModuleChanged {
            name: "mine".parse().unwrap(),
            sha256: "ab".repeat(32),
            registered_sha256: "0c".repeat(32),
        };
        let mut finding = serde_json::to_value(&w).unwrap();
        finding["message"] = json!(w.to_string());
        json!({ "finding": finding, "text": w.to_string() })
    }

    /// One reason of every kind, two arms unsettled (a transport among them).
    fn auto_reasons() -> Vec<AutoReason> {
        use crate::domain::plan::AutoReasonKind;
        use strum::IntoEnumIterator;
        let h2 = Arm {
            transport: Some(crate::domain::arm::Transport::H2),
            ..side(BodyKind::Uint8Array).arm().clone()
        };
        AutoReasonKind::iter()
            .map(|kind| match kind {
                AutoReasonKind::Settled => AutoReason::Settled,
                AutoReasonKind::BudgetReps => AutoReason::BudgetReps,
                AutoReasonKind::BudgetTime => AutoReason::BudgetTime,
                AutoReasonKind::NothingToCompare => AutoReason::NothingToCompare,
                AutoReasonKind::NotSettled => AutoReason::NotSettled {
                    unsettled: vec![side(BodyKind::Blob).arm().clone(), h2.clone()],
                },
                AutoReasonKind::CheckFailed => AutoReason::CheckFailed {
                    error: "the host is gone".into(),
                },
            })
            .collect()
    }

    /// Comparisons with parts: per condition (disagreeing, and agreeing), and by blocks
    /// that parted (apart, and not yet apart), one part without an interval.
    fn parted() -> Vec<Comparison> {
        use crate::domain::conditions::{Condition, Load, Pressure};
        use crate::stats::blocks::{Part, PartOf};
        let part = |of: PartOf, ratio: f64, ci: Option<(f64, f64)>, verdict: Verdict| Part {
            of,
            ratio,
            ci_low: ci.map(|c| c.0),
            ci_high: ci.map(|c| c.1),
            verdict,
            settled: verdict != Verdict::NotResolved,
            too_few_blocks: false,
            blocks: None,
        };
        // A burst of other work over too few blocks to judge (`Part::too_few_blocks`).
        let brief = |of: PartOf, ratio: f64| Part {
            too_few_blocks: true,
            ..part(of, ratio, None, Verdict::NotResolved)
        };
        let quiet = PartOf::Condition {
            condition: Condition::default(),
        };
        let loaded = PartOf::Condition {
            condition: Condition {
                load: Load::Cpu,
                ..Condition::default()
            },
        };
        let busy_io = PartOf::Condition {
            condition: Condition {
                load: Load::None,
                pressures: vec![Pressure::Cpu, Pressure::Io],
                unmeasured: false,
            },
        };
        let blocks = |b: &[u32]| PartOf::Blocks { blocks: b.to_vec() };
        let (quiet_too, busy_too) = (quiet.clone(), busy_io.clone());
        let with = |mut c: Comparison, parts: Vec<Part>| {
            c.parts = parts;
            c
        };
        vec![
            with(
                compared(0.985, None, 0.05, Verdict::Depends),
                vec![
                    part(
                        quiet.clone(),
                        0.7049,
                        Some((0.655, 0.7649)),
                        Verdict::Slower,
                    ),
                    part(loaded.clone(), 1.605, Some((1.2, 2.28)), Verdict::Faster),
                ],
            ),
            with(
                compared(1.2, None, 0.05, Verdict::Faster),
                vec![
                    part(quiet, 1.18, Some((1.1, 1.26)), Verdict::Faster),
                    part(busy_io, 1.25, Some((1.125, 1.4)), Verdict::Faster),
                ],
            ),
            with(
                compared(1.1, None, 0.05, Verdict::Depends),
                vec![
                    part(blocks(&[0, 2, 4]), 0.9, Some((0.85, 0.95)), Verdict::Slower),
                    part(blocks(&[1, 3, 5]), 1.95, Some((1.8, 2.1)), Verdict::Faster),
                ],
            ),
            with(
                compared(1.05, Some((0.9, 1.3)), 0.05, Verdict::NotResolved),
                vec![
                    part(blocks(&[0, 1]), 0.98, None, Verdict::NotResolved),
                    part(
                        blocks(&[2, 3, 4]),
                        1.2,
                        Some((0.97, 1.5)),
                        Verdict::NotResolved,
                    ),
                ],
            ),
            with(
                compared(1.3, None, 0.05, Verdict::Faster),
                vec![
                    part(quiet_too, 1.31, Some((1.22, 1.4)), Verdict::Faster),
                    brief(busy_too, 0.9),
                ],
            ),
        ]
    }

    #[test]
    fn the_formats_fixture_holds_these_rules() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/formats.json"
        );
        let data = shared_cases();
        if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
            std::fs::write(path, serde_json::to_string_pretty(&data).unwrap() + "\n").unwrap();
        }
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(
            fixture, data,
            "UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib formats rewrites it"
        );
    }
}
