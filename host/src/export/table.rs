//! The terminal table: coloured on a tty, plain otherwise.

use super::compared;
use super::document::{self, Cell, RunDocument, Section, Tone};
use super::Exporter;
use crate::domain::sample::Observed;
use crate::report::across::RunsCompared;
use crate::report::RunReport;
use console::Style;

pub struct Table {
    pub colour: bool,
}

impl Exporter for Table {
    fn render(&self, runs: &[RunReport]) -> String {
        runs.iter()
            .map(|r| self.run(&document::of(r)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn render_compared(&self, compared: &RunsCompared, labels: &[String]) -> String {
        let d = compared::of(compared, labels);
        let mut out = self.paint(&d.title, Style::new().bold()) + "\n";
        out += &self.section(&d.section);
        for line in &d.lines {
            out += line;
            out.push('\n');
        }
        out
    }
}

impl Table {
    fn paint(&self, s: &str, style: Style) -> String {
        if self.colour {
            style.apply_to(s).to_string()
        } else {
            s.to_owned()
        }
    }

    fn tone(&self, cell: &Cell) -> String {
        let style = match cell.tone {
            Tone::Plain => return cell.text.clone(),
            Tone::Good => Style::new().green(),
            Tone::Bad => Style::new().red(),
            Tone::Warn => Style::new().yellow(),
        };
        self.paint(&cell.text, style)
    }

    fn run(&self, d: &RunDocument) -> String {
        let observed = match d.observed {
            Observed::No => Style::new().green(),
            Observed::Yes => Style::new().red().bold(),
            Observed::Unknown => Style::new().yellow(),
        };
        let mut out = format!(
            "{} · run {} · {} · observed: {}\n",
            d.title,
            d.run_id,
            d.status.text,
            self.paint(&d.observed.to_string(), observed)
        );
        if let Some(plan) = &d.plan {
            out += plan;
            out.push('\n');
        }
        for section in &d.sections {
            out += &self.section(section);
        }
        for n in &d.notes {
            out += &format!("note: {n}\n");
        }
        for w in &d.warnings {
            out += &self.paint(&format!("warning: {w}\n"), Style::new().yellow());
        }
        let env: Vec<String> = d
            .environment
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        out += &self.paint(&env.join(" · "), Style::new().dim());
        out.push('\n');
        out
    }

    /// Columns padded to their widest cell (measured before any colour is added); the
    /// last column is left unpadded.
    /// One section: its title, the columns aligned, its footnotes.
    pub(super) fn section(&self, s: &Section) -> String {
        let mut out = String::new();
        if let Some(title) = s.title {
            out += &self.paint(&format!("\n{title}\n"), Style::new().bold());
        }
        let widths: Vec<usize> = (0..s.columns.len())
            .map(|i| {
                s.rows
                    .iter()
                    .map(|r| r.cells[i].text.chars().count())
                    .chain([s.columns[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let last = s.columns.len() - 1;
        let pad = |text: &str, painted: String, i: usize, numeric: bool| {
            if i == last {
                return painted;
            }
            let fill = " ".repeat(widths[i] - text.chars().count());
            if numeric {
                fill + &painted
            } else {
                painted + &fill
            }
        };
        let header: Vec<String> = s
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| pad(c, c.clone(), i, s.numeric_column(i)))
            .collect();
        out += &self.paint(&header.join("  "), Style::new().bold());
        out.push('\n');
        for row in &s.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .enumerate()
                .map(|(i, c)| pad(&c.text, self.tone(c), i, c.numeric))
                .collect();
            out += &cells.join("  ");
            for flag in &row.flags {
                out += &self.paint(&format!(" [{flag}]"), Style::new().yellow().bold());
            }
            out.push('\n');
        }
        for f in &s.footnotes {
            out += &self.paint(f, Style::new().dim());
            out.push('\n');
        }
        out
    }
}
