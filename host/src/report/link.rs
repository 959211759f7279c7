//! The link's own ceiling beside every arm. Before the first upload and after the last,
//! the host uploads the run's size to the same sink with its own client over the same
//! transport (`native/run_started.rs`, `native/run_finished.rs`): for the local sink
//! that is the sink's ceiling, for a remote one what the link carried. Each arm's median
//! is shown as a share of it, and on a remote sink a note says whether the arm's bytes
//! crossed the wire at the link's ceiling (the link is the limit) or below it (the
//! browser is).

use super::phases::ArmPhases;
use super::{Note, RunMeta, RunReport};
use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use serde::Serialize;

/// An arm whose bytes crossed the wire at this share of the link's ceiling or more ran
/// at the link's speed. Below it the browser held the link back. The ceiling's own
/// rounds spread about ±5% on a quiet gigabit link, hence the margin.
pub const AT_LINK_SHARE: f64 = 0.9;

/// The ceiling of one transport's sink (or link), before the arms and after them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkCeiling {
    pub transport: Transport,
    pub before: Option<TransportCeiling>,
    pub after: Option<TransportCeiling>,
}

impl LinkCeiling {
    /// What the link carried: the faster of the two medians (a slower one was the
    /// link, or the machine, busy with something else at that moment).
    pub fn carried_mbps(&self) -> Option<f64> {
        [self.before, self.after]
            .into_iter()
            .flatten()
            .map(|c| c.receive_mbps)
            .reduce(f64::max)
    }

    /// The slowest and fastest round of both measurements.
    pub fn range(&self) -> Option<(f64, f64)> {
        [self.before, self.after]
            .into_iter()
            .flatten()
            .map(|c| c.receive_range)
            .reduce(|(lo, hi), (l, h)| (lo.min(l), hi.max(h)))
    }
}

/// Who held an arm's wire phase to its speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WireLimit {
    /// The bytes crossed at the link's ceiling: the link is the limit there.
    Link,
    /// They crossed below it: the browser did not fill the link.
    Browser,
    /// No timeline of the arm's uploads: where its time went is not known.
    Unknown,
}

impl RunMeta {
    /// The ceiling of the sink (or link) a transport uploads to, before and after.
    pub fn link(&self, t: Transport) -> Option<LinkCeiling> {
        let (before, range) = self.ceiling_of(t);
        let before = before.map(|receive_mbps| TransportCeiling {
            receive_mbps,
            receive_range: range.unwrap_or((receive_mbps, receive_mbps)),
        });
        let after = self.ceilings_after.get(&t).copied();
        (before.is_some() || after.is_some()).then_some(LinkCeiling {
            transport: t,
            before,
            after,
        })
    }

    /// Whether the run's uploads crossed a real link to another machine's sink.
    pub fn is_remote(&self) -> bool {
        self.sink == Some(crate::domain::run::SinkChoice::Remote)
    }
}

/// Each body arm's median as a share of what its link carried.
pub fn set_shares(report: &mut RunReport) {
    for arm in &mut report.summary {
        let carried = report
            .run
            .link(arm.arm.travels_over())
            .and_then(|l| l.carried_mbps());
        let share =
            |a: &crate::stats::ArmSummary| match (a.arm.is_workload(), a.median_mbps, carried) {
                (false, Some(median), Some(carried)) if carried > 0.0 => Some(median / carried),
                _ => None,
            };
        arm.ceiling_share = share(arm);
        for c in &mut arm.by_condition {
            c.figures.ceiling_share = share(&c.figures);
        }
    }
}

/// On a remote sink, per body arm: its share of the link, and whether its bytes crossed
/// the wire at the link's ceiling.
pub fn notes(report: &RunReport) -> Vec<Note> {
    if !report.run.is_remote() {
        return Vec::new();
    }
    let size = report.run.plan.as_ref().map(|p| p.size_bytes);
    report
        .summary
        .iter()
        .filter(|a| !a.arm.is_workload())
        .filter_map(|a| {
            let ceiling_mbps = report.run.link(a.arm.travels_over())?.carried_mbps()?;
            let phases = report.phases.iter().find(|p| p.arm == a.arm);
            let wire_mbps = size.zip(phases).and_then(|(s, p)| wire_rate(s, p));
            Some(Note::LinkWire {
                arm: a.arm.label(),
                median_mbps: a.median_mbps?,
                ceiling_mbps,
                wire_mbps,
                limit: match wire_mbps {
                    Some(w) if w >= AT_LINK_SHARE * ceiling_mbps => WireLimit::Link,
                    Some(_) => WireLimit::Browser,
                    None => WireLimit::Unknown,
                },
            })
        })
        .collect()
}

