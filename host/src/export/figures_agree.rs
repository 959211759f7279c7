//! No output prints "faster" beside a lower median or "slower" beside a higher one, nor
//! a ratio above 1 beside a lower median: every format of a run and of runs compared,
//! and the analysis the popup shows (whose JS formatter reads the same fixture,
//! extension/tests/figures.test.js). The fixture's arms are ones where the rank
//! interval and the medians disagree (tests/fixtures/figures-agree.json).

use super::{exporter, Format};
use crate::report::tests_support::report_of;
use crate::report::{across, analysis, RunReport};
use crate::store::tests_support::{run_record, sample};
use crate::store::Record;
use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/figures-agree.json"
);

fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap()
}

/// A run of `arms` (label, Mbps per rep) against a sink of `ceiling`.
fn run_of(id: &str, arms: &[(String, Vec<f64>)], ceiling: f64) -> RunReport {
    let mut run = run_record(id);
    if let Record::Run(r) = &mut run {
        r.sink_ceiling_mbps = Some(ceiling);
        r.run.started_at = Some("2026-11-30T10:00:00Z".into());
    }
    let mut records = vec![run];
    let reps = arms[0].1.len();
    for rep in 0..reps {
        for (body, mbps) in arms {
            records.push(Record::Sample(sample(id, body, rep as u32, mbps[rep])));
        }
    }
    report_of(records)
}

fn fixture_arms(f: &Value) -> Vec<(String, Vec<f64>)> {
    let mbps = f["mbps"].as_object().unwrap();
    ["Uint8Array", "ArrayBuffer", "Blob"]
        .iter()
        .map(|b| {
            (
                b.to_string(),
                serde_json::from_value(mbps[*b].clone()).unwrap(),
            )
        })
        .collect()
}

/// Whether a ratio cell ("0.99x [1.06–1.49] not resolved vs …") agrees with the medians
/// printed beside it (as printed: whole Mbps).
fn check(what: &str, median: &str, baseline: &str, ratio_cell: &str) -> Result<(), String> {
    let num = |t: &str| t.replace(',', "").trim().parse::<f64>();
    let (Ok(m), Ok(b)) = (num(median), num(baseline)) else {
        return Ok(()); // no median to disagree with
    };
    let Some((ratio, words)) = ratio_cell.split_once("x [") else {
        return Ok(()); // "baseline", "–"
    };
    let ratio: f64 = ratio.trim().parse().map_err(|e| format!("{what}: {e}"))?;
    let words = words.split_once(']').map_or("", |w| w.1);
    let bad = (words.contains("faster") && m <= b)
        || (words.contains("slower") && m >= b)
        || (ratio > 1.0 && m < b)
        || (ratio < 1.0 && m > b);
    if bad {
        Err(format!(
            "{what}: {ratio_cell:?} beside medians {m} and baseline {b}"
        ))
    } else {
        Ok(())
    }
}

