//! Workload modules, the user's own upload code run as arms, and the API a built-in
//! body arm uploads through: names, the contract a module speaks, and what a run
//! records of each module it ran. Pure: reading and serving a module's file are
//! elsewhere.

use serde::{Deserialize, Serialize};

/// The contract version this host speaks: a module declares it as
/// `export const unobserved = 1` (PROTOCOL.md, "Workload modules").
pub const CONTRACT: u32 = 1;

/// The largest module file: a bundle of an upload library is a few hundred KiB.
pub const MAX_MODULE_BYTES: u64 = 8 << 20;

/// Modules one run may have.
pub const MAX_MODULES: usize = 16;

/// Longest module name.
pub const MAX_NAME: usize = 32;

/// A module's name: it labels the arm in every report, and it is part of the URL the
/// page imports it from, so it is 1-32 letters, digits, '-' or '_', starting with a
/// letter. (That it names no built-in arm is a rule of the plan: `Plan::validate`.)
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
#[schemars(with = "String")]
pub struct ModuleName(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a module name is 1-{MAX_NAME} letters, digits, '-' or '_', starting with a letter, not {0:?}"
)]
pub struct BadModuleName(String);

impl ModuleName {
    pub fn new(name: &str) -> Result<ModuleName, BadModuleName> {
        let form = name.len() <= MAX_NAME
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !form {
            return Err(BadModuleName(name.chars().take(40).collect()));
        }
        Ok(ModuleName(name.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ModuleName {
    type Error = BadModuleName;
    fn try_from(s: String) -> Result<ModuleName, BadModuleName> {
        ModuleName::new(&s)
    }
}

impl From<ModuleName> for String {
    fn from(n: ModuleName) -> String {
        n.0
    }
}

impl std::fmt::Display for ModuleName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for ModuleName {
    type Err = BadModuleName;
    fn from_str(s: &str) -> Result<ModuleName, BadModuleName> {
        ModuleName::new(s)
    }
}

/// Why a file is not a workload module this host can run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAModule {
    #[error("it is empty")]
    Empty,
    #[error(
        "it is {0} bytes; a module may be at most {MAX_MODULE_BYTES} (bundle only what it uses)"
    )]
    TooLarge(u64),
    #[error("it is not UTF-8 text")]
    NotText,
    #[error(
        "it has no `export`: a workload module is an ES module (PROTOCOL.md, \"Workload modules\")"
    )]
    NoExport,
    #[error(
        "it does not say which contract it speaks: add `export const unobserved = {CONTRACT};`"
    )]
    NoContract,
    #[error("it speaks contract {0}; this host speaks {CONTRACT}")]
    OtherContract(u64),
}

/// The contract a module's source declares, checked as far as can be without running it:
/// UTF-8 text with an `export`, and `unobserved = N` (as written, `export const
/// unobserved = 1`, or as a bundler rewrites it, `var unobserved = 1` then `export {…}`).
/// The page checks the rest when it imports it (a default export that is a function).
pub fn contract_of(source: &[u8]) -> Result<u32, NotAModule> {
    if source.is_empty() {
        return Err(NotAModule::Empty);
    }
    if source.len() as u64 > MAX_MODULE_BYTES {
        return Err(NotAModule::TooLarge(source.len() as u64));
    }
    let text = std::str::from_utf8(source).map_err(|_| NotAModule::NotText)?;
    if !has_word(text, "export") {
        return Err(NotAModule::NoExport);
    }
    let version = text.match_indices("unobserved").find_map(|(at, word)| {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
            return None;
        }
        let rest = text[at + word.len()..].trim_start().strip_prefix('=')?;
        let rest = rest
            .strip_prefix('=')
            .map_or(Some(rest), |_| None)?
            .trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u64>().ok()
    });
    match version {
        None => Err(NotAModule::NoContract),
        Some(v) if v == u64::from(CONTRACT) => Ok(CONTRACT),
        Some(v) => Err(NotAModule::OtherContract(v)),
    }
}

fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
        !text[..at].chars().next_back().is_some_and(ident)
            && !text[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// What a run records of a module it ran: its name, and the SHA-256 and size of the
/// source the sink served, so two runs of "the same" workload with different code are
/// never compared as one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModuleRef {
    pub name: ModuleName,
    /// Set by the host when it reads the module for the run; a plan from the extension
    /// names modules only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A registered module whose file changed since `workload add`: the SHA-256 it had
    /// then (the run ran the new one, `sha256`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registered_sha256: Option<String>,
}

