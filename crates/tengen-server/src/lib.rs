//! Tengen's web app: an HTTP JSON API over the rules and the engine, the page that uses it
//! (embedded), and a SQLite store of every game and of results. Engine searches run on blocking threads, a bounded
//! number at once, and stop when their game is left or a newer request supersedes them.
//!
//! The API is described in `docs/api.md` at the root of the repository.

mod api;
mod assets;
mod clock;
mod deadline;
mod engine_pool;
mod error;
mod fault;
mod limits;
mod marks;
pub mod online;
mod serve;
mod session;
mod store;
#[doc(hidden)]
pub mod testing;
mod text;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

pub use error::{ApiError, ServeError};
pub use session::{Opponent, score_text};
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
    /// A database URL (`sqlite:/path/to/file.db` or `postgres://user@host/database`), overriding
    /// `data_dir`.
    pub database: Option<String>,
    /// How many searches may run at once (default: the number of cores).
    pub engine_threads: Option<usize>,
    /// Hash table size of each engine, in megabytes.
    pub hash_mb: usize,
    /// How many of the engine threads hints and analyses may hold at once (default: all but
    /// one), so that computer moves always find one.
    pub analysis_threads: Option<usize>,
    /// How long a player of an online game may be gone before the opponent may claim the win.
    pub grace_secs: u64,
    /// How long a client has to send a request's head once it starts one, and then its whole
    /// body.
    pub read_timeout: Duration,
    /// How long a connection may stay open with nothing moving on it and no request being
    /// handled (WebSockets excepted: they have their own pings).
    pub idle_timeout: Duration,
    /// Open connections per client address (0: no cap).
    pub connections_per_client: u32,
    /// API requests per client address per second, of any kind, once its burst is spent (0: no
    /// limit).
    pub requests_per_second: u32,
    /// API requests a client address may make at once before its steady rate applies (0: no
    /// limit).
    pub request_burst: u32,
    /// New games per client address per minute, all kinds together (0: no limit).
    pub games_per_minute: u32,
    /// Seconds of engine time for hints, analyses and draw offers per client address per
    /// minute (0: no limit).
    pub analysis_secs_per_minute: u32,
    /// How long an online game nobody joined stays open; then it leaves the lobby, memory and
    /// start-up.
    pub unjoined_expiry: Duration,
    /// A message bus (`redis://host:port`) shared with other nodes serving the same site from
    /// the same PostgreSQL database (`docs/deploy.md`); `None`: this server runs alone.
    pub bus: Option<String>,
    /// This node's name among the others (default: a random one at each start).
    pub node: Option<String>,
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
            analysis_threads: None,
            grace_secs: 120,
            read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            connections_per_client: 256,
            requests_per_second: 30,
            request_burst: 300,
            games_per_minute: 30,
            analysis_secs_per_minute: 60,
            unjoined_expiry: Duration::from_secs(24 * 3600),
            bus: None,
            node: None,
        }
    }

    /// Turns off the per-client limits (connections, requests, new games, analysis time): for
    /// a load test from one machine, or behind a proxy that limits clients itself (every client
    /// then has the proxy's address).
    pub fn without_client_limits(mut self) -> Config {
        self.connections_per_client = 0;
        self.requests_per_second = 0;
        self.request_burst = 0;
        self.games_per_minute = 0;
        self.analysis_secs_per_minute = 0;
        self
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

/// The page's Content-Security-Policy: everything from this server only (the page has no inline
/// script or style), never inside another site's frame.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
                   frame-ancestors 'none'";

/// The longest request body read, in bytes: a record of the largest board is far shorter.
pub(crate) const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The layers every answer goes through: security headers, a 500 (logged) instead of a dropped
/// connection when a handler panics, request logging, the body read timeout, the per-client
/// request limit, and the other client limits for the handlers.
fn layered(
    router: axum::Router,
    config: &Config,
    limits: Arc<limits::ClientLimits>,
) -> axum::Router {
    use tower_http::catch_panic::CatchPanicLayer;
    use tower_http::classify::ServerErrorsFailureClass;
    use tower_http::trace::TraceLayer;
    let header = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(name, HeaderValue::from_static(value))
    };
    router
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(api::error_bodies))
        .layer(axum::Extension(limits.clone()))
        .layer(axum::middleware::from_fn_with_state(
            limits,
            limits::per_request,
        ))
        .layer(tower::util::MapRequestLayer::new({
            let timeout = config.read_timeout;
            move |req| deadline::with_deadline(req, timeout)
        }))
        .layer(CatchPanicLayer::custom(api::panic_answer))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::X_FRAME_OPTIONS, "DENY"))
        .layer(header(header::REFERRER_POLICY, "no-referrer"))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &axum::http::Request<axum::body::Body>| {
                    tracing::debug_span!("request", method = %req.method(), uri = %req.uri())
                })
                .on_request(())
                .on_response(
                    |res: &axum::http::Response<axum::body::Body>,
                     took: Duration,
                     _: &tracing::Span| {
                        tracing::debug!(status = res.status().as_u16(), ms = took.as_millis(), "answered");
                    },
                )
                .on_failure(
                    |class: ServerErrorsFailureClass, took: Duration, _: &tracing::Span| {
                        tracing::warn!(%class, ms = took.as_millis(), "request failed");
                    },
                ),
        )
}

