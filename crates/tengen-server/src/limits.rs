//! Per-client limits on game creation and on engine time for hints and analyses: a token bucket
//! per client address, refilled at a steady rate, answered with 429 and `Retry-After` when empty.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

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
        Ok(Client(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| {
                    crate::serve::client_key(c.0)
                }),
        ))
    }
}

/// Token buckets per client: `per_minute` tokens at most, refilled at `per_minute` a minute.
#[derive(Debug)]
pub struct Buckets {
    per_minute: u64,
    what: &'static str,
    map: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Buckets {
    /// Buckets of `per_minute` (0: no limit); `what` names the resource in the refusal.
    pub fn new(per_minute: u64, what: &'static str) -> Buckets {
        Buckets {
            per_minute,
            what,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Takes `amount` tokens from `client`'s bucket (at most a whole bucket: a request bigger
    /// than the bucket goes through when it is full), or says when to come back.
    pub fn take(&self, client: IpAddr, amount: u64) -> Result<(), ApiError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let cap = self.per_minute as f64;
        let per_sec = cap / 60.0;
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
    /// New games (against the computer, imported, online).
    pub games: Buckets,
    /// Milliseconds of engine time for hints, analyses and draw offers.
    pub analysis_ms: Buckets,
}

impl ClientLimits {
    /// `games` a minute and `analysis_secs` of engine time a minute per client (0: no limit).
    pub fn new(games: u32, analysis_secs: u32) -> ClientLimits {
        ClientLimits {
            games: Buckets::new(u64::from(games), "new games"),
            analysis_ms: Buckets::new(u64::from(analysis_secs) * 1000, "analyses and hints"),
        }
    }
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
}
