//! Maps a request line to what the sink does with it. Pure, so it is tested alone.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route<'a> {
    /// `/` sends the browser on to the benchmark page.
    Home,
    /// A file of the benchmark page (`bench/…` or `lib/…` of the extension tree).
    Asset(&'a str),
    /// `/upload/<token>`; the token may be empty or wrong, which the caller checks.
    Upload {
        token: &'a str,
    },
    /// `/chunk/<token>/<run id>/<upload id>/<index>`: one encrypted chunk.
    Chunk {
        token: &'a str,
        run_id: &'a str,
        upload: &'a str,
        index: u64,
    },
    /// `/download/<token>?bytes=N&seed=<32 hex>`.
    Download {
        token: &'a str,
    },
    /// `/serve/<token>/<what>`: a message of the page `unobserved serve` serves.
    Api {
        token: &'a str,
        what: &'a str,
    },
    /// `/ledger/<token>?run=<run id>&upload=<id>`: a remote sink's record, claimed by
    /// the host that stores the sample (`?run=<run id>&forget=1` when the run ends).
    Ledger {
        token: &'a str,
    },
    /// `/m/<token>/<run id>/<upload id>[/<offset>]`: a workload module's upload, whole
    /// or the part at a byte offset (`parts.rs`).
    Module {
        token: &'a str,
        run_id: &'a str,
        upload: &'a str,
        offset: u64,
    },
    /// `/tus/<token>/<run id>/<upload id>`: a tus 1.0 upload (creation, HEAD, PATCH,
    /// OPTIONS; `tus.rs`). The creation URL is also the upload's own.
    Tus {
        token: &'a str,
        run_id: &'a str,
        upload: &'a str,
    },
    /// `/module/<token>/<run id>/<name>`: a run's workload module, for its page to import.
    ModuleSource {
        token: &'a str,
        run_id: &'a str,
        name: &'a str,
    },
    NotFound,
}

impl Route<'_> {
    /// The token a guarded route carries (possibly empty or wrong); None for open routes.
    pub fn token(&self) -> Option<&str> {
        match self {
            Route::Upload { token }
            | Route::Chunk { token, .. }
            | Route::Download { token }
            | Route::Api { token, .. }
            | Route::Ledger { token }
            | Route::Module { token, .. }
            | Route::Tus { token, .. }
            | Route::ModuleSource { token, .. } => Some(token),
            _ => None,
        }
    }
}

use crate::domain::sink_url::UPLOAD_PREFIX;
pub const LEDGER_PREFIX: &str = "/ledger/";
pub const PAGE_PATH: &str = "/bench/index.html";
pub const API_PREFIX: &str = "/serve/";
/// The page `unobserved serve` serves, with its own Run button.
pub const SERVE_PAGE_PATH: &str = "/bench/serve.html";

pub fn route(url: &str) -> Route<'_> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    if path == "/" {
        return Route::Home;
    }
    if path == "/upload" {
        return Route::Upload { token: "" };
    }
    if let Some(token) = path.strip_prefix(UPLOAD_PREFIX) {
        return Route::Upload { token };
    }
    if let Some(token) = path.strip_prefix("/download/") {
        return Route::Download { token };
    }
    if let Some(rest) = path.strip_prefix(API_PREFIX) {
        let (token, what) = rest.split_once('/').unwrap_or((rest, ""));
        return Route::Api { token, what };
    }
    if let Some(token) = path.strip_prefix(LEDGER_PREFIX) {
        return Route::Ledger { token };
    }
    if let Some(module) = module_route(path) {
        return module;
    }
    if let Some(rest) = path.strip_prefix("/chunk/") {
        let parts: Vec<&str> = rest.split('/').collect();
        if let [token, run_id, upload, index] = parts[..] {
            if let Ok(index) = index.parse() {
                return Route::Chunk {
                    token,
                    run_id,
                    upload,
                    index,
                };
            }
        }
        return Route::NotFound;
    }
    if path == "/bench" || path == "/bench/" {
        return Route::Asset("bench/index.html");
    }
    match path.strip_prefix('/') {
        Some(rel)
            if (rel.starts_with("bench/") || rel.starts_with("lib/")) && !rel.contains("..") =>
        {
            Route::Asset(rel)
        }
        _ => Route::NotFound,
    }
}

