//! A deadline for a request's whole body. tower-http's `RequestBodyTimeoutLayer` starts its timer
//! again at every frame, so a client sending a byte every few seconds could keep a handler
//! waiting, and its connection busy (hence never idle), for as long as it liked.

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::http::Request;
use http_body::{Frame, SizeHint};
use tokio::time::Sleep;

/// How a body that missed its deadline ends; answered 408 (see `ApiError::from_body`).
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimedOut;

/// Gives `req`'s body `timeout` from now to arrive whole.
pub fn with_deadline(req: Request<Body>, timeout: Duration) -> Request<Body> {
    req.map(|body| {
        // Most requests have no body: no timer for them.
        if body.is_end_stream() {
            body
        } else {
            Body::new(Deadline {
                body,
                deadline: Box::pin(tokio::time::sleep(timeout)),
            })
        }
    })
}

struct Deadline {
    body: Body,
    deadline: Pin<Box<Sleep>>,
}

impl HttpBody for Deadline {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
