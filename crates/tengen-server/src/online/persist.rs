//! The online games in the store (SQLite or PostgreSQL). One writer task commits whatever is waiting in one transaction
//! (group commit) and answers each caller once that transaction is committed, so a move is on
//! disk before anyone hears of it, and many games moving at once share the cost of a commit.

use tokio::sync::{mpsc, oneshot};

use crate::store::{Db, Fields, on_db};

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
    /// Nobody joined the game in time: it is closed, not restored at start-up.
    Expire {
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

/// What a write of a game's events answers when the node no longer holds the game's lease.
pub const LEASE_LOST: &str = "another node runs this game now";

impl Writer {
    /// Starts the writer task on the current runtime. With `fence` (this node's name, when it
    /// serves a site with other nodes), a game's events are stored only while the node holds
    /// the game's lease, and each caller's writes commit or fail on their own.
    pub fn start(db: Db, fence: Option<String>) -> Writer {
        let (jobs, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(db, fence, rx));
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

async fn run(db: Db, fence: Option<String>, mut jobs: mpsc::UnboundedReceiver<Job>) {
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
        let results = match (&fence, &db) {
            (Some(node), Db::Postgres(pool)) => commit_fenced(pool, node, &batch).await,
            _ => commit(&db, &batch)
                .await
                .map(|()| vec![Ok(()); batch.len()]),
        };
        let results = results.unwrap_or_else(|e| vec![Err(e.to_string()); batch.len()]);
        for ((_, ack), result) in batch.into_iter().zip(results) {
            // A caller that went away needs no answer.
            let _ = ack.send(result);
        }
    }
}

/// Commits `batch` for node `node` of several. A game's event goes in only while `node` holds
/// the game's lease ([`JobConn::write_job`]), read with a share lock so that no other node can
/// take the lease and replay the game until this transaction has ended; the rest of the batch
/// goes on past a refused job. Should
/// a statement fail outright (which aborts the transaction), the batch is done again with each
/// job behind a savepoint of its own, so that one game's failure leaves the others' writes in.
/// The answer of each job.
async fn commit_fenced(
    pool: &sqlx::PgPool,
    node: &str,
    batch: &[Job],
) -> Result<Vec<Result<(), String>>, sqlx::Error> {
    use sqlx::Acquire;
    let mut tx = pool.begin().await?;
    let mut results = Vec::with_capacity(batch.len());
    let mut failed = false;
    for (writes, _) in batch {
        match JobConn::write_job(&mut *tx, Some(node), writes).await {
            Ok(result) => results.push(result),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    if !failed {
        tx.commit().await?;
        return Ok(results);
    }
    tx.rollback().await?;
    let mut tx = pool.begin().await?;
    let mut results = Vec::with_capacity(batch.len());
    for (writes, _) in batch {
        let mut job = tx.begin().await?;
        match JobConn::write_job(&mut *job, Some(node), writes).await {
            Ok(result) => {
                job.commit().await?;
                results.push(result);
            }
            Err(e) => {
                job.rollback().await?;
                results.push(Err(e.to_string()));
            }
        }
    }
    tx.commit().await?;
    Ok(results)
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

async fn commit(db: &Db, batch: &[Job]) -> Result<(), sqlx::Error> {
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        for (writes, _) in batch {
            // Without a fence a job can only fail outright, which fails the batch.
            let _ = JobConn::write_job(&mut *tx, None, writes).await?;
        }
        tx.commit().await
    })
}

/// A connection of either database that stores a job's writes.
trait JobConn {
    /// Stores `writes`. With `fence` (this node's name; PostgreSQL only), a game's event goes
    /// in only while the node holds the game's lease, read with a share lock: the answer is
    /// then `Ok(Err(LEASE_LOST))` when it does not, and the job stops there (the lease cannot
    /// change within the transaction, so no earlier event of the job went in either).
    async fn write_job(
        &mut self,
        fence: Option<&str>,
        writes: &[Write],
    ) -> Result<Result<(), String>, sqlx::Error>;
}

macro_rules! job_conn {
    ($conn:ty) => {
        impl JobConn for $conn {
            async fn write_job(
                &mut self,
                fence: Option<&str>,
                writes: &[Write],
            ) -> Result<Result<(), String>, sqlx::Error> {
                for w in writes {
                    match w {
                        Write::Event {
                            game_id,
                            seq,
                            stored,
                            at_ms,
                        } => {
                            let event = serde_json::to_string(&stored.event)
                                .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                            let query = sqlx::query(if fence.is_some() {
                                "INSERT INTO online_events (game_id, seq, event, first_ms, \
                                 second_ms, at_ms) SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS \
                                 (SELECT 1 FROM online_leases WHERE game_id = $1 AND node = $7 \
                                 FOR SHARE)"
                            } else {
                                "INSERT INTO online_events (game_id, seq, event, first_ms, \
                                 second_ms, at_ms) VALUES ($1, $2, $3, $4, $5, $6)"
                            })
                            .bind(game_id)
                            .bind(int(*seq))
                            .bind(event)
                            .bind(int(stored.clocks[0]))
                            .bind(int(stored.clocks[1]))
                            .bind(int(*at_ms));
                            let query = match fence {
                                Some(node) => query.bind(node),
                                None => query,
                            };
                            if query.execute(&mut *self).await?.rows_affected() == 0 {
                                return Ok(Err(LEASE_LOST.to_string()));
                            }
                        }
                        Write::Game {
                            id,
                            settings,
                            created_ms,
                        } => {
                            sqlx::query(
                                "INSERT INTO online_games (id, settings, created_ms) \
                                 VALUES ($1, $2, $3)",
                            )
                            .bind(id)
                            .bind(settings)
                            .bind(int(*created_ms))
                            .execute(&mut *self)
                            .await?;
                        }
                        Write::Over { id } => {
                            sqlx::query("UPDATE online_games SET over = TRUE WHERE id = $1")
                                .bind(id)
                                .execute(&mut *self)
                                .await?;
                        }
                        Write::Expire { id } => {
                            // Fenced like an event: a node that lost the game must not close it.
                            let closed = match fence {
                                Some(node) => sqlx::query(
                                    "UPDATE online_games SET over = TRUE, closed = 'expired' \
                                     WHERE id = $1 AND EXISTS (SELECT 1 FROM online_leases \
                                     WHERE game_id = $1 AND node = $2 FOR SHARE)",
                                )
                                .bind(id)
                                .bind(node),
                                None => sqlx::query(EXPIRE).bind(id),
                            }
                            .execute(&mut *self)
                            .await?
                            .rows_affected();
                            if closed == 0 && fence.is_some() {
                                return Ok(Err(LEASE_LOST.to_string()));
                            }
                        }
                    }
                }
                Ok(Ok(()))
            }
        }
    };
}
job_conn!(sqlx::SqliteConnection);
job_conn!(sqlx::PgConnection);

/// A game as stored: its settings (JSON) and its events in order.
#[derive(Debug)]
pub struct Saved {
    /// The game.
    pub id: String,
    /// The settings, as JSON.
    pub settings: String,
    /// When it was made (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// The events.
    pub events: Vec<Stored>,
}

/// A stored game as read: whole, or why its rows cannot be read.
#[derive(Debug)]
pub enum Loaded {
    /// Every row read.
    Good(Saved),
    /// A row of the game could not be read.
    Bad {
        /// The game.
        id: String,
        /// The first row that failed, and why.
        reason: String,
    },
}

impl Loaded {
    fn id(&self) -> &str {
        match self {
            Loaded::Good(saved) => &saved.id,
            Loaded::Bad { id, .. } => id,
        }
    }

    /// Adds the game's next event row; the first row that cannot be read makes the game `Bad`,
    /// and the rows after it are not looked at.
    fn add_event(&mut self, row: &impl Fields) {
        let Loaded::Good(saved) = self else { return };
        match stored_of(row) {
            Ok(stored) => saved.events.push(stored),
            Err(e) => {
                let id = std::mem::take(&mut saved.id);
                *self = Loaded::Bad {
                    id,
                    reason: event_error(row, &e),
                };
            }
        }
    }
}

/// What the store holds under an id.
#[derive(Debug)]
pub enum Found {
    /// A game, over or not, as read.
    Game(Loaded),
    /// A game nobody joined in time.
    Expired,
    /// A game set aside, and why.
    Quarantined(String),
}

fn stored_of(row: &impl Fields) -> Result<Stored, String> {
    let text = row.text("event").map_err(|e| e.to_string())?;
    let event: Event = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let ms = |k: &str| -> Result<u64, String> {
        let v = row.int(k).map_err(|e| e.to_string())?;
        Ok(u64::try_from(v).unwrap_or(0))
    };
    Ok(Stored {
        event,
        clocks: [ms("first_ms")?, ms("second_ms")?],
    })
}

fn event_error(row: &impl Fields, e: &str) -> String {
    let seq = row.int_or_null("seq").ok().flatten();
    match seq {
        Some(seq) => format!("event {seq}: {e}"),
        None => format!("an event: {e}"),
    }
}

/// A game's own columns, read one by one so that a bad value names itself.
fn game_of(row: &impl Fields, id: String) -> Loaded {
    let settings = row.text("settings");
    let created = row.int("created_ms");
    match (settings, created) {
        (Ok(settings), Ok(created)) => Loaded::Good(Saved {
            id,
            settings,
            created_ms: u64::try_from(created).unwrap_or(0),
            events: Vec::new(),
        }),
        (Err(e), _) => Loaded::Bad {
            id,
            reason: format!("settings: {e}"),
        },
        (_, Err(e)) => Loaded::Bad {
            id,
            reason: format!("created_ms: {e}"),
        },
    }
}

/// Every game not over, with its events. A game with a row that cannot be read comes back as
/// [`Loaded::Bad`] rather than stopping the others.
pub async fn load_live(db: &Db) -> Result<Vec<Loaded>, sqlx::Error> {
    on_db!(db, pool => {
        let games = sqlx::query(
            "SELECT CAST(id AS TEXT) AS id, settings, created_ms FROM online_games \
             WHERE NOT over ORDER BY CAST(id AS TEXT)",
        )
        .fetch_all(pool)
        .await?;
        let events = sqlx::query(
            "SELECT CAST(e.game_id AS TEXT) AS game_id, e.seq, e.event, e.first_ms, e.second_ms \
             FROM online_events e JOIN online_games g ON g.id = e.game_id WHERE NOT g.over \
             ORDER BY CAST(e.game_id AS TEXT), e.seq",
        )
        .fetch_all(pool)
        .await?;
        Ok(live_of(&games, &events))
    })
}

/// The live games from their rows and their events' rows, both sorted by game id.
fn live_of<R: Fields>(games: &[R], events: &[R]) -> Vec<Loaded> {
    let mut out: Vec<Loaded> = Vec::with_capacity(games.len());
    for g in games {
        match g.text_or_null("id").ok().flatten() {
            Some(id) => out.push(game_of(g, id)),
            // Nothing to name or set it aside by; it cannot be asked for either.
            None => tracing::warn!("an online game row without an id was skipped"),
        }
    }
    // Both lists are sorted by game id: walk them together.
    let mut i = 0;
    for row in events {
        let Some(game_id) = row.text_or_null("game_id").ok().flatten() else {
            continue;
        };
        while i < out.len() && out[i].id() < game_id.as_str() {
            i += 1;
        }
        if let Some(loaded) = out.get_mut(i).filter(|l| l.id() == game_id) {
            loaded.add_event(row);
        }
    }
    out
}

/// One game, over or not.
pub async fn load_one(db: &Db, id: &str) -> Result<Option<Found>, sqlx::Error> {
    on_db!(db, pool => {
        let Some(g) = sqlx::query(
            "SELECT settings, created_ms, closed, \
             (SELECT reason FROM online_quarantine WHERE game_id = online_games.id) AS reason \
             FROM online_games WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(pool)
        .await?
        else {
            return Ok(None);
        };
        let closed = g.text_or_null("closed").ok().flatten();
        match closed.as_deref() {
            Some("expired") => return Ok(Some(Found::Expired)),
            Some(_) => {
                let reason = g.text_or_null("reason").ok().flatten();
                return Ok(Some(Found::Quarantined(
                    reason.unwrap_or_else(|| "no reason stored".into()),
                )));
            }
            None => {}
        }
        let rows = sqlx::query(
            "SELECT seq, event, first_ms, second_ms FROM online_events WHERE game_id = $1 \
             ORDER BY seq",
        )
        .bind(id)
        .fetch_all(pool)
        .await?;
        let mut loaded = game_of(&g, id.to_string());
        for row in &rows {
            loaded.add_event(row);
        }
        Ok(Some(Found::Game(loaded)))
    })
}

/// Sets a game aside: it is closed (not restored at start-up, not loaded when asked for) and
/// the reason is kept in `online_quarantine`. Its rows stay as they were, for a person to look
/// at.
pub async fn quarantine(db: &Db, id: &str, reason: &str) -> Result<(), sqlx::Error> {
    on_db!(db, pool => {
        let mut tx = pool.begin().await?;
        sqlx::query("UPDATE online_games SET over = TRUE, closed = 'quarantined' WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO online_quarantine (game_id, reason, at_ms) VALUES ($1, $2, $3) \
             ON CONFLICT (game_id) DO UPDATE SET reason = excluded.reason, at_ms = excluded.at_ms",
        )
        .bind(id)
        .bind(reason)
        .bind(int(super::unix_ms()))
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    })
}

/// Closes a game nobody joined in time.
const EXPIRE: &str = "UPDATE online_games SET over = TRUE, closed = 'expired' WHERE id = $1";

/// Marks a game expired outside the writer (at start-up).
pub async fn expire(db: &Db, id: &str) -> Result<(), sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query(EXPIRE).bind(id).execute(pool).await?;
    });
    Ok(())
}

/// Takes the lease of game `id` for `node` when it is free, `node`'s already, or held by a
/// node whose heartbeat has run out at `now_ms`; returns the node that holds it after.
pub async fn acquire_lease(
    db: &Db,
    id: &str,
    node: &str,
    now_ms: u64,
) -> Result<String, sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query(
            "INSERT INTO online_leases (game_id, node) VALUES ($1, $2) \
             ON CONFLICT (game_id) DO UPDATE SET node = excluded.node \
             WHERE online_leases.node = excluded.node OR NOT EXISTS (SELECT 1 FROM \
             online_nodes n WHERE n.node = online_leases.node AND n.expires_ms >= $3)",
        )
        .bind(id)
        .bind(node)
        .bind(int(now_ms))
        .execute(pool)
        .await?;
        sqlx::query("SELECT node FROM online_leases WHERE game_id = $1")
            .bind(id)
            .fetch_one(pool)
            .await?
            .text("node")
    })
}

