//! `unobserved workload add|list|remove`: the registry of the user's workload modules
//! (`modules::registry`), which the popup and Options offer as arms.

use super::args::WorkloadCommand;
use super::exit;
use super::usage::flag;
use crate::domain::flags::FlagError;
use crate::domain::workload::ModuleName;
use crate::modules::registry::{self, Registry, RegistryError};
use anyhow::Result;

pub fn execute(command: WorkloadCommand) -> Result<i32> {
    let state = crate::platform::state::state_dir()?;
    let registry = Registry::in_dir(&state);
    match command {
        WorkloadCommand::Add { name, path } => {
            let added = registry.add(&name_of(&name)?, &path).map_err(as_usage)?;
            println!(
                "added {}: {} ({} bytes, sha256 {})",
                added.name,
                added.path.display(),
                added.bytes,
                added.sha256
            );
        }
        WorkloadCommand::Remove { name } => {
            let removed = registry.remove(&name_of(&name)?).map_err(as_usage)?;
            println!("removed {} ({})", removed.name, removed.path.display());
        }
        WorkloadCommand::List { json } => print!("{}", listing(&registry, json)?),
    }
    Ok(exit::OK)
}

fn name_of(text: &str) -> Result<ModuleName> {
    text.parse()
        .map_err(|e: crate::domain::workload::BadModuleName| {
            flag(FlagError::ModuleName {
                error: e.to_string(),
            })
        })
}

/// A registry error, as a usage error (exit 2) when it is the user's to fix.
fn as_usage(e: RegistryError) -> anyhow::Error {
    if e.is_usage() {
        flag(FlagError::Registry {
            error: e.to_string(),
        })
    } else {
        e.into()
    }
}

/// One line per module (or JSON): name, path, and how its file is now.
fn listing(registry: &Registry, json: bool) -> Result<String> {
    let entries = registry.list().map_err(as_usage)?;
    let now: Vec<_> = entries.iter().map(registry::now).collect();
    if json {
        let rows: Vec<_> = entries
            .iter()
            .zip(&now)
            .map(|(e, now)| serde_json::json!({ "module": e, "now": now }))
            .collect();
        return Ok(format!("{}\n", serde_json::to_string_pretty(&rows)?));
    }
    Ok(crate::export::workloads::list(&entries, &now))
}
