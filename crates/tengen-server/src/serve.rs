//! The accept loop: HTTP/1 connections with a cap per client address and two timeouts, which
//! `axum::serve` does not offer. A connection is closed when it starts a request and does not
//! finish its head within the read timeout, or when nothing moves on it (no request being
//! handled, no byte either way) for the idle timeout. An upgraded connection (a WebSocket) leaves
//! these checks to the WebSocket's own pings, but still counts against its client's cap until
//! it closes.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

use crate::error::ApiError;

/// The connection limits.
#[derive(Clone, Copy, Debug)]
pub struct ConnLimits {
    /// Time to send a request's head, from its first byte.
    pub read_timeout: Duration,
    /// Time a connection may sit with nothing moving and no request being handled.
    pub idle_timeout: Duration,
    /// Open connections per client address (0: no cap).
    pub per_client: u32,
}

/// The address a client is counted under by the per-client limits. An IPv4 client seen through
/// an IPv6 socket counts as itself. An IPv6 client counts by its /64 network: a single host is
/// commonly given a whole /64 and could take a fresh address for every connection or request.
pub fn client_key(addr: SocketAddr) -> IpAddr {
    match addr.ip() {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        },
        ip => ip,
    }
}

/// Open connections per client address.
#[derive(Debug, Default)]
struct Counts(Mutex<HashMap<IpAddr, u32>>);

