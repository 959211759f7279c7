//! JSON export: always one versioned object, `{"schema_version": 3, "runs": [...]}`,
//! whatever the number of runs, so a consumer never has to guess the shape. The schema
//! is `schemas/report.schema.json`, generated from these types by `schema()`; a test
//! checks the committed file against it and validates real output against it.

use super::Exporter;
use crate::report::across::RunsCompared;
use crate::report::RunReport;
use serde::Serialize;

/// Bumped whenever a field is removed or changes meaning (additions do not bump it).
pub const SCHEMA_VERSION: u32 = 3;

/// Unobserved JSON report
///
/// What `unobserved report --format json` and `unobserved run --json` write. One object
/// whatever the number of runs. schema_version changes only when a field is removed or
/// changes meaning; new fields may appear at any time (and then in this schema).
#[derive(Serialize, schemars::JsonSchema)]
pub struct Document<'a> {
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
    pub runs: &'a [RunReport],
    /// `unobserved run --json` adds how each browser was launched, in `runs` order.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<Launch>")]
    pub launch: Option<serde_json::Value>,
}

/// One browser's launch, as `unobserved run --json` writes it (cli/run_cmd.rs): only
/// its schema is typed here.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Launch {
    browser_path: String,
    command: Vec<String>,
}

/// `$id` of the published schema.
const SCHEMA_ID: &str = "https://unobserved.dev/schemas/report.schema.json";

/// The report's JSON Schema, generated from `Document`, and closed: every object with
/// fixed properties rejects others (`additionalProperties: false`), except the few that
/// may carry fields an older version stored (a sample's and its observation's).
pub fn schema() -> serde_json::Value {
    // What is written, not what would be read back: fields skipped when empty are
    // optional, fields read with a default are still always written.
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Document<'static>>()
        .to_value();
    schema["$id"] = SCHEMA_ID.into();
    let defs = schema["$defs"].clone();
    inline_refs_beside_properties(&mut schema, &defs);
    close(&mut schema);
    schema
}

/// An internally tagged newtype variant (`Warning::ProtocolMismatch`) comes out as a
/// `$ref` with the tag's `properties` beside it: closing that would reject the
/// referenced fields, so the referenced object's properties are copied in instead.
fn inline_refs_beside_properties(schema: &mut serde_json::Value, defs: &serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(map) => {
            if map.contains_key("properties") {
                if let Some(Value::String(r)) = map.get("$ref").cloned() {
                    let name = r.trim_start_matches("#/$defs/");
                    let target = &defs[name];
                    if let (Some(Value::Object(theirs)), Some(Value::Object(ours))) =
                        (target.get("properties"), map.get_mut("properties"))
                    {
                        for (k, p) in theirs {
                            ours.entry(k.clone()).or_insert_with(|| p.clone());
                        }
                    }
                    if let (Some(Value::Array(theirs)), Some(Value::Array(ours))) =
                        (target.get("required"), map.get_mut("required"))
                    {
                        let missing: Vec<Value> = theirs
                            .iter()
                            .filter(|r| !ours.contains(r))
                            .cloned()
                            .collect();
                        ours.extend(missing);
                    }
                    map.remove("$ref");
                }
            }
            map.values_mut()
                .for_each(|v| inline_refs_beside_properties(v, defs));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| inline_refs_beside_properties(v, defs)),
        _ => {}
    }
}

/// Closes every object schema with `properties` that does not say otherwise. A schema
/// that flattens an enum (`properties` beside a `oneOf` of inline variants) first has
/// its properties moved into each variant, so that each variant can be closed whole.
fn close(schema: &mut serde_json::Value) {
    use serde_json::Value;
    let Value::Object(map) = schema else {
        if let Value::Array(items) = schema {
            items.iter_mut().for_each(close);
        }
        return;
    };
    let required = map.get("required").cloned();
    if let (Some(Value::Object(props)), Some(Value::Array(variants))) =
        (map.get("properties").cloned(), map.get_mut("oneOf"))
    {
        for variant in variants.iter_mut() {
            let Some(v) = variant.as_object_mut() else {
                continue;
            };
            let own = v
                .entry("properties")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Value::Object(own) = own {
                for (k, p) in &props {
                    own.entry(k.clone()).or_insert_with(|| p.clone());
                }
            }
            if let Some(Value::Array(req)) = &required {
                let own = v
                    .entry("required")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(own) = own {
                    own.extend(
                        req.iter()
                            .filter(|r| !own.contains(r))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                }
            }
        }
        map.remove("properties");
        map.remove("required");
    }
    if map.contains_key("properties") && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    map.values_mut().for_each(close);
}

/// `launch`: what `unobserved run --json` adds about each browser's launch.
pub struct Json {
    pub launch: Option<serde_json::Value>,
}

impl Exporter for Json {
    fn render(&self, runs: &[RunReport]) -> String {
        render(runs, self.launch.clone())
    }

    fn write(&self, runs: &[RunReport], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &document(runs, self.launch.clone()))?;
        out.write_all(b"\n")
    }

    fn render_compared(&self, compared: &RunsCompared, _labels: &[String]) -> String {
        serde_json::to_string_pretty(compared).expect("comparisons serialise") + "\n"
    }
}

fn document(runs: &[RunReport], launch: Option<serde_json::Value>) -> Document<'_> {
    Document {
        schema_version: SCHEMA_VERSION,
        runs,
        launch,
    }
}

fn render(reports: &[RunReport], launch: Option<serde_json::Value>) -> String {
    serde_json::to_string_pretty(&document(reports, launch)).expect("reports serialise") + "\n"
}
