//! What the machine was doing while a run measured (issue 36): the sampler
//! (`sampler.rs`, reading Linux's /proc through `procfs.rs`), which processes are the
//! run's own (`roots`), and the load a run generates on purpose (`load.rs`). The types
//! are the domain's (`domain::conditions`); the words are `export/conditions.rs`'s.

pub mod calibrate;
pub mod load;
#[cfg(target_os = "linux")]
pub mod page_browser;
#[cfg(target_os = "linux")]
pub mod procfs;
pub mod sampler;

pub use sampler::Sampler;

/// The processes a native host counts as the run's own: the browser that started it
/// (its parent) and everything under it, this host included; when the browser was
/// started by `unobserved run` (the same binary as this one), that process and its
/// watchdog too.
#[cfg(target_os = "linux")]
pub fn native_roots() -> Vec<u32> {
    let me = std::process::id();
    let Some(browser) = procfs::parent_of(me) else {
        return vec![me];
    };
    let ours = procfs::exe_of(me);
    match procfs::parent_of(browser) {
        Some(cli) if cli > 1 && ours.is_some() && procfs::exe_of(cli) == ours => vec![cli],
        _ => vec![browser, me],
    }
}

#[cfg(not(target_os = "linux"))]
pub fn native_roots() -> Vec<u32> {
    vec![std::process::id()]
}

/// `serve`'s own processes (with `run --browser webkit`, the browser is among them).
pub fn this_process() -> Vec<u32> {
    vec![std::process::id()]
}

/// `serve`'s own processes and the browser of the page that starts a run over the
/// connection from `peer` to `local` (`page_browser.rs`), and the gap to state when
/// that page is on this machine and its browser was not found.
#[cfg(target_os = "linux")]
pub fn serve_roots(
    local: std::net::SocketAddr,
    peer: std::net::SocketAddr,
) -> (Vec<u32>, Option<crate::domain::conditions::Gap>) {
    use page_browser::PageBrowser;
    let mut roots = this_process();
    match page_browser::of_connection(local, peer) {
        PageBrowser::Found { root } => {
            roots.push(root);
            (roots, None)
        }
        PageBrowser::OtherMachine => (roots, None),
        PageBrowser::NotFound => (roots, Some(crate::domain::conditions::Gap::BrowserUnknown)),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn serve_roots(
    _local: std::net::SocketAddr,
    _peer: std::net::SocketAddr,
) -> (Vec<u32>, Option<crate::domain::conditions::Gap>) {
    (this_process(), None)
}

#[cfg(all(test, target_os = "linux"))]
mod tests;

/// Tests that load the machine's cores on purpose (or time a task that such a load
/// would slow) take this, so no two of them overlap in one test binary.
#[cfg(test)]
pub(crate) static CORES_IN_USE: std::sync::Mutex<()> = std::sync::Mutex::new(());
