//! Per-client limits on API requests, on game creation and on engine time for hints and
//! analyses: a token bucket per client address, refilled at a steady rate, answered with 429 and
//! `Retry-After` when empty.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::Extensions;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Past this many clients, buckets that are full again are forgotten.
const PRUNE_AT: usize = 10_000;

/// The address a request's client is counted under ([`crate::serve::client_key`]; the
/// unspecified address when unknown, as when the router is served by something else than
/// [`crate::Server`]).
#[derive(Clone, Copy, Debug)]
pub struct Client(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Client, Self::Rejection> {
        Ok(Client::of(&parts.extensions))
    }
}

impl Client {
    /// The client of a request with these extensions.
    fn of(extensions: &Extensions) -> Client {
        Client(
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| {
                    crate::serve::client_key(c.0)
                }),
        )
    }
}

/// Token buckets per client: `cap` tokens at most, refilled at `per_sec` a second.
#[derive(Debug)]
pub struct Buckets {
    cap: f64,
    per_sec: f64,
    what: &'static str,
    map: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Buckets {
    /// Buckets of `per_minute`, refilled at `per_minute` a minute (0: no limit); `what` names
    /// the resource in the refusal.
    pub fn new(per_minute: u64, what: &'static str) -> Buckets {
        Buckets::with_burst(per_minute, per_minute as f64 / 60.0, what)
    }

    /// Buckets of `burst`, refilled at `per_sec` a second (either 0: no limit).
    pub fn with_burst(burst: u64, per_sec: f64, what: &'static str) -> Buckets {
        Buckets {
            cap: burst as f64,
            per_sec,
            what,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes `amount` tokens from `client`'s bucket (at most a whole bucket: a request bigger
    /// than the bucket goes through when it is full), or says when to come back.
    pub fn take(&self, client: IpAddr, amount: u64) -> Result<(), ApiError> {
        let (cap, per_sec) = (self.cap, self.per_sec);
        if cap <= 0.0 || per_sec <= 0.0 {
            return Ok(());
        }
        let amount = (amount as f64).min(cap);
        let now = Instant::now();
        // Buckets are read and replaced whole under the lock.
        let mut map = self
            .map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= PRUNE_AT {
            map.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * per_sec < cap
            });
        }
        let (tokens, at) = map.entry(client).or_insert((cap, now));
        let have = (*tokens + now.duration_since(*at).as_secs_f64() * per_sec).min(cap);
        if have + 1e-9 < amount {
            let wait = ((amount - have) / per_sec).ceil().max(1.0);
            return Err(ApiError::RateLimited {
                message: format!(
                    "too many {} from your address; try again in {wait} s",
                    self.what
                ),
                retry_after: Duration::from_secs_f64(wait),
            });
        }
        *tokens = have - amount;
        *at = now;
        Ok(())
    }
}

/// The limits every route shares.
#[derive(Debug)]
pub struct ClientLimits {
    /// Requests to the API, of any kind.
    pub requests: Buckets,
    /// New games (against the computer, imported, online).
    pub games: Buckets,
    /// Milliseconds of engine time for hints, analyses and draw offers.
    pub analysis_ms: Buckets,
}

impl ClientLimits {
    /// The limits of `config`, per client.
    pub fn new(config: &crate::Config) -> ClientLimits {
        ClientLimits {
            requests: Buckets::with_burst(
                u64::from(config.request_burst),
                f64::from(config.requests_per_second),
                "requests",
            ),
            games: Buckets::new(u64::from(config.games_per_minute), "new games"),
            analysis_ms: Buckets::new(
                u64::from(config.analysis_secs_per_minute) * 1000,
                "analyses and hints",
            ),
        }
    }
}

/// Counts each API request against its client's request bucket; a client over it is answered
/// 429 before any handler runs. The page's files are not counted: they are cheap to serve and
/// the browser fetches them together.
pub async fn per_request(
    State(limits): State<Arc<ClientLimits>>,
    req: Request,
    next: Next,
) -> Response {
    if req.uri().path().starts_with("/api/") {
        let Client(ip) = Client::of(req.extensions());
        if let Err(refused) = limits.requests.take(ip, 1) {
            return refused.into_response();
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_empties_and_says_when_to_return() {
        let b = Buckets::new(3, "new games");
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        for _ in 0..3 {
            b.take(ip, 1).expect("within the limit");
        }
        match b.take(ip, 1) {
            Err(ApiError::RateLimited { retry_after, .. }) => {
                assert!(retry_after >= Duration::from_secs(1));
                assert!(retry_after <= Duration::from_secs(20));
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Another client has its own bucket; no limit means none.
        b.take(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 1)
            .expect("another client");
        Buckets::new(0, "x").take(ip, 1_000_000).expect("no limit");
        // A request bigger than the bucket passes when the bucket is full.
        Buckets::new(2, "x").take(ip, 5).expect("a full bucket");
    }

    #[test]
    fn a_burst_bucket_holds_its_burst_and_says_when_one_more_comes() {
        let b = Buckets::with_burst(5, 0.1, "requests");
        let ip = IpAddr::V4(Ipv4Addr::LOCALHOST);
        for _ in 0..5 {
            b.take(ip, 1).expect("within the burst");
        }
        match b.take(ip, 1) {
            // A token every ten seconds: the burst, not a minute's worth, is what was held.
            Err(ApiError::RateLimited { retry_after, .. }) => {
                assert!(retry_after >= Duration::from_secs(1));
                assert!(retry_after <= Duration::from_secs(10));
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        Buckets::with_burst(0, 2.0, "x")
            .take(ip, 1_000)
            .expect("no limit");
        Buckets::with_burst(5, 0.0, "x")
            .take(ip, 1_000)
            .expect("no limit");
    }
}
