//! `hello`: tell the extension where the sink is, and hand over a pending job.

use super::Session;
use crate::modules::registry::Registry;
use crate::platform::untrusted::Clipped;
use crate::protocol::job::Job;
use crate::protocol::messages::{Outgoing, RegisteredModule, SinkInfo};

pub fn handle(
    session: &mut Session,
    extension_version: Option<String>,
    browser: Option<String>,
) -> Outgoing {
    log::info!(
        "hello from extension {:?} in {:?}",
        extension_version.as_deref().map(Clipped),
        browser.as_deref().map(Clipped)
    );
    // The job's TLS key stays in the host: the extension needs the plan, not the key.
    let job = claim_job(session).map(|mut job| {
        session.job_tls = job.tls.take();
        session.job_modules = std::mem::take(&mut job.module_files);
        session.job = Some(super::job_run::JobRun::take_from(&mut job));
        job
    });
    Outgoing::Hello {
        version: env!("CARGO_PKG_VERSION").into(),
        sink: SinkInfo {
            base_url: session.sink.base_url(),
            upload_url: session.sink.upload_url(),
            page_url: session.sink.page_url(),
        },
        job: job.map(Box::new),
        modules: registered(session),
    }
}

/// The registered modules, for the popup and Options; none when the registry cannot be
/// read (said in the log: a run naming one gets error 19 with the reason).
fn registered(session: &Session) -> Vec<RegisteredModule> {
    let Some(dir) = session.state_dir.as_deref() else {
        return Vec::new();
    };
    match Registry::in_dir(dir).list() {
        Ok(list) => list
            .into_iter()
            .map(|m| RegisteredModule {
                name: m.name,
                sha256: m.sha256,
                bytes: m.bytes,
            })
            .collect(),
        Err(e) => {
            log::warn!("registered workload modules not offered: {e}");
            Vec::new()
        }
    }
}

/// A job is offered once: the file is renamed when claimed, so a reconnecting
/// extension does not run the suite twice.
fn claim_job(session: &mut Session) -> Option<Job> {
    let path = session.job_file.take()?;
    let claimed = path.with_extension("claimed");
    if let Err(e) = std::fs::rename(&path, &claimed) {
        log::info!("no job to offer ({}: {e})", path.display());
        return None;
    }
    match std::fs::read(&claimed)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice::<Job>(&b).map_err(|e| e.to_string()))
    {
        Ok(job) => {
            log::info!("offering job {}", job.run_id);
            Some(job)
        }
        Err(e) => {
            log::error!("job file {} is unreadable: {e}", claimed.display());
            None
        }
    }
}