/// The rate of an arm's median wire phase (first to last byte, the sink's clock).
fn wire_rate(size_bytes: u64, phases: &ArmPhases) -> Option<f64> {
    let ms = phases.median.wire_ms;
    (ms > 0.0).then(|| size_bytes as f64 * 8.0 / ms / 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::Arm;
    use crate::domain::run::SinkChoice;
    use crate::domain::sample::Sample;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::{Record, RunRecord};

    const MIB: u64 = 1 << 20;

    /// An h2 upload of 1 MiB whose bytes took `wire_ms` from first to last at the sink.
    fn upload(body: &str, rep: u32, mbps: f64, wire_ms: f64) -> Sample {
        let mut s = sample("r", body, rep, mbps);
        s.recorded_arm = Some(Arm {
            transport: Some(Transport::H2),
            ..s.arm()
        });
        (s.bytes_sent, s.bytes_received) = (MIB, Some(MIB));
        s.page_ms = Some(40.0);
        (s.sink_ms, s.sink_request_ms) = (Some(wire_ms), Some(2.0 + wire_ms));
        s.timeline = Some(super::super::phases::tests::timeline(2.0, 2.0 + wire_ms));
        s
    }

    /// A run on a remote sink over h2 whose link carried 900 Mbps before the arms and
    /// 1000 after: Blob's bytes crossed at ~950 Mbps, Uint8Array's at ~420.
    fn remote_run(sink: Option<SinkChoice>) -> RunReport {
        let mut run = run_record("r");
        if let Record::Run(RunRecord {
            run: info,
            sink_ceiling_mbps,
            transport_ceilings,
            ..
        }) = &mut run
        {
            info.sink = sink;
            info.plan.size_bytes = MIB;
            *sink_ceiling_mbps = None;
            transport_ceilings.insert(Transport::H2, at(900.0, 850.0, 920.0).unwrap());
        }
        let mut after = std::collections::BTreeMap::new();
        after.insert(Transport::H2, at(1000.0, 980.0, 1010.0).unwrap());
        let mut records = vec![run];
        for rep in 0..4 {
            records.push(Record::Sample(upload("Blob", rep, 760.0, 8.83)));
            records.push(Record::Sample(upload("Uint8Array", rep, 400.0, 20.0)));
        }
        records.push(Record::CeilingAfter {
            run_id: "r".into(),
            ceilings: after,
            recorded_at: "2026-12-01T00:00:00Z".into(),
        });
        report_of(records)
    }

    #[test]
    fn on_a_remote_sink_each_arm_is_set_against_what_the_link_carried() {
        let report = remote_run(Some(SinkChoice::Remote));
        let shares: Vec<(String, Option<f64>, bool)> = report
            .summary
            .iter()
            .map(|a| (a.arm.label(), a.ceiling_share, a.sink_bound))
            .collect();
        assert_eq!(
            shares,
            [
                ("Blob h2".to_owned(), Some(0.76), false),
                ("Uint8Array h2".to_owned(), Some(0.4), false)
            ],
            "a share of the faster ceiling (after); across a link nothing is sink-bound"
        );
        let limits: Vec<(String, WireLimit)> = report
            .notes
            .iter()
            .filter_map(|n| match n {
                Note::LinkWire { arm, limit, .. } => Some((arm.clone(), *limit)),
                _ => None,
            })
            .collect();
        assert_eq!(
            limits,
            [
                ("Blob h2".to_owned(), WireLimit::Link),
                ("Uint8Array h2".to_owned(), WireLimit::Browser)
            ]
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["run"]["ceilings_after"]["h2"]["receive_mbps"], 1000.0);
        assert!(json["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == "link-wire" && n["limit"] == "link"));
    }

    #[test]
    fn on_the_local_sink_the_share_is_shown_but_no_link_note() {
        let report = remote_run(None);
        assert_eq!(report.summary[0].ceiling_share, Some(0.76));
        assert!(!report
            .notes
            .iter()
            .any(|n| matches!(n, Note::LinkWire { .. })));
        assert!(report.summary[0].sink_bound, "760 of 1000: sink-bound here");
    }

    fn at(mbps: f64, lo: f64, hi: f64) -> Option<TransportCeiling> {
        Some(TransportCeiling {
            receive_mbps: mbps,
            receive_range: (lo, hi),
        })
    }

    #[test]
    fn the_link_carried_the_faster_of_before_and_after() {
        let link = LinkCeiling {
            transport: Transport::H2,
            before: at(930.0, 900.0, 940.0),
            after: at(948.0, 945.0, 951.0),
        };
        assert_eq!(link.carried_mbps(), Some(948.0));
        assert_eq!(link.range(), Some((900.0, 951.0)));
        let before_only = LinkCeiling {
            after: None,
            ..link
        };
        assert_eq!(before_only.carried_mbps(), Some(930.0));
        let neither = LinkCeiling {
            before: None,
            after: None,
            ..link
        };
        assert_eq!((neither.carried_mbps(), neither.range()), (None, None));
    }
}
