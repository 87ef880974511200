//! Tengen's side of online play as a client of a `tengen serve` (`docs/api.md`, "Online play"):
//! the API's HTTP calls and WebSocket ([`online`]), a bot that plays one seat with the engine or
//! any Gomocup brain ([`bot`], `tengen bot`), and a load test ([`loadtest`], `tengen loadtest`).
//! It speaks the messages of `tengen-wire` and builds no server.

pub mod bot;
pub mod loadtest;
pub mod online;
