//! Errors: what an API call answers when it cannot do what was asked, and why the server could
//! not start.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Why an API call was refused. Every variant leaves the game unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request was malformed or named something unknown (400).
    #[error("{0}")]
    BadRequest(String),
    /// No game with this id (404).
    #[error("no game {0:?} (it may have been left or the server restarted)")]
    NotFound(String),
    /// Nothing at this address (404): not a page of the site, nor a route of the API.
    #[error("nothing here: {0} is not a page of this site or a part of its API")]
    NoPage(String),
    /// The request conflicts with the game's state: not your turn, nothing to undo, a search was
    /// superseded (409).
    #[error("{0}")]
    Conflict(String),
    /// The move is not allowed (422).
    #[error("{0}")]
    IllegalMove(String),
    /// The store failed (500).
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// An engine thread failed (500).
    #[error("engine error: {0}")]
    Engine(String),
    /// The client asked for too much too fast (429, with `Retry-After`).
    #[error("{message}")]
    RateLimited {
        /// What was refused and when to come back.
        message: String,
        /// When the client may try again.
        retry_after: std::time::Duration,
    },
    /// An online game that nobody joined in time (410).
    #[error("game {0} expired: nobody joined it in time")]
    Expired(String),
    /// An online game whose stored rows cannot be read or replayed; it was set aside (410).
    #[error("game {0} was set aside: its stored record is damaged ({1})")]
    Quarantined(String, String),
    /// Handling the request failed inside the server (500); the game was restarted from its
    /// stored record.
    #[error("{0}")]
    Internal(String),
    /// The request is not allowed from here (403).
    #[error("{0}")]
    Forbidden(String),
    /// The request's body did not arrive in time (408).
    #[error("the request body did not arrive in time")]
    Timeout,
    /// The request's body is longer than the server reads (413).
    #[error(
        "the request body is too large: the server reads at most {} KiB",
        crate::BODY_LIMIT / 1024
    )]
    TooLarge,
}

impl ApiError {
    /// The answer to a body that could not be read: 413 when it passed the server's limit
    /// (the rejection's `status`), 408 when it missed its deadline (`deadline`), else 400.
    pub(crate) fn from_body(status: StatusCode, e: &(dyn std::error::Error + 'static)) -> ApiError {
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::TooLarge;
        }
        let mut cause = Some(e);
        while let Some(c) = cause {
            if c.is::<crate::deadline::BodyTimedOut>() {
                return ApiError::Timeout;
            }
            cause = c.source();
        }
        ApiError::BadRequest(format!("bad request body: {e}"))
    }

    /// A JSON body as read by axum, or the answer to one that could not be: what is wrong
    /// with it in our words, without axum's or Rust's (no type names).
    pub(crate) fn json_body<T>(body: Result<Json<T>, JsonRejection>) -> Result<T, ApiError> {
        body.map(|Json(v)| v).map_err(|e| match e {
            JsonRejection::JsonDataError(_) | JsonRejection::JsonSyntaxError(_) => {
                let syntax = matches!(e, JsonRejection::JsonSyntaxError(_));
                let text = e.body_text();
                let detail = [
                    "Failed to deserialize the JSON body into the target type: ",
                    "Failed to parse the request body as JSON: ",
                ]
                .iter()
                .find_map(|p| text.strip_prefix(p))
                .unwrap_or(&text);
                ApiError::bad_json(detail, syntax)
            }
            JsonRejection::MissingJsonContentType(_) => ApiError::BadRequest(
                "the body must be JSON, sent with Content-Type: application/json".into(),
            ),
            other => ApiError::from_body(other.status(), &other),
        })
    }

    /// The answer to a JSON body that could not be read as the request: `detail` is serde's
    /// message (with the field's path first, when known), `syntax` whether the body is not
    /// JSON at all (or holds a value of a kind the field cannot take at all).
    pub(crate) fn bad_json(detail: &str, syntax: bool) -> ApiError {
        // Where in the body, and what: "clock.kind: unknown variant ..." (no path at the top).
        let (path, what) = match detail.split_once(": ") {
            Some((path, what)) if !path.is_empty() && !path.contains(' ') => (Some(path), what),
            _ => (None, detail),
        };
        let what = plain_serde_message(what);
        match (path, syntax) {
            (Some(path), true) => ApiError::BadRequest(format!(
                "the body is not a valid request: {path}: not a value this field takes"
            )),
            (None, true) => ApiError::BadRequest(format!(
                "the body is not valid JSON: {}",
                without_position(detail)
            )),
            (Some(path), false) => {
                ApiError::BadRequest(format!("the body is not a valid request: {path}: {what}"))
            }
            (None, false) => {
                ApiError::BadRequest(format!("the body is not a valid request: {what}"))
            }
        }
    }
}