/// A server bound to its address, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    addr: SocketAddr,
    limits: serve::ConnLimits,
    app: api::AppState,
    online: online::Online,
}

impl Server {
    /// Opens the database (running the migrations) and binds the address.
    pub async fn bind(config: &Config) -> Result<Server, ServeError> {
        if config.database.is_none() {
            std::fs::create_dir_all(&config.data_dir)
                .map_err(|e| ServeError::DataDir(config.data_dir.display().to_string(), e))?;
        }
        if config.bus.is_some() && !store::is_postgres_url(&config.database_url()) {
            return Err(ServeError::BusWithoutSharedDatabase);
        }
        let store = Store::open(&config.database_url()).await?;
        let bus = match &config.bus {
            Some(url) => {
                let node = match &config.node {
                    Some(n) => n.clone(),
                    None => online::node_name(),
                };
                Some(online::cluster::Cluster::connect(url, node).await?)
            }
            None => None,
        };
        let threads = config.engine_threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
        });
        let pool = engine_pool::EnginePool::new(threads, config.analysis_threads, config.hash_mb);
        let online = online::Online::start(
            store.db().clone(),
            online::Timing {
                grace_ms: config.grace_secs * 1000,
                unjoined_expiry: config.unjoined_expiry,
            },
            bus,
        )
        .await
        .map_err(|e| ServeError::Database(store::redacted_url(&config.database_url()), e))?;
        let limits = Arc::new(limits::ClientLimits::new(config));
        let app = api::AppState::new(store, pool);
        let games = (app.clone(), online.clone());
        // Games where the computer was thinking when the server stopped: it thinks again.
        tokio::spawn({
            let app = app.clone();
            async move { app.resume().await }
        });
        let router = layered(
            online::router(online).merge(api::router(app)),
            config,
            limits,
        );
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
            limits: serve::ConnLimits {
                read_timeout: config.read_timeout,
                idle_timeout: config.idle_timeout,
                per_client: config.connections_per_client,
            },
            app: games.0,
            online: games.1,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves until `shutdown` completes; then stores where the running clocks stand (clocks
    /// do not run while the server is down: a game comes back with the time its player had
    /// left at the stop).
    pub async fn run_until(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        serve::serve(self.listener, self.router, self.limits, shutdown).await;
        let local = self.app.pause_all().await;
        let online = self.online.pause_all().await;
        tracing::info!(local, online, "stopped; running clocks stored");
        Ok(())
    }

    /// Serves until Ctrl-C or (on Unix) SIGTERM.
    pub async fn run(self) -> Result<(), ServeError> {
        self.run_until(async {
            let ctrl_c = async {
                // If the signal cannot be installed, serve until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            };
            #[cfg(unix)]
            let term = async {
                use tokio::signal::unix::{SignalKind, signal};
                match signal(SignalKind::terminate()) {
                    Ok(mut s) => {
                        s.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let term = std::future::pending::<()>();
            tokio::select! {
                () = ctrl_c => {}
                () = term => {}
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
