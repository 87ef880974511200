//! The online games in SQLite. One writer task commits whatever is waiting in one transaction
//! (group commit) and answers each caller once that transaction is committed, so a move is on
//! disk before anyone hears of it, and many games moving at once share the cost of a commit.

use sqlx::Row;
use sqlx::sqlite::SqlitePool;
use tokio::sync::{mpsc, oneshot};

use super::table::{Event, Stored};

/// The most writes one transaction takes; the rest wait for the next.
const MAX_BATCH: usize = 512;

/// One row to write.
#[derive(Debug)]
pub enum Write {
    /// A new game.
    Game {
        /// Its id.
        id: String,
        /// Its settings, as JSON.
        settings: String,
        /// When it was made (milliseconds since the Unix epoch).
        created_ms: u64,
    },
    /// An event of a game.
    Event {
        /// The game.
        game_id: String,
        /// Its number in the game, from 1.
        seq: u64,
        /// The event and the clocks after it.
        stored: Stored,
        /// When (milliseconds since the Unix epoch).
        at_ms: u64,
    },
    /// The game is over: it is not restored at start-up.
    Over {
        /// The game.
        id: String,
    },
}

type Job = (Vec<Write>, oneshot::Sender<Result<(), String>>);

/// The handle of the writer task.
#[derive(Clone, Debug)]
pub struct Writer {
    jobs: mpsc::UnboundedSender<Job>,
}

impl Writer {
    /// Starts the writer task on the current runtime.
    pub fn start(pool: SqlitePool) -> Writer {
        let (jobs, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(pool, rx));
        Writer { jobs }
    }

    /// Writes `writes` in one transaction (shared with other callers'); returns once committed.
    pub async fn write(&self, writes: Vec<Write>) -> Result<(), String> {
        if writes.is_empty() {
            return Ok(());
        }
        let (ack, done) = oneshot::channel();
        self.jobs
            .send((writes, ack))
            .map_err(|_| "the store has stopped".to_string())?;
        done.await
            .map_err(|_| "the store has stopped".to_string())?
    }
}

async fn run(pool: SqlitePool, mut jobs: mpsc::UnboundedReceiver<Job>) {
    while let Some(first) = jobs.recv().await {
        let mut batch = vec![first];
        let mut rows = batch[0].0.len();
        while rows < MAX_BATCH {
            match jobs.try_recv() {
                Ok(job) => {
                    rows += job.0.len();
                    batch.push(job);
                }
                Err(_) => break,
            }
        }
        let result = commit(&pool, &batch).await.map_err(|e| e.to_string());
        for (_, ack) in batch {
            // A caller that went away needs no answer.
            let _ = ack.send(result.clone());
        }
    }
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

async fn commit(pool: &SqlitePool, batch: &[Job]) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    for (writes, _) in batch {
        for w in writes {
            match w {
                Write::Game {
                    id,
                    settings,
                    created_ms,
                } => {
                    sqlx::query(
                        "INSERT INTO online_games (id, settings, created_ms) VALUES (?, ?, ?)",
                    )
                    .bind(id)
                    .bind(settings)
                    .bind(int(*created_ms))
                    .execute(&mut *tx)
                    .await?;
                }
                Write::Event {
                    game_id,
                    seq,
                    stored,
                    at_ms,
                } => {
                    let event = serde_json::to_string(&stored.event)
                        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                    sqlx::query(
                        "INSERT INTO online_events (game_id, seq, event, first_ms, second_ms, \
                         at_ms) VALUES (?, ?, ?, ?, ?, ?)",
                    )
                    .bind(game_id)
                    .bind(int(*seq))
                    .bind(event)
                    .bind(int(stored.clocks[0]))
                    .bind(int(stored.clocks[1]))
                    .bind(int(*at_ms))
                    .execute(&mut *tx)
                    .await?;
                }
                Write::Over { id } => {
                    sqlx::query("UPDATE online_games SET over = 1 WHERE id = ?")
                        .bind(id)
                        .execute(&mut *tx)
                        .await?;
                }
            }
        }
    }
    tx.commit().await
}

/// A game as stored: its settings (JSON) and its events in order.
#[derive(Debug)]
pub struct Saved {
    /// The game.
    pub id: String,
    /// The settings, as JSON.
    pub settings: String,
    /// The events.
    pub events: Vec<Stored>,
}

fn stored_of(row: &sqlx::sqlite::SqliteRow) -> Result<Stored, sqlx::Error> {
    let text: String = row.try_get("event")?;
    let event: Event = serde_json::from_str(&text).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
    let ms = |k: &str| -> Result<u64, sqlx::Error> {
        let v: i64 = row.try_get(k)?;
        Ok(u64::try_from(v).unwrap_or(0))
    };
    Ok(Stored {
        event,
        clocks: [ms("first_ms")?, ms("second_ms")?],
    })
}

/// Every game not over, with its events.
pub async fn load_live(pool: &SqlitePool) -> Result<Vec<Saved>, sqlx::Error> {
    let games = sqlx::query("SELECT id, settings FROM online_games WHERE over = 0 ORDER BY id")
        .fetch_all(pool)
        .await?;
    let events = sqlx::query(
        "SELECT e.game_id, e.event, e.first_ms, e.second_ms FROM online_events e \
         JOIN online_games g ON g.id = e.game_id WHERE g.over = 0 ORDER BY e.game_id, e.seq",
    )
    .fetch_all(pool)
    .await?;
    let mut out: Vec<Saved> = Vec::with_capacity(games.len());
    for g in &games {
        out.push(Saved {
            id: g.try_get("id")?,
            settings: g.try_get("settings")?,
            events: Vec::new(),
        });
    }
    // Both lists are sorted by game id: walk them together.
    let mut i = 0;
    for row in &events {
        let game_id: String = row.try_get("game_id")?;
        while i < out.len() && out[i].id < game_id {
            i += 1;
        }
        if let Some(saved) = out.get_mut(i).filter(|s| s.id == game_id) {
            saved.events.push(stored_of(row)?);
        }
    }
    Ok(out)
}

/// One game, over or not.
pub async fn load_one(pool: &SqlitePool, id: &str) -> Result<Option<Saved>, sqlx::Error> {
    let Some(g) = sqlx::query("SELECT settings FROM online_games WHERE id = ?")
        .bind(id)
        .fetch_optional(pool)
        .await?
    else {
        return Ok(None);
    };
    let rows = sqlx::query(
        "SELECT event, first_ms, second_ms FROM online_events WHERE game_id = ? ORDER BY seq",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    Ok(Some(Saved {
        id: id.to_string(),
        settings: g.try_get("settings")?,
        events: rows.iter().map(stored_of).collect::<Result<_, _>>()?,
    }))
}
