//! `compare` never compares two versions of one workload module as one: runs that ran a
//! module of one name with different code (its recorded SHA-256) are refused, typed. A
//! run that ran a registered module whose file changed since `workload add` says so.

use super::RunReport;
use super::{RunMeta, Warning};
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

/// A warning per registered module the run ran with code other than was registered.
pub fn changed(run: &RunMeta) -> Vec<Warning> {
    let modules = run.plan.iter().flat_map(|p| &p.modules);
    modules
        .filter_map(|m| {
            Some(Warning::ModuleChanged {
                name: m.name.clone(),
                sha256: m.sha256.clone()?,
                registered_sha256: m.registered_sha256.clone()?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workload::ModuleRef;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::run_record;
    use crate::store::Record;

    /// A run of `mine` (changed since it was registered) and `other` (unchanged).
    fn run_of_two_modules() -> Vec<Record> {
        let mut record = run_record("r");
        let Record::Run(r) = &mut record else {
            unreachable!()
        };
        let module = |name: &str, registered: Option<&str>| ModuleRef {
            sha256: Some("ab".repeat(32)),
            bytes: Some(100),
            registered_sha256: registered.map(str::to_owned),
            ..ModuleRef::named(name.parse().unwrap())
        };
        r.run.plan.modules = vec![
            module("mine", Some(&"0c".repeat(32))),
            module("other", None),
        ];
        vec![record]
    }

    #[test]
    fn a_run_of_a_module_that_changed_since_it_was_registered_says_so_typed() {
        let report = report_of(run_of_two_modules());
        let changed: Vec<_> = report
            .warnings
            .iter()
            .filter(|w| matches!(w, Warning::ModuleChanged { .. }))
            .collect();
        assert_eq!(
            changed,
            vec![&Warning::ModuleChanged {
                name: "mine".parse().unwrap(),
                sha256: "ab".repeat(32),
                registered_sha256: "0c".repeat(32),
            }]
        );
    }
}