impl Counts {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, u32>> {
        // Only whole increments and decrements happen under the lock.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts one more connection for `ip`, unless it is at `cap`.
    fn admit(self: &Arc<Self>, ip: IpAddr, cap: u32) -> Option<Slot> {
        let mut map = self.lock();
        let n = map.entry(ip).or_insert(0);
        if cap != 0 && *n >= cap {
            return None;
        }
        *n += 1;
        Some(Slot {
            counts: self.clone(),
            ip,
        })
    }
}

/// One counted connection; dropped when its socket closes.
#[derive(Debug)]
struct Slot {
    counts: Arc<Counts>,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self.counts.lock();
        if let Some(n) = map.get_mut(&self.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

/// What the watchdog of one connection reads: milliseconds since the connection opened, with 0
/// for "not now".
#[derive(Debug)]
struct Activity {
    opened: Instant,
    // The last byte read or written, or the last answer handed over.
    last: AtomicU64,
    // When the first byte of a request head arrived while no request was being handled.
    head_since: AtomicU64,
    // Requests being handled (an engine search may take seconds without a byte moving).
    busy: AtomicUsize,
}

impl Activity {
    fn now(&self) -> u64 {
        // Never 0, which means "not now".
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX) + 1
    }

    fn touch(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
    }
}

/// One request being handled on a connection, from its head to its answer. Counted down on drop,
/// so that a request whose handling is dropped unfinished does not leave its connection busy, and
/// so never closed for idleness, for ever.
struct Handling(Arc<Activity>);

impl Handling {
    fn start(activity: &Arc<Activity>) -> Handling {
        activity.busy.fetch_add(1, Ordering::Relaxed);
        activity.head_since.store(0, Ordering::Relaxed);
        Handling(activity.clone())
    }
}

impl Drop for Handling {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The socket, noting every byte that moves, and holding its client's slot until it closes
/// (after an upgrade too).
struct Watched {
    tcp: TcpStream,
    activity: Arc<Activity>,
    _slot: Slot,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.tcp).poll_read(cx, buf);
        if buf.filled().len() > before {
            // One clock reading per read: this runs for every WebSocket frame too.
            let a = &self.activity;
            let now = a.now();
            a.last.store(now, Ordering::Relaxed);
            if a.busy.load(Ordering::Relaxed) == 0 && a.head_since.load(Ordering::Relaxed) == 0 {
                let _ = a
                    .head_since
                    .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
            }
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.tcp).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    // Passed on, so that hyper writes an answer's head and body in one call rather than copying
    // them into one buffer first, as it does on a socket without vectored writes.
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// The answer to a client over its cap, written before the socket is dropped: a plain 429
/// rather than a silent close, so a person behind it knows why. Written by hand: the socket is
/// not worth a task and an HTTP connection of its own.
fn over_cap() -> String {
    let refusal = ApiError::RateLimited {
        message: "too many open connections from your address".into(),
        retry_after: Duration::from_secs(10),
    };
    let body = refusal.body().to_string();
    format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        refusal.retry_after_secs().unwrap_or(10),
        body.len()
    )
}

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let counts = Arc::new(Counts::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    // Each connection task holds a clone: at shutdown, the count says how many are still busy.
    let open = Arc::new(());
    tokio::pin!(shutdown);
    // Whether the accept errors going on now have been logged at warn already.
    let mut warned = false;
    loop {
        let (tcp, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(v) => {
                    warned = false;
                    v
                }
                // One connection that went away before it was taken: the next one may be fine.
                Err(e) if is_connection_error(&e) => {
                    tracing::debug!(error = %e, "a connection closed before it was accepted");
                    continue;
                }
                Err(e) => {
                    // Out of file descriptors or memory: the same error would come back at once,
                    // so wait for some to be freed rather than spin, and say so once, not ten
                    // times a second.
                    if warned {
                        tracing::debug!(error = %e, "still cannot accept connections");
                    } else {
                        tracing::warn!(error = %e, "cannot accept connections; retrying every 100 ms");
                        warned = true;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let ip = client_key(peer);
        let Some(slot) = counts.admit(ip, limits.per_client) else {
            tracing::debug!(client = %ip, "connection refused: the client is at its cap");
            // Best effort: a socket that cannot take the answer at once is closed all the same.
            let _ = tcp.try_write(over_cap().as_bytes());
            continue;
        };
        // Moves are small frames that must go out at once, not wait for Nagle's algorithm;
        // without it a frame may wait up to 40 ms, nothing breaks.
        let _ = tcp.set_nodelay(true);
        let held = open.clone();
        let task = connection(tcp, peer, slot, router.clone(), limits, stop_rx.clone());
        tokio::spawn(async move {
            task.await;
            drop(held);
        });
    }
    // Connections close once their current request is answered; give them a few seconds.
    let _ = stop_tx.send(true);
    let drained = async {
        while Arc::strong_count(&open) > 1 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), drained).await;
}

/// Whether an accept error concerns only the connection being accepted, not the listener.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
    )
}

async fn connection(
    tcp: TcpStream,
    peer: SocketAddr,
    slot: Slot,
    router: Router,
    limits: ConnLimits,
    mut stop: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity {
        opened: Instant::now(),
        last: AtomicU64::new(1),
        head_since: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
    });
    let io = Watched {
        tcp,
        activity: activity.clone(),
        _slot: slot,
    };
    let seen = activity.clone();
    let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
        let handling = Handling::start(&seen);
        req.extensions_mut().insert(ConnectInfo(peer));
        let router = router.clone();
        async move {
            let answer = router.oneshot(req.map(axum::body::Body::new)).await;
            drop(handling);
            answer
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades();
    tokio::pin!(conn);
    let tick = (limits.read_timeout.min(limits.idle_timeout) / 4).max(Duration::from_millis(20));
    let mut ticks = tokio::time::interval(tick);
    loop {
        tokio::select! {
            // An error here is the client's (a reset, a bad request head): nothing to do.
            _ = conn.as_mut() => return,
            _ = stop.changed() => {
                conn.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(limits.idle_timeout, conn.as_mut()).await;
                return;
            }
            _ = ticks.tick() => {
                if activity.busy.load(Ordering::Relaxed) > 0 {
                    continue;
                }
                let now = activity.now();
                let since = |t: u64| Duration::from_millis(now.saturating_sub(t));
                let head = activity.head_since.load(Ordering::Relaxed);
                if head != 0 && since(head) > limits.read_timeout {
                    tracing::debug!(client = %peer, "closing a connection: request head too slow");
                    return;
                }
                if head == 0 && since(activity.last.load(Ordering::Relaxed)) > limits.idle_timeout {
                    tracing::debug!(client = %peer, "closing an idle connection");
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_counts_by_its_64_and_a_mapped_ipv4_client_as_itself() {
        let key = |a: &str| client_key(SocketAddr::new(a.parse().expect("address"), 1));
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:ffff:1:2:3"));
        assert_eq!(
            key("2001:db8:1:2:aaaa::1"),
            "2001:db8:1:2::".parse::<IpAddr>().expect("address")
        );
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
    }
}
