//! The client side of the online API (`docs/api.md`, "Online play"): its HTTP calls and one
//! WebSocket per seat, in the message types of [`tengen_wire`]. Shared by
//! `tengen bot` and `tengen loadtest`.

use futures_util::{SinkExt, StreamExt};
use tengen_wire::{
    ClientMsg, CreateGame, FRAME_BURST, FRAMES_PER_SEC, GameState, JoinGame, Seated, ServerMsg,
    Stats,
};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// What went wrong talking to the server.
#[derive(Debug, thiserror::Error)]
pub enum OnlineError {
    /// The `--server` argument is not an `http://host:port` address.
    #[error("bad server address {0:?}: expected http://host:port")]
    BadUrl(String),
    /// A game id with characters that have no place in a path.
    #[error("bad game id {0:?}")]
    BadId(String),
    /// The request did not get an answer (no server there, connection refused or dropped).
    #[error("{what}: cannot reach the server")]
    Http {
        /// The call.
        what: String,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// The server answered with an error status.
    #[error("{what}: the server answered {status}: {message}")]
    Status {
        /// The call.
        what: String,
        /// The HTTP status.
        status: u16,
        /// The server's sentence (its `error` field), or the body.
        message: String,
    },
    /// The answer's body is not what the API documents.
    #[error("{what}: unexpected answer: {message}")]
    BadBody {
        /// The call.
        what: String,
        /// What could not be read.
        message: String,
    },
    /// The WebSocket could not be opened, or failed.
    #[error("WebSocket {url}")]
    WebSocket {
        /// The WebSocket's address.
        url: String,
        /// Why.
        #[source]
        source: Box<tungstenite::Error>,
    },
    /// A frame that is not a message of the online API.
    #[error("the server sent a frame that is not a message of the online API ({reason}): {frame}")]
    BadFrame {
        /// Why it could not be read.
        reason: String,
        /// The frame, cut to 200 characters.
        frame: String,
    },
}

impl OnlineError {
    /// The message with its causes, `: `-separated (as `{:#}` of `anyhow` shows it).
    pub fn full_text(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            text = format!("{text}: {c}");
            cause = c.source();
        }
        text
    }

