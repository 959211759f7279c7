//! How far a run's chart reaches, for every chart of it (the HTML report, the popup and
//! its summary page): scaled to the arms, not to the sink, so the longest bar fills the
//! chart. A sink ceiling far above the arms (often 5–10x) would otherwise squeeze them
//! into a few pixels; it is marked at the chart's edge and written in the legend.

use crate::stats::ArmSummary;
use serde::Serialize;

/// Room right of the longest median for whiskers and ceilings: the longest bar fills at
/// least 1 / ROOM of the chart, and what reaches further is cut or marked at the edge.
/// It is above 1 / SINK_BOUND_SHARE (1.43), so a sink-bound arm's ceiling is drawn.
pub const ROOM: f64 = 1.5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartScale {
    /// Mbps at the chart's right edge.
    pub top_mbps: f64,
    /// What the ceiling marks mean, or where the ceiling is when it is off the scale.
    pub legend: Option<Legend>,
}

/// The chart's legend, as data (its words: `export::words::legend`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Legend {
    /// The one sink ceiling, drawn dashed on the scale.
    OneCeiling { ceiling_mbps: f64 },
    /// Each arm's own transport's sink ceiling, all on the scale.
    PerTransport,
    /// Ceilings past the chart's edge, marked there: their figures, and how far past
    /// the edge the lowest of them is.
    OffScale {
        ceilings_mbps: Vec<f64>,
        times_edge: f64,
    },
}

/// One arm as the scale sees it: its median, the top of its range and its sink's
/// ceiling (each None when it has none).
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    pub median: Option<f64>,
    pub max: Option<f64>,
    pub ceiling: Option<f64>,
}

impl Reach {
    pub fn of(a: &ArmSummary, ceiling: Option<f64>) -> Reach {
        Reach {
            median: a.median_mbps,
            max: a.max_mbps,
            ceiling,
        }
    }
}

fn largest(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    values
        .flatten()
        .filter(|v| v.is_finite() && *v > 0.0)
        .reduce(f64::max)
}

/// The scale of a chart of these arms.
pub fn scale(arms: &[Reach]) -> ChartScale {
    let longest = largest(arms.iter().map(|a| a.median));
    let top_mbps = match longest {
        // Every whisker and ceiling within the room, so the nearest are drawn whole.
        Some(l) => largest(
            arms.iter()
                .flat_map(|a| [a.max, a.ceiling])
                .map(|v| v.filter(|v| *v <= l * ROOM)),
        )
        .map_or(l, |reach| reach.max(l)),
        None => largest(arms.iter().map(|a| a.ceiling)).unwrap_or(1.0),
    };
    ChartScale {
        top_mbps,
        legend: legend(arms, top_mbps),
    }
}

/// Whether a ceiling is drawn where it is (on the scale) or only marked at the edge.
pub fn on_scale(ceiling: f64, top_mbps: f64) -> bool {
    ceiling <= top_mbps
}

fn legend(arms: &[Reach], top_mbps: f64) -> Option<Legend> {
    let mut ceilings: Vec<f64> = arms.iter().filter_map(|a| a.ceiling).collect();
    ceilings.sort_by(f64::total_cmp);
    ceilings.dedup();
    let off: Vec<f64> = ceilings
        .iter()
        .copied()
        .filter(|c| !on_scale(*c, top_mbps))
        .collect();
    match (ceilings.as_slice(), off.first()) {
        ([], _) => None,
        ([one], None) => Some(Legend::OneCeiling { ceiling_mbps: *one }),
        (_, None) => Some(Legend::PerTransport),
        (_, Some(lowest)) => Some(Legend::OffScale {
            times_edge: lowest / top_mbps,
            ceilings_mbps: off,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arm(median: f64, max: f64, ceiling: Option<f64>) -> Reach {
        Reach {
            median: Some(median),
            max: Some(max),
            ceiling,
        }
    }

    #[test]
    fn the_longest_bar_fills_the_chart_and_a_far_ceiling_is_written() {
        let s = scale(&[
            arm(2000.0, 2100.0, Some(18000.0)),
            arm(3000.0, 3200.0, Some(18000.0)),
        ]);
        assert_eq!(s.top_mbps, 3200.0, "the widest whisker, within the room");
        assert!(3000.0 / s.top_mbps >= 1.0 / ROOM);
        assert!(!on_scale(18000.0, s.top_mbps));
        assert_eq!(
            s.legend,
            Some(Legend::OffScale {
                ceilings_mbps: vec![18000.0],
                times_edge: 18000.0 / 3200.0
            })
        );
        // A sink-bound arm's ceiling is always on the scale.
        let bound = scale(&[arm(700.0, 720.0, Some(1000.0))]);
        assert_eq!(
            (bound.top_mbps, bound.legend),
            (
                1000.0,
                Some(Legend::OneCeiling {
                    ceiling_mbps: 1000.0
                })
            )
        );
    }

    #[test]
    fn a_far_whisker_is_cut_and_a_near_ceiling_is_drawn() {
        let s = scale(&[arm(1000.0, 5000.0, Some(1200.0)), arm(800.0, 900.0, None)]);
        assert_eq!(
            s.top_mbps, 1200.0,
            "the ceiling is the furthest within the room"
        );
        assert!(on_scale(1200.0, s.top_mbps));
        assert_eq!(
            s.legend,
            Some(Legend::OneCeiling {
                ceiling_mbps: 1200.0
            })
        );
    }

    #[test]
    fn arms_without_figures_fall_back_to_the_ceiling() {
        let none = Reach {
            median: None,
            max: None,
            ceiling: Some(900.0),
        };
        assert_eq!(scale(&[none]).top_mbps, 900.0);
        assert_eq!(scale(&[]).top_mbps, 1.0);
    }
}