/// The cells of the row about `arm` in a format's text, with its markup stripped.
fn row_cells(format: Format, text: &str, arm: &str) -> Option<Vec<String>> {
    match format {
        Format::Markdown => text
            .lines()
            .find(|l| l.starts_with(&format!("| {arm} |")))
            .map(|l| {
                l.split('|')
                    .map(|c| c.trim().to_owned())
                    .collect::<Vec<_>>()[1..]
                    .to_vec()
            }),
        Format::Html => {
            let start = text.find(&format!(r#"<tr data-body="{arm}">"#))?;
            let row = &text[start..start + text[start..].find("</tr>")?];
            Some(
                row.split("<td")
                    .skip(1)
                    .map(|td| strip_tags(td.split_once('>').unwrap().1))
                    .collect(),
            )
        }
        _ => text
            .lines()
            .find(|l| l.starts_with(&format!("{arm} ")))
            .map(|l| {
                l.split("  ")
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect()
            }),
    }
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for ch in html.chars() {
        match ch {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.trim().to_owned()
}

/// The ratio's column in the summary: Body, n, Median, Min–max, IQR, Of ceiling, Ratio,
/// Integrity.
const RATIO: usize = 6;

const LAID_OUT: [Format; 3] = [Format::Table, Format::Markdown, Format::Html];

#[test]
fn no_run_format_prints_faster_beside_a_lower_median() {
    let f = fixture();
    let arms = fixture_arms(&f);
    let report = run_of("r", &arms, f["sink_ceiling_mbps"].as_f64().unwrap());
    let mut failures = Vec::new();
    for format in LAID_OUT {
        let text = exporter(format, false).render(std::slice::from_ref(&report));
        let cells = |arm: &str| {
            row_cells(format, &text, arm)
                .unwrap_or_else(|| panic!("{format:?} has no {arm} row:\n{text}"))
        };
        let base = cells("Uint8Array")[2].clone();
        for (arm, _) in &arms[1..] {
            let row = cells(arm);
            if !row[RATIO].contains("x [") {
                failures.push(format!("{format:?} {arm}: no ratio in {:?}", row[RATIO]));
            }
            failures.extend(check(&format!("{format:?} {arm}"), &row[2], &base, &row[RATIO]).err());
        }
    }
    // JSON is the report itself: each comparison's ratio against the two medians.
    let json: Value =
        serde_json::from_str(&exporter(Format::Json, false).render(&[report])).unwrap();
    let run = &json["runs"][0];
    // Joined on the arm's fields, as a reader of the JSON should; the label only names it.
    let median = |arm: &serde_json::Value| {
        run["summary"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["arm"] == *arm)
            .unwrap()["median_mbps"]
            .to_string()
    };
    for c in run["comparisons"].as_array().unwrap() {
        let cell = format!("{}x [] {}", c["ratio"], c["verdict"]);
        let (arm, baseline) = (&c["arm"]["arm"], &c["baseline"]["arm"]);
        failures.extend(
            check(
                &format!("JSON {}", arm["label"]),
                &median(arm),
                &median(baseline),
                &cell,
            )
            .err(),
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn no_comparison_of_runs_prints_faster_beside_a_lower_median() {
    let f = fixture();
    let arms = fixture_arms(&f);
    let ceiling = f["sink_ceiling_mbps"].as_f64().unwrap();
    // Before: every arm uploads like Uint8Array; after: the fixture's arms.
    let before: Vec<_> = arms
        .iter()
        .map(|(b, _)| (b.clone(), arms[0].1.clone()))
        .collect();
    let runs = [
        run_of("before", &before, ceiling),
        run_of("after", &arms, ceiling),
    ];
    let compared = across::compare_runs(&runs, crate::stats::compare::DEFAULT_HORIZON);
    let labels = ["before".to_owned(), "after".to_owned()];
    let mut failures = Vec::new();
    for format in LAID_OUT {
        let text = exporter(format, false).render_compared(&compared, &labels);
        for (arm, _) in &arms[1..] {
            // Arm, before, after, vs before.
            let row = row_cells(format, &text, arm)
                .unwrap_or_else(|| panic!("{format:?} has no {arm} row:\n{text}"));
            failures.extend(
                check(
                    &format!("{format:?} compared {arm}"),
                    &row[2],
                    &row[1],
                    &row[3],
                )
                .err(),
            );
        }
    }
    let csv = exporter(Format::Csv, false).render_compared(&compared, &labels);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for line in csv.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        let cell = format!("{}x [] {}", c[col("ratio")], c[col("verdict")]);
        failures.extend(
            check(
                &format!("CSV {}", c[col("arm")]),
                c[col("median_mbps")],
                c[col("baseline_median_mbps")],
                &cell,
            )
            .err(),
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The analysis the popup shows, in the shared fixture for the JS formatter's test.
#[test]
fn the_popup_analysis_of_the_fixture_is_the_hosts() {
    let mut f = fixture();
    let report = run_of(
        "r",
        &fixture_arms(&f),
        f["sink_ceiling_mbps"].as_f64().unwrap(),
    );
    let actual = serde_json::to_value(analysis::of(&report)).unwrap();
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        f["analysis"] = actual.clone();
        std::fs::write(FIXTURE, serde_json::to_string_pretty(&f).unwrap() + "\n").unwrap();
    }
    assert_eq!(actual, fixture()["analysis"]);
}

/// The HTML report's chart is scaled to the arms: the longest bar fills at least half
/// the bars' width, and the sink ceiling, far above them, is an arrowhead at the edge
/// with its figure in the legend.
#[test]
fn the_html_chart_is_scaled_to_the_arms_and_marks_a_far_ceiling_at_the_edge() {
    let f = fixture();
    let ceiling = f["sink_ceiling_mbps"].as_f64().unwrap();
    let html = exporter(Format::Html, false).render(&[run_of("r", &fixture_arms(&f), ceiling)]);
    let attr = |tag: &str, name: &str| -> Vec<f64> {
        html.split(tag)
            .skip(1)
            .filter_map(|t| t.split_once(&format!(r#"{name}=""#)))
            .map(|(_, rest)| rest.split('"').next().unwrap().parse().unwrap())
            .collect()
    };
    let (label_w, bar_w) = (
        attr(r#"<rect class="bar""#, "x")[0],
        attr("<svg", "data-bar-width")[0],
    );
    let widths = attr(r#"<rect class="bar""#, "width");
    assert_eq!(widths.len(), 3);
    let longest = widths.iter().copied().fold(0.0, f64::max);
    assert!(
        longest >= bar_w / 2.0,
        "the longest bar is {longest} of {bar_w}"
    );
    let edges = attr(r#"<g class="ceiling off-scale""#, "data-edge");
    assert_eq!(edges.len(), 3, "every arm's ceiling is off this scale");
    assert!(
        edges.iter().all(|e| (e - (label_w + bar_w)).abs() < 0.1),
        "{edges:?}"
    );
    assert!(
        !html.contains(r#"<g class="ceiling" "#),
        "no ceiling drawn inside the chart"
    );
    let legend = html.split(r#"<text class="legend""#).nth(1).unwrap();
    assert!(legend.contains(&format!("{ceiling:.0} Mbps")), "{legend}");
}

/// The JSON of that run: the verdict, each part's load and the loads-planned note,
/// typed, with the message the other formats print.
fn json_typed(report: &crate::report::RunReport, changed: &str) {
    let json: Value =
        serde_json::from_str(&exporter(Format::Json, false).render(std::slice::from_ref(report)))
            .unwrap();
    let run = &json["runs"][0];
    let compared = &run["comparisons"][0];
    assert_eq!(compared["verdict"], "depends");
    let of: Vec<&Value> = compared["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["condition"]["load"])
        .collect();
    assert_eq!(of, [&Value::from("none"), &Value::from("cpu")]);
    let warning = run["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "loads-planned")
        .expect("typed in the JSON");
    assert_eq!(warning["message"], changed);
    assert_eq!(warning["parts"].as_array().unwrap().len(), 2);
}

/// Each CSV row's block, load and other work, as `crate::report::conditions::tests::run`
/// made them (blocks of 3 reps, the odd ones under the run's own load, all quiet).
fn csv_blocks(report: &crate::report::RunReport) -> Vec<String> {
    let mut failures = Vec::new();
    let csv = exporter(Format::Csv, false).render(std::slice::from_ref(report));
    let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for row in reader.records().map(Result::unwrap) {
        let rep: u32 = row[col("rep")].parse().unwrap();
        let block = rep / 3;
        let load = if block % 2 == 1 { "cpu" } else { "none" };
        if (
            &row[col("block")],
            &row[col("load")],
            &row[col("machine_condition")],
        ) != (block.to_string().as_str(), load, "quiet")
        {
            failures.push(format!("CSV rep {rep}: {row:?}"));
        }
    }
    failures
}

/// In a run measured in two conditions, each format's row of an arm in a condition has
/// that condition's median, and its part of the comparison agrees with it.
fn per_condition(report: &crate::report::RunReport) -> Vec<String> {
    let quiet = crate::domain::conditions::Condition::default();
    let part = super::conditions::versus_part(&report.comparisons[0], &quiet, "Uint8Array");
    let medians: Vec<String> = report
        .summary
        .iter()
        .map(|a| super::words::mbps(a.by_condition[0].figures.median_mbps))
        .collect();
    let mut failures = Vec::new();
    for format in LAID_OUT {
        let text = exporter(format, false).render(std::slice::from_ref(report));
        let (Some(base), Some(blob)) = (
            row_cells(format, &text, "Uint8Array when quiet"),
            row_cells(format, &text, "Blob when quiet"),
        ) else {
            failures.push(format!("{format:?}: no rows per condition"));
            continue;
        };
        if [&base[2], &blob[2]] != [&medians[0], &medians[1]] || blob[RATIO] != part {
            failures.push(format!(
                "{format:?}: {base:?} {blob:?}, not {medians:?} {part:?}"
            ));
        }
        failures.extend(
            check(
                &format!("{format:?} quiet"),
                &blob[2],
                &base[2],
                &blob[RATIO],
            )
            .err(),
        );
    }
    failures
}

/// The summary's rows as the popup shows them: body, n, median, range, share, ratio.
fn summary_cells(report: &crate::report::RunReport) -> Vec<Vec<String>> {
    let section = &super::document::of(report).sections[0];
    let col = |name: &str| section.columns.iter().position(|c| c == name);
    let lines: usize = report
        .summary
        .iter()
        .map(|a| 1 + a.by_condition.len())
        .sum();
    let names = [
        "Body",
        "n",
        "Median",
        "Min–max",
        super::ceiling::COLUMN,
        "Ratio [95% CI]",
    ];
    section.rows[..lines]
        .iter()
        .map(|row| {
            names
                .iter()
                .map(|n| col(n).map_or("–".to_owned(), |i| row.cells[i].text.clone()))
                .collect()
        })
        .collect()
}

/// Each laid-out format's Blob row shows `cell`, and its text says the loads alternated
/// by plan (`changed`); what does not, as failures.
fn depends_laid_out(report: &RunReport, cell: &str, changed: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for format in LAID_OUT {
        let text = exporter(format, false).render(std::slice::from_ref(report));
        let row = row_cells(format, &text, "Blob").expect("a Blob row");
        let shown = row[RATIO].replace("&quot;", "\"");
        if shown != cell {
            failures.push(format!("{format:?}: {shown:?}, not {cell:?}"));
        }
        let said = if format == Format::Html {
            super::html::esc(changed)
        } else {
            changed.to_owned()
        };
        if !text.contains(&said) {
            failures.push(format!(
                "{format:?} does not say the loads alternated by plan"
            ));
        }
    }
    failures
}

/// A `--load none,cpu` run in which Blob is 0.7x of Uint8Array in the quiet blocks and
/// 1.6x in the loaded ones: every format reads "depends" with both parts in the arm's
/// row, names the condition of each part, and says the loads alternated by plan; the JSON
/// carries the verdict, the parts and the finding typed, the CSV each sample's block and
/// condition. The analysis the popup gets is in the fixture for the JS views
/// (extension/tests/figures.test.js).
#[test]
fn every_format_reads_depends_with_its_parts_and_names_the_conditions() {
    use crate::domain::conditions::{Condition, Load};
    use crate::report::{Note, Warning};
    let loaded = Condition {
        load: Load::Cpu,
        ..Condition::default()
    };
    let report = crate::report::conditions::tests::run("d", loaded, true);
    let c = &report.comparisons[0];
    assert_eq!(c.verdict, crate::stats::compare::Verdict::Depends, "{c:?}");
    // The arm's head row: the verdict; each condition's row: its part (`per_condition`).
    let cell = super::conditions::versus_head(c, "Uint8Array");
    // The loads alternated by plan: a note says so, and nothing warns of a change.
    assert!(
        !report
            .warnings
            .iter()
            .any(|w| matches!(w, Warning::ConditionChanged { .. })),
        "{:?}",
        report.warnings
    );
    let changed = report
        .notes
        .iter()
        .find(|n| matches!(n, Note::LoadsPlanned { .. }))
        .expect("the loads-planned note")
        .to_string();
    let mut failures = depends_laid_out(&report, &cell, &changed);
    json_typed(&report, &changed);
    failures.extend(csv_blocks(&report));
    failures.extend(per_condition(&report));
    assert!(failures.is_empty(), "{failures:#?}");
    // The popup's analysis of this run, and the host's table, for the JS views.
    let mut f = fixture();
    let actual = serde_json::json!({
        "analysis": analysis::of(&report),
        "versus": cell,
        "table": summary_cells(&report),
    });
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        f["depends"] = actual.clone();
        std::fs::write(FIXTURE, serde_json::to_string_pretty(&f).unwrap() + "\n").unwrap();
    }
    assert_eq!(actual, fixture()["depends"]);
}
