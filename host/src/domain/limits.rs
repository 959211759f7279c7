//! Every number a plan may hold, with its bounds: one place. `plan_limits.rs` validates
//! plans against `LIMITS` (and tells the options page of them).

use serde::Serialize;

/// From `min` to `max`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bounds<T> {
    pub min: T,
    pub max: T,
}

impl<T: PartialOrd + Copy> Bounds<T> {
    pub fn contains(&self, v: T) -> bool {
        self.min <= v && v <= self.max
    }
}

impl<T: std::fmt::Display> std::fmt::Display for Bounds<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "from {} to {}", self.min, self.max)
    }
}

/// Strictly between `above` and `below`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Between {
    pub above: f64,
    pub below: f64,
}

impl Between {
    pub fn contains(&self, v: f64) -> bool {
        v > self.above && v < self.below
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limits {
    /// Bytes of a body, an encrypted file, a download or one parallel upload: at least
    /// what can be timed, at most what one tab can allocate several times over (the page
    /// holds the bytes, the body and the browser's copy).
    pub size_bytes: Bounds<u64>,
    /// Measured reps. 1000 interleaved reps resolve any difference worth reporting; more
    /// only grows the store.
    pub reps: Bounds<u32>,
    pub warmup: Bounds<u32>,
    /// The sink holds one encrypted chunk in memory to decrypt it.
    pub chunk_bytes: Bounds<u64>,
    /// Concurrent uploads of a parallel workload.
    pub streams: Bounds<u32>,
    /// --auto's budget: reps in all (the same ceiling as `reps`) and measured seconds.
    pub auto_max_reps: Bounds<u32>,
    pub auto_max_seconds: Bounds<u64>,
    /// A fraction: differences smaller than this count as "the same".
    pub horizon: Between,
}

const REPS: Bounds<u32> = Bounds { min: 1, max: 1000 };

/// The limits shared with the options page.
pub const LIMITS: Limits = Limits {
    size_bytes: Bounds {
        min: 1 << 10,
        max: 4 << 30,
    },
    reps: REPS,
    warmup: Bounds { min: 0, max: 100 },
    chunk_bytes: Bounds {
        min: 1 << 10,
        max: 64 << 20,
    },
    streams: Bounds { min: 1, max: 64 },
    auto_max_reps: REPS,
    auto_max_seconds: Bounds {
        min: 1,
        max: 864_000,
    },
    horizon: Between {
        above: 0.0,
        below: 1.0,
    },
};
