//! The online API's messages, as they travel: the JSON bodies of its HTTP calls and the frames of
//! its WebSocket, and the clock a game is created with. Shared by the server (`tengen-server`)
//! and its clients (`tengen-client`: the bot and the load test; tests), so both ends read and
//! write the same shapes and neither builds the other. `docs/api.md` describes them for everyone
//! else. Serde only: no I/O.

use serde::{Deserialize, Serialize};

/// The clock, as asked for when the game is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClockSpec {
    /// No clock.
    #[default]
    None,
    /// At most `ms` for each move.
    PerMove {
        /// Milliseconds per move.
        ms: u64,
    },
    /// `ms` for the whole game, plus `increment_ms` after each move.
    Total {
        /// Milliseconds for the game.
        ms: u64,
        /// Added after each move.
        #[serde(default)]
        increment_ms: u64,
    },
}

/// Frames a connection may send at once before the server answers "too many frames".
pub const FRAME_BURST: u32 = 20;
/// Frames a second a connection may send after its burst, for as long as it likes.
pub const FRAMES_PER_SEC: f64 = 10.0;

/// Who a connection is: one of the two players, or a spectator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The first player: black under the free opening, the one who places the opening stones
    /// under swap and swap2.
    First,
    /// The second player.
    Second,
    /// Anyone else: watches and chats.
    Spectator,
}

impl Role {
    /// `"first"`, `"second"` or `"spectator"`.
    pub const fn name(self) -> &'static str {
        match self {
            Role::First => "first",
            Role::Second => "second",
            Role::Spectator => "spectator",
        }
    }
}

/// `POST /api/online`: a new game between people. Every field has a default.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateGame {
    /// `freestyle` (default), `standard`, `renju`, `caro` or `caro-overlines`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `15` (default), `19`, `16x14`, ..., or `unbounded`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// `free` (default), `beginner`, `swap` or `swap2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<String>,
    /// The clock (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockSpec>,
    /// The creator's seat: `black` (the first player, default), `white` (the second) or `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The creator's name (default "Anonymous").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether the game is listed in the lobby (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed: Option<bool>,
    /// Under renju: `lose` (default: a forbidden move stands and loses) or `refuse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forbidden: Option<String>,
}

/// `POST /api/online/{id}/join`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinGame {
    /// The joiner's name (default "Anonymous").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The answer to a create or a join: the seat taken and its secret.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Seated {
    /// The game.
    pub id: String,
    /// The seat taken (`first` or `second`).
    pub role: Role,
    /// The seat's secret: whoever shows it acts for the seat. Keep it to yourself.
    pub token: String,
    /// The page address to share with the opponent and spectators (a path on this server).
    pub invite: String,
    /// The WebSocket path for this game.
    pub ws: String,
}

/// What a client sends over the WebSocket, one JSON object a frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// The first frame: a seat's token to act as that player, or none to watch. `name` labels a
    /// spectator's chat.
    Hello {
        /// The seat token from create or join.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// A spectator's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A stone, in renju notation (`h8`) or `x,y`; with `moves`, only on the position the
    /// player saw, so that a move crossing a change of position (a takeback accepted
    /// meanwhile) is refused rather than played where the player never looked.
    Move {
        /// The point.
        at: String,
        /// The stones on the board the player saw (the state's `moves`, counted); optional:
        /// without it, whatever the position is now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<u32>,
    },
    /// A swap decision: `black`, `white` or `place_two`; with `moves`, only on the position
    /// the player saw, as for a move.
    Choose {
        /// The decision.
        choice: String,
        /// The stones on the board the player saw (optional, as for a move).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moves: Option<u32>,
    },
    /// Asks the opponent: `takeback`, `draw` or `rematch`.
    Request {
        /// What is asked.
        kind: RequestKind,
    },
    /// Accepts the opponent's pending request; with `kind`, only a request of that kind (the
    /// one the player was shown), so that an answer crossing a change of request is refused.
    Accept {
        /// The kind of request answered (optional: without it, whatever is open).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<RequestKind>,
    },
    /// Declines the opponent's pending request (with `kind`, only a request of that kind).
    Decline {
        /// The kind of request answered (optional: without it, whatever is open).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<RequestKind>,
    },
    /// Withdraws one's own pending request.
    Cancel,
    /// Resigns the game.
    Resign,
    /// Claims the win when the opponent has been gone longer than the grace period.
    Claim,
    /// A chat line (players and spectators).
    Chat {
        /// At most 300 characters.
        text: String,
    },
}

/// What one player may ask of the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// Take back the asker's last move (and the reply to it, if any).
    Takeback,
    /// End the game drawn.
    Draw,
    /// After the game: a new one with the seats (so the colours) swapped.
    Rematch,
}

impl RequestKind {
    /// `"takeback"`, `"draw"` or `"rematch"`.
    pub const fn name(self) -> &'static str {
        match self {
            RequestKind::Takeback => "takeback",
            RequestKind::Draw => "draw",
            RequestKind::Rematch => "rematch",
        }
    }
}

/// What the server sends over the WebSocket.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)]
pub enum ServerMsg {
    /// The answer to `hello`: who this connection acts as.
    Welcome {
        /// The game.
        id: String,
        /// The role granted.
        role: Role,
    },
    /// The whole game as it is now; sent after `welcome` and after every change.
    State(GameState),
    /// A chat line.
    Chat(ChatLine),
    /// Something happened that the state alone does not say (a request declined, withdrawn or
    /// lapsed).
    Notice {
        /// A sentence for people.
        text: String,
    },
    /// The last message was refused; nothing changed.
    Error {
        /// Why, for people.
        message: String,
    },
}

