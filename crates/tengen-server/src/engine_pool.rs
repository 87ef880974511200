//! Engine work off the async runtime: a bounded number of searches at once, each on a blocking
//! thread with an engine (and its hash table) taken from a pool, each stoppable.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tengen_engine::Engine;
use tokio::sync::Semaphore;

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

/// The pool.
#[derive(Debug, Clone)]
pub struct EnginePool {
    permits: Arc<Semaphore>,
    engines: Arc<Mutex<Vec<Engine>>>,
    hash_mb: usize,
}

impl EnginePool {
    /// At most `threads` searches at once, each engine with `hash_mb` of hash.
    pub fn new(threads: usize, hash_mb: usize) -> EnginePool {
        EnginePool {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            engines: Arc::new(Mutex::new(Vec::new())),
            hash_mb,
        }
    }

    /// Runs `work` with an engine on a blocking thread once a slot is free. `stop` is set when
    /// the returned future is dropped; `work` should pass it to the engine.
    pub async fn run<T, F>(&self, stop: Arc<AtomicBool>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Engine, &AtomicBool) -> T + Send + 'static,
    {
        let _guard = StopOnDrop(stop.clone());
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ApiError::Engine(e.to_string()))?;
        let engines = self.engines.clone();
        let hash_mb = self.hash_mb;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let taken = engines.lock().ok().and_then(|mut v| v.pop());
            let mut engine = taken.unwrap_or_else(|| Engine::new(hash_mb));
            let out = work(&mut engine, &stop);
            if let Ok(mut v) = engines.lock() {
                v.push(engine);
            }
            out
        })
        .await
        .map_err(|e| ApiError::Engine(e.to_string()))
    }
}
