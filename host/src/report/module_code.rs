//! `compare` never compares two versions of one workload module as one: runs that ran a
//! module of one name with different code (its recorded SHA-256) are refused, typed.

use super::RunReport;
use crate::domain::workload::ModuleName;

/// Two runs compared ran the module `name` with different code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "runs {} and {} ran different code as workload module {name} (SHA-256 {} and {}): they are not compared",
    first.0, second.0, short(&first.1), short(&second.1)
)]
pub struct ModuleCodeDiffers {
    pub name: ModuleName,
    /// (run id, recorded SHA-256) of the first run that ran it, and of one that differs.
    pub first: (String, Option<String>),
    pub second: (String, Option<String>),
}

fn short(sha: &Option<String>) -> &str {
    sha.as_deref()
        .map_or("unrecorded", |s| &s[..s.len().min(12)])
}

/// The first module name whose recorded SHA-256 differs between two of these runs.
pub fn check(runs: &[&RunReport]) -> Result<(), ModuleCodeDiffers> {
    let mut seen: Vec<(&ModuleName, (&str, &Option<String>))> = Vec::new();
    for r in runs {
        let Some(plan) = &r.run.plan else { continue };
        for m in &plan.modules {
            match seen.iter().find(|(name, _)| **name == m.name) {
                Some((_, (run, sha))) if **sha != m.sha256 => {
                    return Err(ModuleCodeDiffers {
                        name: m.name.clone(),
                        first: (run.to_string(), (*sha).clone()),
                        second: (r.run.run_id.clone(), m.sha256.clone()),
                    })
                }
                Some(_) => {}
                None => seen.push((&m.name, (&r.run.run_id, &m.sha256))),
            }
        }
    }
    Ok(())
}
