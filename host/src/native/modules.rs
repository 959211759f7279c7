//! A run's workload modules at `run-started`: each is read (a `--script` of the job, or
//! a module registered with `unobserved workload add`), its SHA-256 and size go into the
//! plan the run records, the sink serves exactly those bytes to the run's page, and the
//! host chooses the seed of the bytes every module is given, so it knows them without
//! the page (`sink::expected`).

use super::Session;
use crate::domain::run::RunInfo;
use crate::domain::workload::{ModuleName, ModuleRef};
use crate::modules::{self, registry::Registry, Loaded};
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::sink::expected::ModuleRun;

fn unavailable(message: String) -> Box<Outgoing> {
    Box::new(Outgoing::error(
        ErrorCode::ModuleUnavailable,
        format!("{message}; nothing was recorded"),
        Some(MessageType::RunStarted.into()),
    ))
}

/// Reads `name`: the job's `--script` of that name, else the registered one.
fn read(session: &Session, name: &ModuleName) -> Result<(Loaded, ModuleRef), String> {
    if let Some(job) = session.job_modules.iter().find(|m| m.name == *name) {
        let loaded = modules::load(name, &job.path).map_err(|e| e.to_string())?;
        let record = modules::registry::record_of(&loaded);
        return Ok((loaded, record));
    }
    let dir = session
        .state_dir
        .as_deref()
        .ok_or("there is no state dir to find registered modules in")?;
    Registry::in_dir(dir).load(name).map_err(|e| e.to_string())
}

/// Reads the plan's modules into it and serves them for the run; the error reply when
/// one cannot be had. A run without modules is left as it is.
pub fn prepare(session: &Session, run: &mut RunInfo, remote: bool) -> Result<(), Box<Outgoing>> {
    if run.plan.modules.is_empty() {
        return Ok(());
    }
    if remote {
        return Err(unavailable(
            "workload modules run on the local sink, which serves them and checks what they send"
                .into(),
        ));
    }
    let mut loaded = Vec::new();
    for m in &mut run.plan.modules {
        let (module, record) = read(session, &m.name).map_err(unavailable)?;
        *m = record;
        loaded.push(module);
    }
    let bytes = ModuleRun::new(run.plan.size_bytes);
    run.plan.module_seed = Some(hex::encode(bytes.seed));
    session.sink.ledger().expect_modules(&run.run_id, bytes);
    for m in loaded {
        session
            .sink
            .modules()
            .serve(&run.run_id, m.name.as_str(), m.source);
    }
    Ok(())
}
