//! Online play: games between people on different machines, over HTTP and WebSocket.

pub mod wire;
