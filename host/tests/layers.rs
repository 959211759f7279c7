//! The crate's layers, kept: every top-level module of `host/src` has a floor, and a
//! module imports only modules on lower floors. So `domain/` imports nothing in the
//! crate, no two top-level modules import each other, and no arrow runs back up.
//! Test code (`#[cfg(test)]` items and the files they declare) may reach anywhere.
//!
//! docs/architecture.md draws the same table; a new top-level module fails here until
//! it is given a floor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first: a module may import only modules with a smaller number.
const LAYERS: &[(&str, u32)] = &[
    ("domain", 0),
    ("platform", 1),
    ("stats", 2),
    ("store", 3),
    ("sink", 3),
    ("modules", 3),
    ("verify", 4),
    ("conditions", 4),
    ("report", 5),
    ("export", 6),
    ("protocol", 7),
    ("native", 8),
    ("serve", 9),
    ("launch", 10),
    ("cli", 11),
];

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn every_module_imports_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = graph_of(&src);
    let problems = problems(&graph);
    assert!(
        problems.is_empty(),
        "the layers are broken (NoLayer: add it to LAYERS and docs/architecture.md; \
         NotLower: a module may import only lower layers):\n{problems:#?}"
    );
}

/// A broken rule.
#[derive(Debug, PartialEq)]
enum Problem {
    /// A top-level module with no floor in `LAYERS`.
    NoLayer(String),
    /// `domain` imports these.
    DomainImports(BTreeSet<String>),
    /// Two modules that import each other.
    Mutual(String, String),
    /// An arrow to the same floor or up: (from, its floor, to, its floor).
    NotLower(String, u32, String, u32),
}

/// Every broken rule; empty when the graph keeps the layers.
fn problems(graph: &Graph) -> Vec<Problem> {
    let floor = |m: &str| LAYERS.iter().find(|(n, _)| *n == m).map(|(_, f)| *f);
    let mut out = Vec::new();
    for (from, tos) in graph {
        let Some(from_floor) = floor(from) else {
            out.push(Problem::NoLayer(from.clone()));
            continue;
        };
        if from == "domain" && !tos.is_empty() {
            out.push(Problem::DomainImports(tos.clone()));
        }
        for to in tos {
            if from < to && graph.get(to).is_some_and(|back| back.contains(from)) {
                out.push(Problem::Mutual(from.clone(), to.clone()));
            }
            match floor(to) {
                Some(to_floor) if to_floor >= from_floor => out.push(Problem::NotLower(
                    from.clone(),
                    from_floor,
                    to.clone(),
                    to_floor,
                )),
                _ => {}
            }
        }
    }
    out
}

/// Each top-level module and the other top-level modules its non-test code names.
fn graph_of(src: &Path) -> Graph {
    let mut tops: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        if path.is_dir() || path.extension().is_some_and(|e| e == "rs") {
            tops.entry(name).or_default().extend(rust_files(&path));
        }
    }
    let names: BTreeSet<String> = tops.keys().cloned().collect();
    let mut graph = Graph::new();
    for (module, files) in &tops {
        let skipped = test_files(files);
        let mut uses = BTreeSet::new();
        for file in files
            .iter()
            .filter(|f| !skipped.iter().any(|s| f.starts_with(s)))
        {
            let code = without_tests(&code_only(&std::fs::read_to_string(file).unwrap())).0;
            uses.extend(
                crate_paths(&code)
                    .into_iter()
                    .filter(|m| m != module && names.contains(m)),
            );
        }
        graph.insert(module.clone(), uses);
    }
    graph
}

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).unwrap() {
        out.extend(rust_files(&entry.unwrap().path()));
    }
    out.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    out
}

/// The files (and folders) of modules declared under `#[cfg(test)]` (`mod tests;`).
fn test_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for file in files {
        let (_, declared) = without_tests(&code_only(&std::fs::read_to_string(file).unwrap()));
        let stem = file.file_stem().unwrap().to_string_lossy();
        let dir = file.parent().unwrap();
        let base = if stem == "mod" {
            dir.to_path_buf()
        } else {
            dir.join(&*stem)
        };
        for name in declared {
            out.push(base.join(format!("{name}.rs")));
            out.push(base.join(&name));
        }
    }
    out
}

