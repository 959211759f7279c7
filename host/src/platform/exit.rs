//! Exit codes of the command line, documented in `unobserved --help` and docs/command-reference.md.
//! Below `cli` and `run`, so a run's signal handling names them without reaching up.

pub const OK: i32 = 0;
pub const FAILED: i32 = 1;
pub const USAGE: i32 = 2;
pub const BROWSER_MISSING: i32 = 3;
pub const NO_CONNECTION: i32 = 4;
/// `--fail-on` found a sample of a kind it names.
pub const CORRUPTION: i32 = 5;
/// `compare --fail-if-slower` found an arm slower beyond its bound.
pub const SLOWER: i32 = 6;
/// `compare --fail-if-slower` could not tell: the machine ran at another speed in one
/// of the runs (not comparable), or an arm's interval reaches past the bound.
pub const UNDECIDED: i32 = 7;
/// `compare`: two runs ran a workload module of one name with different code
/// (SHA-256), so nothing was compared.
pub const MODULE_CODE_DIFFERS: i32 = 8;
/// `run`: results could not be stored (the store is not writable, or the host's writes
/// to it failed, e.g. on a full disk), so nothing was measured or kept.
pub const STORE_FAILED: i32 = 9;
/// 128 + the signal's number, as shells report it.
pub const SIGHUP: i32 = 129;
pub const SIGINT: i32 = 130;
pub const SIGTERM: i32 = 143;