/// The node holding game `id`'s lease at `now_ms` (its heartbeat running), if one does.
pub async fn lease_holder(db: &Db, id: &str, now_ms: u64) -> Result<Option<String>, sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query(
            "SELECT l.node FROM online_leases l JOIN online_nodes n ON n.node = l.node \
             WHERE l.game_id = $1 AND n.expires_ms >= $2",
        )
        .bind(id)
        .bind(int(now_ms))
        .fetch_optional(pool)
        .await?
        .map(|r| r.text("node"))
        .transpose()
    })
}

/// Says `node` is alive until `until_ms`: its leases hold until then.
pub async fn heartbeat(db: &Db, node: &str, until_ms: u64) -> Result<(), sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query(
            "INSERT INTO online_nodes (node, expires_ms) VALUES ($1, $2) \
             ON CONFLICT (node) DO UPDATE SET expires_ms = excluded.expires_ms",
        )
        .bind(node)
        .bind(int(until_ms))
        .execute(pool)
        .await?;
    });
    Ok(())
}

/// The games whose leases `node` holds.
pub async fn leases_of(db: &Db, node: &str) -> Result<Vec<String>, sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query("SELECT game_id FROM online_leases WHERE node = $1")
            .bind(node)
            .fetch_all(pool)
            .await?
            .iter()
            .map(|r| r.text("game_id"))
            .collect()
    })
}