/// A chat line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// The writer's name.
    pub name: String,
    /// The writer's role.
    pub role: Role,
    /// The text.
    pub text: String,
    /// When it was written (milliseconds since the Unix epoch).
    pub at_ms: u64,
}

/// One of the two seats, as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatState {
    /// The player's name, once the seat is taken.
    pub name: Option<String>,
    /// Whether someone sits here.
    pub taken: bool,
    /// Whether the player has a live connection.
    pub connected: bool,
    /// The player's colour, once settled (`black` or `white`).
    pub color: Option<String>,
    /// Time left on the player's clock, in milliseconds, when the game has a clock.
    pub clock_ms: Option<u64>,
    /// How long the player has been gone, in milliseconds, while disconnected.
    pub gone_ms: Option<u64>,
    /// Whether the opponent may now claim the win (gone past the grace period).
    pub claimable: bool,
    /// The stones this player placed and the swap decisions it took in the game as it stands:
    /// what a takeback could take back (none, 0, and a takeback request is refused). Absent
    /// from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<u32>,
}

/// The pending request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestState {
    /// What is asked.
    pub kind: RequestKind,
    /// Who asked.
    pub by: Role,
}

/// What the game waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingState {
    /// `waiting` (for a second player), `move`, `choice` or `over`.
    pub kind: String,
    /// The seat to act.
    pub seat: Option<Role>,
    /// For `move`: the colour of the next stone.
    pub color: Option<String>,
    /// For `choice`: the decisions open (`black`, `white`, `place_two`).
    pub options: Vec<String>,
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeState {
    /// The winning colour, or none for a draw.
    pub winner: Option<String>,
    /// The winning seat, or none for a draw.
    pub winner_seat: Option<Role>,
    /// `five`, `forbidden`, `full`, `move_limit`, `resignation`, `timeout`, `agreement` or
    /// `abandonment`.
    pub reason: String,
    /// For people: "Black wins: five in a row".
    pub text: String,
    /// The winning rows, as `[x, y]` points.
    pub lines: Vec<Vec<[i32; 2]>>,
}

/// A forbidden point for black.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forbidden {
    /// Column, from 0 at the left.
    pub x: i32,
    /// Row, from 0 at the top.
    pub y: i32,
    /// `double-three`, `double-four` or `overline`.
    pub kind: String,
}

/// A point the player who is not to move threatens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threat {
    /// Column, from 0 at the left.
    pub x: i32,
    /// Row, from 0 at the top.
    pub y: i32,
    /// `five` or `open_four`.
    pub kind: String,
}

/// The whole game, as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The game.
    pub id: String,
    /// How many changes have been stored; grows with every stored event.
    pub seq: u64,
    /// The rule.
    pub rule: String,
    /// `15x15`, `16x14` or `unbounded`.
    pub size: String,
    /// The board's width, when bounded.
    pub width: Option<u32>,
    /// The board's height, when bounded.
    pub height: Option<u32>,
    /// The opening rule.
    pub opening: String,
    /// The clock.
    pub clock: ClockSpec,
    /// The moves in notation.
    pub moves: Vec<String>,
    /// The moves as `[x, y]`.
    pub points: Vec<[i32; 2]>,
    /// What the game waits for.
    pub pending: PendingState,
    /// The seats: first, then second.
    pub seats: [SeatState; 2],
    /// The seat whose clock runs.
    pub running: Option<Role>,
    /// The open request, if any.
    pub request: Option<RequestState>,
    /// The end, once the game is over.
    pub outcome: Option<OutcomeState>,
    /// Black's forbidden points now (renju, black to move).
    pub forbidden: Vec<Forbidden>,
    /// What a forbidden move by black does, as the game was created: `lose` (it stands and
    /// loses) or `refuse` (it is refused, and black plays elsewhere). Only renju has forbidden
    /// moves. Absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forbidden_policy: Option<String>,
    /// The threats of the player who is not to move: points where it would make a five
    /// (`five`) or a straight four (`open_four`). Absent from older servers.
    #[serde(default)]
    pub threats: Vec<Threat>,
    /// People watching.
    pub spectators: u32,
    /// The rematch's game id, once agreed.
    pub rematch: Option<String>,
    /// Seconds a player may be gone before the opponent may claim the win.
    pub grace_secs: u64,
}

/// One game in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyGame {
    /// The game.
    pub id: String,
    /// The rule.
    pub rule: String,
    /// The board size.
    pub size: String,
    /// The opening rule.
    pub opening: String,
    /// The clock.
    pub clock: ClockSpec,
    /// The players' names (first, second), where seated.
    pub players: [Option<String>; 2],
    /// The free seat, for an open game.
    pub free: Option<Role>,
    /// Moves played.
    pub moves: u32,
    /// People watching.
    pub spectators: u32,
}

/// `GET /api/online/lobby`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lobby {
    /// Listed games with a free seat, newest first.
    pub open: Vec<LobbyGame>,
    /// Games under way, most watched first.
    pub live: Vec<LobbyGame>,
}

/// `GET /api/online/stats`: what the server holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Online games in memory.
    pub games: u64,
    /// Of those, not over.
    pub live: u64,
    /// Open WebSocket connections.
    pub connections: u64,
    /// Moves stored since the server started.
    pub moves: u64,
    /// The server's resident memory, in bytes (Linux; 0 elsewhere).
    pub rss_bytes: u64,
}
