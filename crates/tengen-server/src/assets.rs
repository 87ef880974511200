//! The page, embedded in the binary.

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The files of the page: path, content type, body.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../web/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/app.js"),
    ),
    (
        "/online.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/online.js"),
    ),
    (
        "/style.css",
        "text/css; charset=utf-8",
        include_str!("../web/style.css"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("../web/favicon.svg"),
    ),
];

/// Serves one embedded file.
pub fn serve(path: &str) -> Option<Response> {
    FILES
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(_, ty, body)| {
            (
                [
                    (header::CONTENT_TYPE, *ty),
                    (header::CACHE_CONTROL, "no-cache"),
                ],
                *body,
            )
                .into_response()
        })
}