    /// The HTTP status of a refused call, if that is what this is.
    pub fn status(&self) -> Option<u16> {
        match self {
            OnlineError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A server's online API: its address and a pool of HTTP connections to it.
#[derive(Clone, Debug)]
pub struct OnlineClient {
    base: String,
    http: reqwest::Client,
}

impl OnlineClient {
    /// The server at `url` (`http://host:port`, a trailing slash or path `/` allowed).
    pub fn new(url: &str) -> Result<OnlineClient, OnlineError> {
        let trimmed = url.trim().trim_end_matches('/');
        let rest = trimmed
            .strip_prefix("http://")
            .ok_or_else(|| OnlineError::BadUrl(url.to_string()))?;
        // Only the authority: the API's paths are fixed.
        if rest.is_empty() || rest.contains('/') {
            return Err(OnlineError::BadUrl(url.to_string()));
        }
        Ok(OnlineClient {
            base: trimmed.to_string(),
            http: reqwest::Client::new(),
        })
    }

    /// `http://host:port`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `POST /api/online`: a new game, with the creator's seat.
    pub async fn create(&self, body: &CreateGame) -> Result<Seated, OnlineError> {
        let url = format!("{}/api/online", self.base);
        let what = "create a game".to_string();
        self.answer(what, self.http.post(url).json(body)).await
    }

    /// `POST /api/online/{id}/join`: the free seat of game `id`.
    pub async fn join(&self, id: &str, body: &JoinGame) -> Result<Seated, OnlineError> {
        let url = format!("{}/api/online/{}/join", self.base, check_id(id)?);
        let what = format!("join game {id}");
        self.answer(what, self.http.post(url).json(body)).await
    }

    /// `GET /api/online/{id}`: the state of game `id`.
    pub async fn state(&self, id: &str) -> Result<GameState, OnlineError> {
        let url = format!("{}/api/online/{}", self.base, check_id(id)?);
        let what = format!("read game {id}");
        self.answer(what, self.http.get(url)).await
    }

    /// `GET /api/online/stats`: what the server holds.
    pub async fn stats(&self) -> Result<Stats, OnlineError> {
        let url = format!("{}/api/online/stats", self.base);
        self.answer("read the server's stats".into(), self.http.get(url))
            .await
    }

    /// The WebSocket address of game `id`.
    pub fn ws_url(&self, id: &str) -> Result<String, OnlineError> {
        let authority = self.base.trim_start_matches("http://");
        Ok(format!("ws://{authority}/api/online/{}/ws", check_id(id)?))
    }

    /// Opens the WebSocket of game `id` (nothing is sent yet: the first frame must be `hello`).
    pub async fn connect(&self, id: &str) -> Result<Socket, OnlineError> {
        let url = self.ws_url(id)?;
        match tokio_tungstenite::connect_async(url.as_str()).await {
            Ok((ws, _)) => Ok(Socket {
                ws,
                url,
                tokens: f64::from(FRAME_BURST - 1),
                counted: tokio::time::Instant::now(),
            }),
            Err(e) => Err(OnlineError::WebSocket {
                url,
                source: Box::new(e),
            }),
        }
    }

    async fn answer<T: serde::de::DeserializeOwned>(
        &self,
        what: String,
        request: reqwest::RequestBuilder,
    ) -> Result<T, OnlineError> {
        let response = match request.send().await {
            Ok(r) => r,
            Err(source) => return Err(OnlineError::Http { what, source }),
        };
        let status = response.status();
        let body = match response.text().await {
            Ok(b) => b,
            Err(source) => return Err(OnlineError::Http { what, source }),
        };
        if !status.is_success() {
            // The API's errors are `{"error": "a sentence", "kind": ...}`.
            let message = serde_json::from_str::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("error")?.as_str().map(str::to_string))
                .unwrap_or_else(|| cut(&body));
            return Err(OnlineError::Status {
                what,
                status: status.as_u16(),
                message,
            });
        }
        serde_json::from_str(&body).map_err(|e| OnlineError::BadBody {
            what,
            message: format!("{e} in {}", cut(&body)),
        })
    }
}

/// Game ids go into paths as they are: refuse anything that would change the path.
fn check_id(id: &str) -> Result<&str, OnlineError> {
    if !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        Ok(id)
    } else {
        Err(OnlineError::BadId(id.to_string()))
    }
}

fn cut(text: &str) -> String {
    let mut s: String = text.chars().take(200).collect();
    if s.len() < text.len() {
        s.push_str("...");
    }
    s
}

/// One open WebSocket to a game.
#[derive(Debug)]
pub struct Socket {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    url: String,
    /// Frames the server would still take at once, refilled at its rate, and when last counted.
    tokens: f64,
    counted: tokio::time::Instant,
}

impl Socket {
    /// Sends one message, waiting first if the server's frame rate would refuse it: a bot that
    /// moves at once on a fast game must not be told "too many frames" and lose its move.
    pub async fn send(&mut self, msg: &ClientMsg) -> Result<(), OnlineError> {
        let text = serde_json::to_string(msg).map_err(|e| OnlineError::BadBody {
            what: "encode a message".into(),
            message: e.to_string(),
        })?;
        // One frame of margin on the burst and a slightly slower rate cover timing skew
        // between the two ends.
        let burst = f64::from(FRAME_BURST - 1);
        let rate = FRAMES_PER_SEC * 0.9;
        let now = tokio::time::Instant::now();
        self.tokens = (self.tokens + (now - self.counted).as_secs_f64() * rate).min(burst);
        self.counted = now;
        if self.tokens < 1.0 {
            let wait = (1.0 - self.tokens) / rate;
            tokio::time::sleep(std::time::Duration::from_secs_f64(wait)).await;
            self.tokens = 1.0;
            self.counted = tokio::time::Instant::now();
        }
        self.tokens -= 1.0;
        let sent = self.ws.send(Message::text(text)).await;
        sent.map_err(|e| self.error(e))
    }

    /// The next message from the server; `None` once the connection is closed. Pings, pongs
    /// and empty frames are skipped. Cancel-safe: nothing is lost when the future is dropped
    /// before it completes.
    pub async fn recv(&mut self) -> Result<Option<ServerMsg>, OnlineError> {
        loop {
            let frame = match self.ws.next().await {
                None => return Ok(None),
                Some(Err(
                    tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed,
                )) => return Ok(None),
                Some(Err(e)) => return Err(self.error(e)),
                Some(Ok(frame)) => frame,
            };
            let text = match frame {
                Message::Text(t) => t,
                Message::Close(_) => return Ok(None),
                Message::Binary(b) => {
                    return Err(OnlineError::BadFrame {
                        reason: "a binary frame".into(),
                        frame: format!("{} bytes", b.len()),
                    });
                }
                Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => continue,
            };
            return serde_json::from_str(text.as_str()).map_err(|e| OnlineError::BadFrame {
                reason: e.to_string(),
                frame: cut(text.as_str()),
            });
        }
    }

    /// Closes the connection politely (best effort: the server may be gone already).
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
        // Read until the server's close frame, briefly, so the close completes cleanly.
        let drain = async { while let Some(Ok(_)) = self.ws.next().await {} };
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), drain).await;
    }

    fn error(&self, e: tungstenite::Error) -> OnlineError {
        OnlineError::WebSocket {
            url: self.url.clone(),
            source: Box::new(e),
        }
    }
}
