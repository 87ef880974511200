//! Engine work off the async runtime: a fixed set of worker threads, each with its own engine
//! (and hash table), taking searches from a queue with two priorities. A computer's move is taken
//! before any waiting hint or analysis, and hints and analyses together hold at most
//! `analysis_threads` workers, so a player's move never waits behind another client's analyses
//! for more than the search it finds running. Each search is stoppable, and each takes the
//! workers idle when it starts as extra search threads (Lazy SMP): on a quiet server one
//! player's master move or analysis uses every core, on a busy one each search has one.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use serde::Serialize;
use tengen_engine::Engine;
use tokio::sync::oneshot;

use crate::error::ApiError;

/// Sets a search's stop flag when dropped: a request that goes away (the page was closed, the
/// connection dropped) stops its search.
#[derive(Debug)]
pub struct StopOnDrop(pub Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Which queue a search waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// The computer's move or decision in a game: first.
    Move,
    /// A hint, an analysis or a draw offer's look at the position: after every waiting move.
    Analysis,
}

/// A search job, given the worker's engine slot and the threads it may search with.
type Job = Box<dyn FnOnce(&mut Option<Engine>, usize) + Send>;

#[derive(Default)]
struct Queue {
    moves: VecDeque<Job>,
    analyses: VecDeque<Job>,
    running_moves: usize,
    running_analyses: usize,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
    threads: usize,
    analysis_threads: usize,
    hash_mb: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // The queue is changed by single pushes, pops and counts: a poisoned lock left it whole.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What the pool is doing, for `GET /api/engine`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PoolStats {
    /// Worker threads.
    pub threads: usize,
    /// How many of them hints and analyses may hold at once.
    pub analysis_threads: usize,
    /// Computer moves being searched.
    pub running_moves: usize,
    /// Hints and analyses being searched.
    pub running_analyses: usize,
    /// Computer moves waiting.
    pub queued_moves: usize,
    /// Hints and analyses waiting.
    pub queued_analyses: usize,
}

// Closes the queue when the last handle goes, so the workers end.
struct Owner(Arc<Shared>);

impl Drop for Owner {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.ready.notify_all();
    }
}

/// The pool.
#[derive(Clone)]
pub struct EnginePool {
    owner: Arc<Owner>,
    threads: usize,
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnginePool")
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl EnginePool {
    /// `threads` workers (at least one), of which hints and analyses may hold
    /// `analysis_threads` (default: all but one; at least one), each engine with `hash_mb` of
    /// hash.
    pub fn new(threads: usize, analysis_threads: Option<usize>, hash_mb: usize) -> EnginePool {
        let threads = threads.max(1);
        let analysis_threads = analysis_threads
            .unwrap_or(threads.saturating_sub(1))
            .clamp(1, threads);
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            threads,
            analysis_threads,
            hash_mb,
        });
        for i in 0..threads {
            let shared = shared.clone();
            // A worker that cannot start leaves the others to do the work.
            let _ = std::thread::Builder::new()
                .name(format!("engine-{i}"))
                .spawn(move || worker(&shared));
        }
        EnginePool {
            owner: Arc::new(Owner(shared)),
            threads,
        }
    }

    /// What the pool is doing now.
    pub fn stats(&self) -> PoolStats {
        let shared = &self.owner.0;
        let q = shared.lock();
        PoolStats {
            threads: self.threads,
            analysis_threads: shared.analysis_threads,
            running_moves: q.running_moves,
            running_analyses: q.running_analyses,
            queued_moves: q.moves.len(),
            queued_analyses: q.analyses.len(),
        }
    }

    /// Runs `work` with an engine on a worker thread once one is free for `priority`. `stop` is
    /// set when the returned future is dropped; `work` should pass it to the engine.
    pub async fn run<T, F>(
        &self,
        priority: Priority,
        stop: Arc<AtomicBool>,
        work: F,
    ) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Engine, &AtomicBool) -> T + Send + 'static,
    {
        let _guard = StopOnDrop(stop.clone());
        let (tx, rx) = oneshot::channel();
        let hash_mb = self.owner.0.hash_mb;
        let job: Job = Box::new(move |slot: &mut Option<Engine>, search_threads| {
            let engine = slot.get_or_insert_with(|| Engine::new(hash_mb));
            engine.set_threads(search_threads);
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| work(engine, &stop)));
            if out.is_err() {
                // The engine may be left inconsistent: the next search gets a new one.
                *slot = None;
            }
            // A request that went away needs no answer.
            let _ = tx.send(out);
        });
        {
            let shared = &self.owner.0;
            let mut q = shared.lock();
            match priority {
                Priority::Move => q.moves.push_back(job),
                Priority::Analysis => q.analyses.push_back(job),
            }
            // Any idle worker may be the one allowed to take it.
            shared.ready.notify_all();
        }
        match rx.await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(panic)) => {
                let why = panic_text(panic.as_ref());
                tracing::warn!(panic = %why, "an engine search failed");
                // What failed is for the log, not for whoever asked.
                Err(ApiError::Engine(
                    "the search failed inside the server (the failure is in its log)".into(),
                ))
            }
            Err(_) => Err(ApiError::Engine("the engine pool has stopped".into())),
        }
    }
}

/// What a panic said, when it said it with a string.
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

fn worker(shared: &Shared) {
    let mut engine: Option<Engine> = None;
    loop {
        let (job, priority, search_threads) = {
            let mut q = shared.lock();
            let (job, priority) = loop {
                if q.closed {
                    return;
                }
                if let Some(job) = q.moves.pop_front() {
                    q.running_moves += 1;
                    break (job, Priority::Move);
                }
                if q.running_analyses < shared.analysis_threads {
                    if let Some(job) = q.analyses.pop_front() {
                        q.running_analyses += 1;
                        break (job, Priority::Analysis);
                    }
                }
                q = shared
                    .ready
                    .wait(q)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            };
            // This search (counted among the running) and the idle workers' share of the cores.
            let idle = shared
                .threads
                .saturating_sub(q.running_moves + q.running_analyses);
            (job, priority, idle + 1)
        };
        job(&mut engine, search_threads);
        let mut q = shared.lock();
        match priority {
            Priority::Move => q.running_moves -= 1,
            Priority::Analysis => {
                q.running_analyses -= 1;
                // A waiting analysis may now be allowed on another idle worker.
                shared.ready.notify_all();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_search_is_an_error_and_the_pool_goes_on() {
        let pool = EnginePool::new(1, None, 1);
        let stop = Arc::new(AtomicBool::new(false));
        let r: Result<(), _> = pool
            .run(Priority::Move, stop.clone(), |_, _| panic!("on purpose"))
            .await;
        assert!(
            matches!(&r, Err(ApiError::Engine(m)) if m.contains("failed")),
            "{r:?}"
        );
        let r = pool.run(Priority::Analysis, stop, |_, _| 7).await;
        assert_eq!(r.ok(), Some(7));
    }
}
