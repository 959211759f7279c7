//! Every output format behind one trait, as hyperfine does it: `report/` computes,
//! `document` decides what a person sees, and each file here only lays it out. Table,
//! Markdown and HTML render the same `RunDocument`; JSON is the computed report itself
//! and CSV its samples, one row each.

pub mod ceiling;
pub mod compared;
pub mod conditions;
pub mod csv;
pub mod document;
pub mod findings;
pub mod flag_error;
pub mod gate;
pub mod html;
pub mod json;
pub mod machine_check;
pub mod markdown;
pub mod misfit;
pub mod phases;
pub mod plan_error;
pub mod run_list;
pub mod table;
pub mod timeline_svg;
pub mod units;
pub mod words;
pub mod workloads;

use crate::report::across::RunsCompared;
use crate::report::RunReport;

pub use document::human_bytes;

pub trait Exporter {
    fn render(&self, runs: &[RunReport]) -> String;
    /// The same as `render`, written to `out`: a format whose text can be as big as
    /// the store (JSON holds every sample) streams it instead of holding it whole.
    fn write(&self, runs: &[RunReport], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let text = self.render(runs);
        out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            out.write_all(b"\n")?;
        }
        Ok(())
    }
    /// Runs side by side; `labels` name them in `compared.runs` order.
    fn render_compared(&self, compared: &RunsCompared, labels: &[String]) -> String;
}

/// The formats `report --format` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
    Html,
}

impl Format {
    /// What this format needs of every upload's timeline: JSON writes its points and
    /// HTML draws them; the others show phases, which need none.
    pub fn points(self) -> crate::report::TimelinePoints {
        match self {
            Format::Json | Format::Html => crate::report::TimelinePoints::Keep,
            Format::Table | Format::Csv | Format::Markdown => crate::report::TimelinePoints::Drop,
        }
    }
}

/// The exporter for `format`; `colour` matters only to the terminal table.
pub fn exporter(format: Format, colour: bool) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(table::Table { colour }),
        Format::Json => Box::new(json::Json { launch: None }),
        Format::Csv => Box::new(csv::Csv),
        Format::Markdown => Box::new(markdown::Markdown),
        Format::Html => Box::new(html::Html),
    }
}

#[cfg(test)]
mod figures_agree;
#[cfg(test)]
mod report_tests;
#[cfg(test)]
mod tests;