/// Whether another node than `node` holds game `id`'s lease (false when unsure).
pub async fn lease_taken(db: &Db, id: &str, node: &str) -> bool {
    let held: Result<Option<String>, sqlx::Error> = on_db!(db, pool => {
        sqlx::query("SELECT node FROM online_leases WHERE game_id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await
            .and_then(|r| r.map(|r| r.text("node")).transpose())
    });
    matches!(held, Ok(Some(other)) if other != node)
}

/// Gives up `node`'s lease of game `id`.
pub async fn release_lease(db: &Db, id: &str, node: &str) -> Result<(), sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query("DELETE FROM online_leases WHERE game_id = $1 AND node = $2")
            .bind(id)
            .bind(node)
            .execute(pool)
            .await?;
    });
    Ok(())
}

/// Live games no node runs at `now_ms`: no lease, or one of a node whose heartbeat has run
/// out.
pub async fn orphans(db: &Db, now_ms: u64) -> Result<Vec<String>, sqlx::Error> {
    on_db!(db, pool => {
        sqlx::query(
            "SELECT g.id FROM online_games g LEFT JOIN online_leases l ON l.game_id = g.id \
             LEFT JOIN online_nodes n ON n.node = l.node \
             WHERE NOT g.over AND (l.game_id IS NULL OR n.node IS NULL OR n.expires_ms < $1) \
             ORDER BY g.id",
        )
        .bind(int(now_ms))
        .fetch_all(pool)
        .await?
        .iter()
        .map(|r| r.text("id"))
        .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_wire::Role;

    fn join(id: &str, seq: u64) -> Write {
        Write::Event {
            game_id: id.into(),
            seq,
            stored: Stored {
                event: Event::Join {
                    seat: Role::First,
                    name: "Ann".into(),
                    token_hash: "00".into(),
                },
                clocks: [0, 0],
            },
            at_ms: 1,
        }
    }

    fn game(id: &str) -> Write {
        Write::Game {
            id: id.into(),
            settings: "{}".into(),
            created_ms: 1,
        }
    }

    /// A node that no longer holds a game's lease cannot store its events, and one game's
    /// refusal leaves the other writes of the same group commit in.
    #[tokio::test]
    async fn a_node_without_the_lease_stores_nothing_of_the_game() {
        if crate::testing::postgres_admin_url().is_none() {
            eprintln!("no PostgreSQL to test on (scripts/test starts one): not run");
            return;
        }
        let url = crate::testing::new_postgres_database().await;
        let store = crate::store::Store::open(&url).await.expect("open");
        let db = store.db().clone();
        let now = super::super::unix_ms();
        heartbeat(&db, "a", now + 60_000).await.expect("heartbeat");
        let a = Writer::start(db.clone(), Some("a".into()));
        for id in ["g1", "g2"] {
            assert_eq!(acquire_lease(&db, id, "a", now).await.expect("lease"), "a");
            a.write(vec![game(id), join(id, 1)]).await.expect("stored");
        }
        // While a's heartbeat runs, b cannot take g1; once it has run out, b takes it, and a
        // still thinks it runs it.
        heartbeat(&db, "b", now + 180_000).await.expect("heartbeat");
        assert_eq!(
            acquire_lease(&db, "g1", "b", now).await.expect("lease"),
            "a"
        );
        assert_eq!(
            acquire_lease(&db, "g1", "b", now + 120_000)
                .await
                .expect("lease"),
            "b"
        );
        let (r1, r2) = tokio::join!(a.write(vec![join("g1", 2)]), a.write(vec![join("g2", 2)]));
        assert_eq!(r1, Err(LEASE_LOST.to_string()));
        assert_eq!(r2, Ok(()));
        let events = |id: &'static str| {
            let db = db.clone();
            async move {
                match load_one(&db, id).await.expect("read") {
                    Some(Found::Game(Loaded::Good(saved))) => saved.events.len(),
                    other => panic!("{other:?}"),
                }
            }
        };
        assert_eq!(events("g1").await, 1);
        assert_eq!(events("g2").await, 2);
        // A write that fails outright (an event number stored already) fails alone.
        assert_eq!(
            acquire_lease(&db, "g3", "a", now).await.expect("lease"),
            "a"
        );
        a.write(vec![game("g3")]).await.expect("stored");
        let (dup, next) = tokio::join!(a.write(vec![join("g2", 2)]), a.write(vec![join("g3", 1)]));
        assert!(dup.is_err_and(|e| e != LEASE_LOST), "a second event 2");
        assert_eq!(next, Ok(()));
        assert_eq!(events("g2").await, 2);
        assert_eq!(events("g3").await, 1);
        // b, holding the lease, stores g1's next event.
        let b = Writer::start(db.clone(), Some("b".into()));
        b.write(vec![join("g1", 2)]).await.expect("stored");
        assert_eq!(events("g1").await, 2);
        store.close().await;
    }
}
