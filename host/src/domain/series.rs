//! `unobserved run --runs N`: one plan run N times in a row, each its own run in the
//! store, tagged (`Record::Series`) with the series it belongs to. `compare` takes a
//! whole series as one side (`series:last`, `series:last~1`, `series:<group>`), each
//! run one figure, so the interval holds the run-to-run spread as measured
//! (`stats::across_runs`, runs as clusters) instead of the assumed drift allowance.

use serde::{Deserialize, Serialize};

/// A run's place in its series; stored beside the run, shown in its report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Series {
    /// Shared by the runs of one `run --runs N`.
    pub group: String,
    /// This run's place in the series, from 0.
    pub index: u32,
    pub runs: u32,
}

/// The store line that tags a finished run with its series, written by the CLI once the
/// run is complete (a run that failed is not part of its series).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesRecord {
    pub run_id: String,
    #[serde(flatten)]
    pub series: Series,
    pub recorded_at: String,
}

/// How a `series:` side names its series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeriesPick {
    /// `series:last~N`: N series before the newest (`series:last` is N = 0).
    Back(usize),
    /// `series:<group>`: by the group id `run --runs` printed.
    Group(String),
}

impl SeriesPick {
    /// The part after `series:`, or why it names nothing.
    pub fn parse(spec: &str) -> Result<SeriesPick, crate::domain::flags::FlagError> {
        use crate::domain::flags::FlagError;
        match spec {
            "" => Err(FlagError::SeriesEmpty),
            "last" => Ok(SeriesPick::Back(0)),
            s => match s.strip_prefix("last~") {
                Some(n) => n
                    .parse()
                    .map(SeriesPick::Back)
                    .map_err(|_| FlagError::NotBack {
                        given: format!("series:{s}"),
                        of: crate::domain::flags::Back::Series,
                    }),
                None => Ok(SeriesPick::Group(s.to_owned())),
            },
        }
    }

    /// The positions in `tags` (one per stored run, in store order) of the runs of the
    /// series picked; empty when there is no such series.
    pub fn runs_in(&self, tags: &[Option<&Series>]) -> Vec<usize> {
        let mut groups: Vec<&str> = Vec::new();
        for t in tags.iter().flatten() {
            if !groups.contains(&t.group.as_str()) {
                groups.push(&t.group);
            }
        }
        let group = match self {
            SeriesPick::Back(n) => groups.len().checked_sub(n + 1).map(|i| groups[i]),
            SeriesPick::Group(g) => groups.iter().copied().find(|x| x == g),
        };
        let Some(group) = group else { return vec![] };
        (0..tags.len())
            .filter(|&i| tags[i].is_some_and(|t| t.group == group))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(group: &str, index: u32) -> Series {
        Series {
            group: group.into(),
            index,
            runs: 2,
        }
    }

    #[test]
    fn series_are_counted_back_from_the_newest_and_found_by_id() {
        let (a0, a1, b0, b1) = (tag("a", 0), tag("a", 1), tag("b", 0), tag("b", 1));
        // A run outside any series sits between them and belongs to neither.
        let tags = [Some(&a0), Some(&a1), None, Some(&b0), Some(&b1)];
        let pick = |s: &str| SeriesPick::parse(s).unwrap().runs_in(&tags);
        assert_eq!(pick("last"), vec![3, 4]);
        assert_eq!(pick("last~1"), vec![0, 1]);
        assert_eq!(pick("a"), vec![0, 1]);
        assert!(pick("last~2").is_empty());
        assert!(pick("c").is_empty());
        use crate::domain::flags::{Back, FlagError};
        assert!(matches!(
            SeriesPick::parse("last~x"),
            Err(FlagError::NotBack {
                of: Back::Series,
                ..
            })
        ));
        assert!(matches!(SeriesPick::parse(""), Err(FlagError::SeriesEmpty)));
    }
}