/// The text with comments blanked and string and char literals emptied, so that
/// neither a doc line nor a message that says `crate::x` counts as an import.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = |k: usize| b.get(i + k).copied();
        if b[i] == '/' && rest(1) == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i] == '/' && rest(1) == Some('*') {
            i = skip_block_comment(&b, i);
        } else if b[i] == 'r' && (rest(1) == Some('"') || rest(1) == Some('#')) && is_raw(&b, i) {
            i = skip_raw_string(&b, i);
            out.push_str("\"\"");
        } else if b[i] == '"' {
            i = skip_string(&b, i);
            out.push_str("\"\"");
        } else if b[i] == '\'' && (rest(1) == Some('\\') || rest(2) == Some('\'')) {
            i = skip_char(&b, i);
            out.push_str("' '");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

fn skip_block_comment(b: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < b.len() {
        if b[i] == '/' && b.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// `r"` or `r#"` that starts a raw string (not the end of an identifier like `for`).
fn is_raw(b: &[char], i: usize) -> bool {
    let starts_word = i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_');
    let mut j = i + 1;
    while b.get(j) == Some(&'#') {
        j += 1;
    }
    starts_word && b.get(j) == Some(&'"')
}

fn skip_raw_string(b: &[char], i: usize) -> usize {
    let mut j = i + 1;
    let mut hashes = 0;
    while b[j] == '#' {
        hashes += 1;
        j += 1;
    }
    j += 1;
    while j < b.len() {
        if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
            return j + 1 + hashes;
        }
        j += 1;
    }
    j
}

fn skip_string(b: &[char], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != '"' {
        i += if b[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

fn skip_char(b: &[char], mut i: usize) -> usize {
    i += 1;
    while i < b.len() && b[i] != '\'' {
        i += if b[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// The code with every `#[cfg(test)]` / `#[cfg(all(test, ...))]` item removed, and the
/// names of the modules such items declare from other files (`mod tests;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut declared = Vec::new();
    let mut rest = code;
    while let Some(at) = test_attr(rest) {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let end = item_end(item);
        let words: Vec<&str> = item[..end].split_whitespace().collect();
        if let Some(k) = words.iter().position(|w| *w == "mod") {
            if item[..end].trim_end().ends_with(';') {
                declared.push(words[k + 1].trim_end_matches(';').to_owned());
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    (out, declared)
}

fn test_attr(code: &str) -> Option<usize> {
    ["#[cfg(test)]", "#[cfg(all(test"]
        .iter()
        .filter_map(|a| code.find(a))
        .min()
}

/// Where the item that starts with the attribute at 0 ends: its first `;` at depth 0,
/// or the brace that closes its first block.
fn item_end(item: &str) -> usize {
    let attr_end = item.find(']').unwrap() + 1;
    let mut depth = 0i32;
    let mut brackets = 0i32;
    for (k, c) in item[attr_end..].char_indices() {
        match c {
            '[' => brackets += 1,
            ']' => brackets -= 1,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return attr_end + k + 1;
                }
            }
            ';' if depth == 0 && brackets == 0 => return attr_end + k + 1,
            _ => {}
        }
    }
    item.len()
}

/// The top-level names after `crate::`: `crate::a::b` gives a, `crate::{a, b::c}` a and b.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` or another identifier ending in "crate"
        }
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            out.extend(group_heads(group));
        } else {
            out.insert(ident(after));
        }
    }
    out.remove("");
    out
}

/// The first name of each path in `a, b::c, d::{e}}`, up to the group's closing brace.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = vec![ident(group.trim_start())];
    let mut depth = 0;
    for (k, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => heads.push(ident(group[k + 1..].trim_start())),
            _ => {}
        }
    }
    heads
}

fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn the_checker_sees_paths_groups_and_skips_tests_and_comments() {
    let code = code_only(
        "use crate::a::X;\nuse crate::{b, c::{D, E}};\n// crate::f in a comment\n\
         let s = \"crate::g\"; let r = r#\"crate::h\"#; $crate::i!();\n\
         #[cfg(test)]\nmod tests { use crate::j; }\n#[cfg(test)]\nmod more;\n\
         #[cfg(all(test, target_os = \"linux\"))]\nuse crate::k;\nfn f() { crate::l::m(); }\n",
    );
    let (code, declared) = without_tests(&code);
    let found: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(found, ["a", "b", "c", "l"]);
    assert_eq!(declared, ["more"]);
}

#[test]
fn the_checker_reports_each_broken_rule() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (from, to) in edges {
            g.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    let s = |x: &str| x.to_owned();
    assert_eq!(
        problems(&graph(&[("cli", "domain"), ("report", "stats")])),
        []
    );
    assert_eq!(
        problems(&graph(&[("report", "export")])),
        [Problem::NotLower(s("report"), 5, s("export"), 6)]
    );
    assert_eq!(
        problems(&graph(&[("store", "sink"), ("sink", "store")])),
        [
            Problem::Mutual(s("sink"), s("store")),
            Problem::NotLower(s("sink"), 3, s("store"), 3),
            Problem::NotLower(s("store"), 3, s("sink"), 3),
        ]
    );
    assert_eq!(
        problems(&graph(&[("domain", "platform")])),
        [
            Problem::DomainImports([s("platform")].into()),
            Problem::NotLower(s("domain"), 0, s("platform"), 1),
        ]
    );
    assert_eq!(
        problems(&graph(&[("newthing", "domain")])),
        [Problem::NoLayer(s("newthing"))]
    );
}
