//! Several stored runs of one browser and plan, read as one: their samples together, the
//! summary recomputed. The cross-browser `--auto` adds a run per browser per round and
//! judges the pooled samples, with the same statistics as within a run.

use super::RunReport;
use crate::stats::summarise;

/// `runs` of one browser, in order; the first's metadata stands for all.
pub fn pool(runs: &[RunReport]) -> Option<RunReport> {
    let mut pooled = runs.first()?.clone();
    for r in &runs[1..] {
        pooled.samples.extend(r.samples.iter().cloned());
    }
    pooled.summary = summarise(&pooled.samples);
    Some(pooled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::Record;

    fn stored(id: &str, mbps: &[f64]) -> RunReport {
        let mut records = vec![run_record(id)];
        records.extend(
            mbps.iter()
                .enumerate()
                .map(|(rep, v)| Record::Sample(sample(id, "Blob", rep as u32, *v))),
        );
        report_of(records)
    }

    #[test]
    fn pooled_runs_count_every_sample_once() {
        let pooled = pool(&[stored("a", &[100.0, 300.0]), stored("b", &[200.0])]).unwrap();
        assert_eq!(pooled.samples.len(), 3);
        assert_eq!(pooled.summary[0].n, 3);
        assert_eq!(pooled.summary[0].median_mbps, Some(200.0));
        assert_eq!(pooled.run.run_id, "a");
        assert!(pool(&[]).is_none());
    }
}
