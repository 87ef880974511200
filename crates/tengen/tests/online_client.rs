//! The online client keeps to the server's frame rate: a client that sends faster than the
//! server takes (a bot moving at once in a fast game) waits instead of being refused.

mod common;

use common::TestServer;
use serde_json::json;
use tengen_client::online::OnlineClient;
use tengen_wire::{ClientMsg, FRAME_BURST, ServerMsg};

#[test]
fn a_client_sending_past_the_burst_is_paced_not_refused() {
    let server = TestServer::start();
    let (_, seated) = server.post("/api/online", json!({"name": "Ann"}));
    let id = seated["id"].as_str().expect("id").to_string();
    let token = seated["token"].as_str().expect("token").to_string();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // Twice the burst: without pacing the server refuses every frame past the burst.
    let sent = 2 * FRAME_BURST as usize;
    let refusals = runtime.block_on(async {
        let client = OnlineClient::new(&server.base).expect("url");
        let mut socket = client.connect(&id).await.expect("websocket");
        socket
            .send(&ClientMsg::Hello {
                token: Some(token),
                name: None,
            })
            .await
            .expect("hello");
        // Declining with no request pending is refused for its own reason, one answer each.
        for _ in 0..sent {
            socket
                .send(&ClientMsg::Decline { kind: None })
                .await
                .expect("send");
        }
        let mut errors = Vec::new();
        let read = async {
            while errors.len() < sent {
                match socket.recv().await.expect("frame") {
                    Some(ServerMsg::Error { message }) => errors.push(message),
                    Some(_) => {}
                    None => panic!("the connection closed"),
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), read)
            .await
            .expect("an answer to every frame within a minute (a hang, not a slow machine)");
        errors
    });
    let refused: Vec<_> = refusals
        .iter()
        .filter(|m| m.contains("too many frames"))
        .collect();
    assert!(refused.is_empty(), "refused: {refused:?}");
    assert_eq!(refusals.len(), sent);
}
