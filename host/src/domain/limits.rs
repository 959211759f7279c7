//! Every number a plan may hold, with its bounds: one place. `plan/validate.rs` validates
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

/// Every count, size and text that a page or a peer (a remote sink, a device on the LAN)
/// sends, bounded before it is used: no loop runs over a number they chose, and nothing
/// they send is kept at a length they chose. A plan's own numbers are `LIMITS`; a sample
/// must also fit its run's plan (`verify::fit`), which bounds it further.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Input {
    /// Samples in one `samples` message (the extension and `serve`'s page send one).
    pub samples_per_message: usize,
    /// Bytes of one stored sample, as its store line: far above what the largest record
    /// makes (a timeline of `timeline_points` points, stalls and request spans).
    pub sample_bytes: usize,
    /// Characters kept of a page's error text for one sample.
    pub error_chars: usize,
    /// Characters kept of an upload's Content-Type header in the sink's record.
    pub content_type_chars: usize,
    /// Points of one upload's arrival record (`sink::timeline::MAX_POINTS`), and the
    /// request spans of a combined one.
    pub timeline_points: usize,
    /// Stalls kept with their place in one record (`sink::timeline::MAX_STALLS`).
    pub timeline_stalls: usize,
    /// Bytes of a reply the host reads from a sink (a remote sink's ledger claim, say).
    pub peer_reply_bytes: usize,
    /// Upload records (tombstones included) one run may hold in a sink's ledger,
    /// whatever its plan asks for; and every run together.
    pub ledger_records_per_run: usize,
    pub ledger_records: usize,
    /// Runs a sink's ledger keeps open at once, and ended runs it remembers as ended.
    pub ledger_runs: usize,
    pub ledger_ended_runs: usize,
}

/// The bounds on what pages and peers send.
pub const INPUT: Input = Input {
    samples_per_message: 64,
    sample_bytes: 256 << 10,
    error_chars: 1024,
    content_type_chars: 256,
    timeline_points: 512,
    timeline_stalls: 32,
    peer_reply_bytes: 4 << 20,
    ledger_records_per_run: 8192,
    ledger_records: 16384,
    ledger_runs: 64,
    ledger_ended_runs: 4096,
};