/// Serde's message about a value, in words a client can use: no Rust type names (`struct
/// CreateRequest`, `u64`), no `sequence` or `map`.
pub(crate) fn plain_serde_message(message: &str) -> String {
    let message = without_position(message);
    let (head, expected) = match message.split_once(", expected ") {
        Some((head, expected)) => (head, Some(plain_expected(expected))),
        None => (message, None),
    };
    let kind = |k: &str| match k {
        "sequence" => "a list".to_string(),
        "map" => "an object".to_string(),
        "integer" | "floating point" => "a number".to_string(),
        "boolean" => "a boolean".to_string(),
        "string" => "a string".to_string(),
        "null" => "null".to_string(),
        other => other.to_string(),
    };
    let head = if let Some(rest) = head.strip_prefix("invalid type: ") {
        // "integer `5`", "sequence", "string \"x\"".
        let (k, shown) = rest.split_once(' ').unwrap_or((rest, ""));
        let k = if k == "floating" { "floating point" } else { k };
        let shown = shown.strip_prefix("point").unwrap_or(shown).trim();
        if shown.is_empty() {
            format!("got {}", kind(k))
        } else {
            format!("got {} {shown}", kind(k))
        }
    } else if head.starts_with("invalid length") {
        // A list where an object is due (serde reads a struct from a list too).
        "got a list".to_string()
    } else if let Some(rest) = head.strip_prefix("invalid value: ") {
        format!("got {rest}")
    } else if head.chars().any(char::is_uppercase) && !head.contains('`') {
        // A message of a type's own that names it.
        "not a value this field takes".to_string()
    } else {
        head.to_string()
    };
    match expected {
        Some(expected) => format!("{head}, expected {expected}"),
        None => head,
    }
}

/// Serde's message without its position (" at line 1 column 5"): it adds nothing for bodies
/// this small, and is not always right after the path.
fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) if message[i..].contains(" column ") => &message[..i],
        _ => message,
    }
}

/// What serde says was expected, without Rust's type names.
fn plain_expected(expected: &str) -> String {
    let e = expected.trim();
    let e = e.strip_prefix("a ").unwrap_or(e);
    if e.starts_with("struct") || e.starts_with("map") {
        return "an object".into();
    }
    if e.starts_with("enum") {
        return "one of the names it takes".into();
    }
    if e.starts_with("sequence") || e.starts_with("tuple") {
        return "a list".into();
    }
    let ints = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    if ints.contains(&e) {
        return "a whole number".into();
    }
    if e == "f32" || e == "f64" {
        return "a number".into();
    }
    // Names in backquotes are the client's words (fields, variants); anything else with a
    // capital is a type's name.
    let outside_quotes: String = expected.split('`').step_by(2).collect();
    if outside_quotes.chars().any(char::is_uppercase) {
        return "a value of another form".into();
    }
    expected.trim().to_string()
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) | ApiError::NoPage(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::IllegalMove(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Database(_) | ApiError::Engine(_) | ApiError::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Expired(_) | ApiError::Quarantined(..) => StatusCode::GONE,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::Timeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::NotFound(_) | ApiError::NoPage(_) => "not_found",
            ApiError::Conflict(_) => "conflict",
            ApiError::IllegalMove(_) => "illegal_move",
            ApiError::Database(_) => "database",
            ApiError::Engine(_) => "engine",
            ApiError::RateLimited { .. } => "rate_limited",
            ApiError::Expired(_) => "expired",
            ApiError::Quarantined(..) => "quarantined",
            ApiError::Internal(_) => "internal",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::Timeout => "timeout",
            ApiError::TooLarge => "too_large",
        }
    }
}

impl ApiError {
    /// The answer's body.
    pub(crate) fn body(&self) -> serde_json::Value {
        serde_json::json!({ "error": self.to_string(), "kind": self.kind() })
    }

    /// The answer's `Retry-After`, in seconds, if it has one.
    pub(crate) fn retry_after_secs(&self) -> Option<u64> {
        let ApiError::RateLimited { retry_after, .. } = self else {
            return None;
        };
        // Whole seconds, rounded up: a client that waits that long is let in.
        let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        Some(secs.max(1))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), Json(self.body())).into_response();
        if let Some(secs) = self.retry_after_secs() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The data folder could not be made.
    #[error("cannot create data folder {0}: {1}")]
    DataDir(String, std::io::Error),
    /// The database could not be opened or migrated.
    #[error("database {0}: {1}")]
    Database(String, sqlx::Error),
    /// The migrations failed.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database file exists but is empty: SQLite would silently make a new database in it,
    /// hiding whatever emptied it.
    #[error(
        "database file {0} is empty (0 bytes): it may have been truncated; restore it from a \
         backup, or remove it to start a new database"
    )]
    EmptyDatabase(String),
    /// The message bus between nodes could not be reached.
    #[error(transparent)]
    Bus(#[from] crate::online::cluster::BusError),
    /// A message bus was given without a database the nodes can share.
    #[error(
        "a message bus (--bus) needs a PostgreSQL database the nodes share (--database postgres://...)"
    )]
    BusWithoutSharedDatabase,
    /// The address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, std::io::Error),
    /// The server stopped with an I/O error.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}
