//! A run's conditions while it measures (issue 36): the sampler, the load the run
//! generates in its loaded blocks, and which block is open. Blocks begin when the page
//! asks `auto-check` before the block's first rep (so a block's load is on before its
//! first upload), or, for a run without a generated load, when the block's first sample
//! is stored; each block's figures are stored as a `conditions` line as it ends, with
//! whether its uploads ran in a benchmark page of their own (`BlockPage`).

use super::Session;
use crate::conditions::{load::LoadProcess, Sampler};
use crate::domain::conditions::{BlockConditions, BlockPage, Load};
use crate::domain::plan::Plan;
use crate::store::{records::now, ConditionsRecord, Record};
use std::collections::BTreeSet;

pub struct RunConditions {
    sampler: Sampler,
    load: Option<LoadProcess>,
    plan: Plan,
    pages: Pages,
}

/// The benchmark pages (`Sample::page_load`) the open block's samples ran in, and those
/// of the blocks before it.
#[derive(Default)]
struct Pages {
    open: BTreeSet<u32>,
    unnamed: bool,
    earlier: BTreeSet<u32>,
}

impl Pages {
    fn saw(&mut self, page: Option<u32>) {
        match page {
            Some(p) => {
                self.open.insert(p);
            }
            None => self.unnamed = true,
        }
    }

    /// The open block's page, as it closes: its own when all its samples name one page
    /// that no earlier block used; none when no sample named one.
    fn close(&mut self) -> Option<BlockPage> {
        let open = std::mem::take(&mut self.open);
        let unnamed = std::mem::take(&mut self.unnamed);
        let page = match (open.first(), open.len(), unnamed) {
            (None, _, _) => None,
            (Some(&p), 1, false) if !self.earlier.contains(&p) => Some(BlockPage::Own { load: p }),
            _ => Some(BlockPage::Shared),
        };
        self.earlier.extend(open);
        page
    }
}

/// At `run-started`, once the run is recorded: sampling begins, block 0 open, its
/// load on when it has one.
pub fn start(session: &mut Session, run_id: &str, plan: &Plan) {
    let roots = session.own_processes.clone();
    let sampler = Sampler::start(roots, plan.load_of(0), session.browser_gap);
    let load = if plan.loads.contains(&Load::Cpu) {
        match LoadProcess::spawn() {
            Ok(l) => Some(l),
            Err(e) => {
                log::error!("run {run_id}: cannot start the CPU load: {e}");
                None
            }
        }
    } else {
        None
    };
    if let Some(l) = &load {
        sampler.set_load_pid(l.pid());
    }
    let mut run = RunConditions {
        sampler,
        load,
        plan: plan.clone(),
        pages: Pages::default(),
    };
    run.switch_load(plan.load_of(0));
    session.conditions.insert(run_id.to_owned(), run);
}

impl RunConditions {
    fn switch_load(&mut self, load: Load) {
        if let Some(l) = &mut self.load {
            l.set(load == Load::Cpu);
        }
    }

    /// Opens the block of `rep` if it is a later one than the block open now.
    fn reach(&mut self, rep: u32) -> Option<BlockConditions> {
        let block = self.plan.block_of(rep);
        let (open, _) = self.sampler.open_block()?;
        if block <= open {
            return None;
        }
        let k = self.plan.block_reps.unwrap_or(1);
        let load = self.plan.load_of(block);
        self.switch_load(load);
        let mut closed = self.sampler.begin_block(block, block * k, load)?;
        closed.page = self.pages.close();
        Some(closed)
    }
}

fn store(session: &Session, run_id: &str, closed: Option<BlockConditions>) {
    let Some(block) = closed else { return };
    log::info!(
        "run {run_id}: block {} ({:?}): {:?}",
        block.block,
        block.load,
        block.state
    );
    let record = Record::Conditions(ConditionsRecord {
        run_id: run_id.to_owned(),
        block,
        recorded_at: now(),
    });
    if let Err(e) = session.store.append(&[record]) {
        log::error!("cannot record a block's conditions: {e}");
    }
}

/// Before the rep `next_rep` begins (`auto-check`): its block opens, its load on.
pub fn before_rep(session: &mut Session, run_id: &str, next_rep: u32) {
    let closed = session
        .conditions
        .get_mut(run_id)
        .and_then(|r| r.reach(next_rep));
    store(session, run_id, closed);
}

/// Samples were stored, each `(rep, page_load)` in order: in a run without a generated
/// load, a sample of a later block opens it; each names the page its block ran in.
pub fn stored(session: &mut Session, run_id: &str, samples: &[(u32, Option<u32>)]) {
    for &(rep, page) in samples {
        let Some(run) = session.conditions.get_mut(run_id) else {
            return;
        };
        let closed = if run.load.is_none() {
            run.reach(rep)
        } else {
            None
        };
        run.pages.saw(page);
        store(session, run_id, closed);
    }
}

/// At `run-finished`: the last block's figures; the load ends.
pub fn finish(session: &mut Session, run_id: &str) {
    let Some(run) = session.conditions.remove(run_id) else {
        return;
    };
    let RunConditions {
        sampler,
        load,
        mut pages,
        ..
    } = run;
    drop(load);
    let closed = sampler.finish().map(|mut c| {
        c.page = pages.close();
        c
    });
    store(session, run_id, closed);
}
