//! Tengen's web app: an HTTP JSON API over the rules and the engine, the page that uses it
//! (embedded), and a SQLite store of results. Engine searches run on blocking threads, a bounded
//! number at once, and stop when their game is left or a newer request supersedes them.
//!
//! The API is described in `docs/api.md` at the root of the repository.

mod api;
mod assets;
mod engine_pool;
mod error;
pub mod online;
mod session;
mod store;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

pub use error::{ApiError, ServeError};
pub use session::{ClockSpec, Opponent, score_text};
pub use store::Store;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to listen on.
    pub host: String,
    /// The port (0 for any free port).
    pub port: u16,
    /// Where the SQLite file lives (when `database` is not given).
    pub data_dir: PathBuf,
    /// A database URL (`sqlite:/path/to/file.db`), overriding `data_dir`.
    pub database: Option<String>,
    /// How many searches may run at once (default: the number of cores).
    pub engine_threads: Option<usize>,
    /// Hash table size of each engine, in megabytes.
    pub hash_mb: usize,
    /// How long a player of an online game may be gone before the opponent may claim the win.
    pub grace_secs: u64,
}

impl Config {
    /// The defaults: 127.0.0.1:8080, the user's data folder.
    pub fn new(data_dir: PathBuf) -> Config {
        Config {
            host: "127.0.0.1".into(),
            port: 8080,
            data_dir,
            database: None,
            engine_threads: None,
            hash_mb: 32,
            grace_secs: 120,
        }
    }

    /// The database URL in use.
    pub fn database_url(&self) -> String {
        self.database
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}", self.data_dir.join("tengen.db").display()))
    }
}

/// The user's data folder for Tengen: `$XDG_DATA_HOME/tengen`, else `~/.local/share/tengen`
/// (`%APPDATA%\tengen` on Windows), else `./tengen-data`.
pub fn default_data_dir() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("XDG_DATA_HOME") {
        return d.join("tengen");
    }
    if cfg!(windows) {
        if let Some(d) = env("APPDATA") {
            return d.join("tengen");
        }
    }
    if let Some(h) = env("HOME") {
        return h.join(".local").join("share").join("tengen");
    }
    Path::new("tengen-data").to_path_buf()
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    addr: SocketAddr,
}

impl Server {
    /// Opens the database (running the migrations) and binds the address.
    pub async fn bind(config: &Config) -> Result<Server, ServeError> {
        if config.database.is_none() {
            std::fs::create_dir_all(&config.data_dir)
                .map_err(|e| ServeError::DataDir(config.data_dir.display().to_string(), e))?;
        }
        let store = Store::open(&config.database_url()).await?;
        let threads = config.engine_threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
        });
        let pool = engine_pool::EnginePool::new(threads, config.hash_mb);
        let online = online::Online::start(store.pool().clone(), config.grace_secs * 1000)
            .await
            .map_err(|e| ServeError::Database(config.database_url(), e))?;
        let router = online::router(online).merge(api::router(api::AppState::new(store, pool)));
        let target = format!("{}:{}", config.host, config.port);
        let listener = tokio::net::TcpListener::bind(&target)
            .await
            .map_err(|e| ServeError::Bind(target.clone(), e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ServeError::Bind(target, e))?;
        Ok(Server {
            listener,
            router,
            addr,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` completes.
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        use axum::serve::ListenerExt as _;
        // Moves are small frames that must go out at once, not wait for Nagle's algorithm.
        let listener = self.listener.tap_io(|tcp| {
            // Without it a frame may wait up to 40 ms; nothing breaks.
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, self.router)
            .with_graceful_shutdown(shutdown)
            .await?;
        Ok(())
    }

    /// Serves until Ctrl-C.
    pub async fn run(self) -> Result<(), ServeError> {
        self.run_until(async {
            // If the signal cannot be installed, serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await
    }
}

/// Runs the server on its own Tokio runtime until Ctrl-C; `on_ready` is called with the bound
/// address once it listens. For a binary without a runtime of its own.
pub fn run_blocking(
    config: &Config,
    on_ready: impl FnOnce(SocketAddr) + Send,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = Server::bind(config).await?;
        on_ready(server.local_addr());
        server.run().await
    })
}

/// Opens `url` in the user's browser (best effort; returns whether a launcher started).
pub fn open_browser(url: &str) -> bool {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(url)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}