impl ModuleRef {
    pub fn named(name: ModuleName) -> ModuleRef {
        ModuleRef {
            name,
            sha256: None,
            bytes: None,
            registered_sha256: None,
        }
    }
}

/// How a module upload failed, as the page saw it, with its numbers: the detail of a
/// sample whose `error` is `module-failed` (`SampleError::ModuleFailed`); the module's own
/// words, when it threw, are in the sample's `rejection`. Page-side, so it can only make
/// a sample a failure, never intact (`verify::judge` keeps a page's failure as it is).
/// Its words are `export::words::module_failure`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ModuleFailure {
    /// The module could not be imported, or is not of this contract (`cause`; older
    /// samples have none).
    NotLoaded {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cause: Option<NotLoaded>,
    },
    /// Its promise rejected (or it threw).
    Threw,
    /// It did not settle within the plan's module timeout (`timeout_ms`, the page's
    /// own; older samples have none); its signal was aborted.
    TimedOut {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// The page's Content-Security-Policy refused a request of it: one to anywhere but
    /// the run's sink.
    Blocked { directive: String, url: String },
}

/// Why a module could not be loaded.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum NotLoaded {
    /// The import failed (the browser's words in the sample's `rejection`).
    ImportFailed,
    /// It does not declare `export const unobserved = 1`.
    OtherContract,
    /// Its default export is not a function.
    NoDefaultFunction,
}

/// The most characters of a blocked request's directive or URL that are stored.
pub const MAX_BLOCKED_CHARS: usize = 200;

/// The longest module timeout a page may report: the plan's longest.
pub const MAX_TIMEOUT_MS: u64 = crate::domain::plan::MAX_MODULE_TIMEOUT_SECS as u64 * 1000;

impl ModuleFailure {
    /// As stored: a page's strings cut to MAX_BLOCKED_CHARS, its timeout to MAX_TIMEOUT_MS.
    pub fn clipped(self) -> ModuleFailure {
        let cut = |s: String| s.chars().take(MAX_BLOCKED_CHARS).collect();
        match self {
            ModuleFailure::Blocked { directive, url } => ModuleFailure::Blocked {
                directive: cut(directive),
                url: cut(url),
            },
            ModuleFailure::TimedOut { timeout_ms } => ModuleFailure::TimedOut {
                timeout_ms: timeout_ms.map(|ms| ms.min(MAX_TIMEOUT_MS)),
            },
            other => other,
        }
    }
}

/// The API a built-in body arm uploads through.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::Display,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Api {
    /// `fetch()`, what every run measured before XHR arms existed.
    #[default]
    Fetch,
    /// `XMLHttpRequest` with `upload.onprogress` listened to, as upload libraries use it.
    Xhr,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["old", "new", "tus-16MiB", "A_b", &"x".repeat(MAX_NAME)] {
            assert!(ModuleName::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "1st",
            "-x",
            "a b",
            "a/b",
            "a.mjs",
            "ü",
            &"x".repeat(MAX_NAME + 1),
        ] {
            assert!(ModuleName::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_contract_as_written_and_as_a_bundler_writes_it() {
        let ok = |s: &str| contract_of(s.as_bytes());
        assert_eq!(
            ok("export const unobserved = 1;\nexport default async () => {};"),
            Ok(1)
        );
        assert_eq!(
            ok("var unobserved = 1;\nexport { upload as default, unobserved };"),
            Ok(1)
        );
        assert_eq!(ok("export const unobserved=1"), Ok(1));
        assert_eq!(
            ok("export const unobserved = 2;"),
            Err(NotAModule::OtherContract(2))
        );
        assert_eq!(
            ok("export default 1; // unobserved"),
            Err(NotAModule::NoContract)
        );
        assert_eq!(
            ok("x.unobserved = 1; export default 1"),
            Err(NotAModule::NoContract)
        );
        assert_eq!(
            ok("if (unobserved == 1) {} export default 1"),
            Err(NotAModule::NoContract)
        );
        assert_eq!(
            ok("module.exports = { unobserved: 1 }"),
            Err(NotAModule::NoExport)
        );
        assert_eq!(
            ok("const unobserved = 1; exports.x = 1"),
            Err(NotAModule::NoExport)
        );
        assert_eq!(contract_of(b""), Err(NotAModule::Empty));
        assert_eq!(
            contract_of(&[0x89, b'P', b'N', b'G', 0xff]),
            Err(NotAModule::NotText)
        );
        let big = vec![b' '; MAX_MODULE_BYTES as usize + 1];
        assert!(matches!(contract_of(&big), Err(NotAModule::TooLarge(_))));
    }
}
