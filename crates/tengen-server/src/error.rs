//! Errors: what an API call answers when it cannot do what was asked, and why the server could
//! not start.

use axum::Json;
use axum::http::StatusCode;
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
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::IllegalMove(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Database(_) | ApiError::Engine(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad_request",
            ApiError::NotFound(_) => "not_found",
            ApiError::Conflict(_) => "conflict",
            ApiError::IllegalMove(_) => "illegal_move",
            ApiError::Database(_) => "database",
            ApiError::Engine(_) => "engine",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string(), "kind": self.kind() });
        (self.status(), Json(body)).into_response()
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
    /// The address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, std::io::Error),
    /// The server stopped with an I/O error.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}