/// The three routes of workload modules, all `<prefix>/<token>/<run id>/<name>[/…]`.
fn module_route(path: &str) -> Option<Route<'_>> {
    let (prefix, rest) = path.strip_prefix('/')?.split_once('/')?;
    let parts: Vec<&str> = rest.split('/').collect();
    let route = match (prefix, &parts[..]) {
        ("m", &[token, run_id, upload]) => Route::Module {
            token,
            run_id,
            upload,
            offset: 0,
        },
        ("m", &[token, run_id, upload, offset]) => match offset.parse() {
            Ok(offset) => Route::Module {
                token,
                run_id,
                upload,
                offset,
            },
            Err(_) => Route::NotFound,
        },
        ("tus", &[token, run_id, upload]) => Route::Tus {
            token,
            run_id,
            upload,
        },
        ("module", &[token, run_id, name]) => Route::ModuleSource {
            token,
            run_id,
            name,
        },
        ("m" | "tus" | "module", _) => Route::NotFound,
        _ => return None,
    };
    Some(route)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(route("/"), Route::Home);
        assert_eq!(route("/bench/"), Route::Asset("bench/index.html"));
        assert_eq!(route("/lib/plan.js?v=1"), Route::Asset("lib/plan.js"));
        assert_eq!(
            route("/upload/abc?kind=Blob"),
            Route::Upload { token: "abc" }
        );
        assert_eq!(route("/upload"), Route::Upload { token: "" });
        assert_eq!(route("/upload/"), Route::Upload { token: "" });
        assert_eq!(route("/lib/../manifest.json"), Route::NotFound);
        assert_eq!(route("/manifest.json"), Route::NotFound);
        assert_eq!(route("/etc/passwd"), Route::NotFound);
        assert_eq!(route(""), Route::NotFound);
        assert_eq!(
            route("/chunk/t/r1/u1/7"),
            Route::Chunk {
                token: "t",
                run_id: "r1",
                upload: "u1",
                index: 7
            }
        );
        assert_eq!(route("/chunk/t/r1/u1/x"), Route::NotFound);
        assert_eq!(
            route("/serve/t/runs/r1/samples?x=1"),
            Route::Api {
                token: "t",
                what: "runs/r1/samples"
            }
        );
        assert_eq!(
            route("/serve/t"),
            Route::Api {
                token: "t",
                what: ""
            }
        );
        assert_eq!(route("/chunk/t/r1"), Route::NotFound);
        assert_eq!(
            route("/download/t?bytes=5&seed=00"),
            Route::Download { token: "t" }
        );
        assert_eq!(
            route("/ledger/t?run=r&upload=u"),
            Route::Ledger { token: "t" }
        );
    }

    #[test]
    fn module_routes() {
        let part = |offset| Route::Module {
            token: "t",
            run_id: "r",
            upload: "u",
            offset,
        };
        assert_eq!(route("/m/t/r/u"), part(0));
        assert_eq!(route("/m/t/r/u/16777216?i=1"), part(16777216));
        assert_eq!(route("/m/t/r/u/-1"), Route::NotFound);
        assert_eq!(route("/m/t/r"), Route::NotFound);
        assert_eq!(route("/m/t/r/u/1/2"), Route::NotFound);
        assert_eq!(
            route("/tus/t/r/u"),
            Route::Tus {
                token: "t",
                run_id: "r",
                upload: "u"
            }
        );
        assert_eq!(route("/tus/t/r"), Route::NotFound);
        assert_eq!(
            route("/module/t/r/old"),
            Route::ModuleSource {
                token: "t",
                run_id: "r",
                name: "old"
            }
        );
        assert_eq!(route("/module/t/r/a/b"), Route::NotFound);
        assert_eq!(route("/mx/t/r/u"), Route::NotFound);
    }
}
