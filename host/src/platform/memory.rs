//! This machine's memory, and what it allows a plan (a body is never over an eighth of it).

use crate::domain::limits::{Limits, LIMITS};

#[cfg(unix)]
pub fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system configuration.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

#[cfg(not(unix))]
pub fn physical_memory() -> Option<u64> {
    None
}

/// LIMITS on this machine: a body is also never over an eighth of its memory. What
/// `Plan::validate_within` is given wherever a plan is about to run.
pub fn plan_limits() -> Limits {
    let mut limits = LIMITS;
    if let Some(ram) = physical_memory() {
        limits.size_bytes.max = limits.size_bytes.max.min(ram / 8);
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_never_allows_more_than_the_shared_limits() {
        let here = plan_limits();
        assert!(here.size_bytes.max <= LIMITS.size_bytes.max);
        assert_eq!(
            Limits {
                size_bytes: LIMITS.size_bytes,
                ..here
            },
            LIMITS
        );
        let default = crate::domain::plan::Plan::default();
        assert_eq!(default.validate_within(&here), Ok(()));
    }
}
