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

#[cfg(test)]
mod tests {
    use super::FILES;

    fn file(path: &str) -> String {
        FILES
            .iter()
            .find(|(p, _, _)| *p == path)
            .map(|(_, _, body)| body.to_ascii_lowercase())
            .expect("embedded")
    }

    /// The Content-Security-Policy (`lib.rs`) allows scripts and styles from files only: an
    /// inline script, style or event handler added to the page would silently stop working.
    #[test]
    fn the_page_has_nothing_the_content_security_policy_blocks() {
        let html = file("/");
        for script in html.split("<script").skip(1) {
            let tag = &script[..script.find('>').expect("a closed tag")];
            assert!(tag.contains("src="), "an inline script: <script{tag}>");
        }
        for inline in ["<style", " style=", "javascript:"] {
            assert!(!html.contains(inline), "the page holds {inline:?}");
        }
        // An attribute `on...=` is an inline event handler.
        let handler = html.split(|c: char| c.is_whitespace()).find(|word| {
            word.strip_prefix("on").is_some_and(|rest| {
                rest.split_once('=').is_some_and(|(name, _)| {
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase())
                })
            })
        });
        assert_eq!(handler, None, "an inline event handler");
        for js in ["/app.js", "/online.js"] {
            let code = file(js);
            for blocked in [
                "eval(",
                "new function(",
                "innerhtml",
                "outerhtml",
                "insertadjacenthtml",
                "setattribute('style'",
                "setattribute(\"style\"",
                "csstext",
            ] {
                assert!(!code.contains(blocked), "{js} uses {blocked:?}");
            }
        }
    }
}
