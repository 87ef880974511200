//! The store: results of games against the computer, and the event logs of games in one browser
//! (against the computer, between friends) and of online games, in SQLite (any sqlx SQLite URL,
//! the default: a file in the data folder) or PostgreSQL (a `postgres://` URL).
//!
//! Both databases run the same SQL: `$n` placeholders, `ON CONFLICT`, `TRUE`/`FALSE` and `CAST`
//! read the same in each. Each has its own migrations (`migrations/sqlite`,
//! `migrations/postgres`): the same tables, with PostgreSQL's `BOOLEAN` and `BIGINT` where
//! SQLite keeps integers.

use std::borrow::Cow;
use std::str::FromStr;

use serde::Serialize;
use sqlx::Row;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};

use crate::error::ServeError;

/// The migrations of each database, embedded in the binary: version, name, SQLite's form,
/// PostgreSQL's form.
const MIGRATIONS: &[(i64, &str, &str, &str)] = &[
    (
        1,
        "results",
        include_str!("../migrations/sqlite/0001_results.sql"),
        include_str!("../migrations/postgres/0001_results.sql"),
    ),
    (
        2,
        "online",
        include_str!("../migrations/sqlite/0002_online.sql"),
        include_str!("../migrations/postgres/0002_online.sql"),
    ),
    (
        3,
        "closed",
        include_str!("../migrations/sqlite/0003_closed.sql"),
        include_str!("../migrations/postgres/0003_closed.sql"),
    ),
    (
        4,
        "local",
        include_str!("../migrations/sqlite/0004_local.sql"),
        include_str!("../migrations/postgres/0004_local.sql"),
    ),
    (
        5,
        "leases",
        include_str!("../migrations/sqlite/0005_leases.sql"),
        include_str!("../migrations/postgres/0005_leases.sql"),
    ),
];

/// The database behind a [`Store`].
#[derive(Clone, Debug)]
pub(crate) enum Db {
    /// An SQLite file.
    Sqlite(SqlitePool),
    /// A PostgreSQL server.
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the store's pool, whichever database it is: the body is
/// compiled once for each, so the SQL and the code around it are written once.
macro_rules! on_db {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::store::Db::Sqlite($pool) => $body,
            $crate::store::Db::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_db;

/// A row's columns by name, read the same way from either database.
pub(crate) trait Fields {
    /// A text column (an error when NULL or not text).
    fn text(&self, column: &str) -> Result<String, sqlx::Error>;
    /// A text column that may be NULL.
    fn text_or_null(&self, column: &str) -> Result<Option<String>, sqlx::Error>;
    /// An integer column (an error when NULL or not an integer).
    fn int(&self, column: &str) -> Result<i64, sqlx::Error>;
    /// An integer column that may be NULL.
    fn int_or_null(&self, column: &str) -> Result<Option<i64>, sqlx::Error>;
}

macro_rules! fields_for {
    ($row:ty) => {
        impl Fields for $row {
            fn text(&self, column: &str) -> Result<String, sqlx::Error> {
                self.try_get(column)
            }
            fn text_or_null(&self, column: &str) -> Result<Option<String>, sqlx::Error> {
                self.try_get(column)
            }
            fn int(&self, column: &str) -> Result<i64, sqlx::Error> {
                self.try_get(column)
            }
            fn int_or_null(&self, column: &str) -> Result<Option<i64>, sqlx::Error> {
                self.try_get(column)
            }
        }
    };
}
fields_for!(SqliteRow);
fields_for!(PgRow);

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// `url` with any password replaced by `***`, for messages and logs.
pub fn redacted_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{path}"),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

fn migrator(postgres: bool) -> Migrator {
    Migrator {
        migrations: Cow::Owned(
            MIGRATIONS
                .iter()
                .map(|&(v, d, lite, pg)| {
                    let sql = if postgres { pg } else { lite };
                    Migration::new(v, d.into(), MigrationType::Simple, sql.into(), false)
                })
                .collect(),
        ),
        ..Migrator::DEFAULT
    }
}

/// A finished game against the computer, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultRow {
    /// The game's id.
    pub game_id: String,
    /// The player's chosen name.
    pub player: String,
    /// The computer's level.
    pub level: String,
    /// The rule.
    pub rule: String,
    /// The board size.
    pub size: String,
    /// The human's colour.
    pub human_color: String,
    /// `win`, `loss` or `draw`, for the human.
    pub outcome: String,
    /// Why the game ended (an `EndReason` key).
    pub reason: String,
    /// How many moves the human played.
    pub human_moves: i64,
    /// From the game's start to its end.
    pub duration_ms: i64,
    /// Whether the human took back moves or asked for hints.
    pub assisted: bool,
}

/// A game in one browser as stored: its settings (JSON), when it began, and its events (JSON)
/// with the clocks after each.
#[derive(Clone, Debug)]
pub struct LocalGame {
    /// The settings.
    pub settings: String,
    /// When it was made (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// The events in order, each with black's and white's clock after it.
    pub events: Vec<(String, [u64; 2])>,
    /// When the last event was stored (milliseconds since the Unix epoch; `created_ms` when
    /// none): a finished game's end.
    pub last_ms: u64,
}

/// One stored change of a game in one browser.
#[derive(Clone, Copy, Debug)]
pub struct LocalChange<'a> {
    /// The game.
    pub id: &'a str,
    /// The event's number, from 1.
    pub seq: u64,
    /// The event, as JSON.
    pub event: &'a str,
    /// Black's and white's clocks after it.
    pub clocks: [u64; 2],
    /// Whether the game is over after it.
    pub over: bool,
    /// Whether the computer is to act after it.
    pub computer_turn: bool,
}

fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Stores one change of a game in one browser inside the transaction `$tx` (either database's).
macro_rules! add_change {
    ($tx:ident, $c:expr) => {{
        let c: &LocalChange<'_> = &$c;
        sqlx::query(
            "INSERT INTO local_events (game_id, seq, event, black_ms, white_ms, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(c.id)
        .bind(int(c.seq))
        .bind(c.event)
        .bind(int(c.clocks[0]))
        .bind(int(c.clocks[1]))
        .bind(int(crate::online::unix_ms()))
        .execute(&mut *$tx)
        .await?;
        sqlx::query("UPDATE local_games SET over = $1, computer_turn = $2 WHERE id = $3")
            .bind(c.over)
            .bind(c.computer_turn)
            .bind(c.id)
            .execute(&mut *$tx)
            .await?;
    }};
}

/// Wins, losses and draws against one level.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LevelTally {
    /// The level.
    pub level: String,
    /// Games the human won.
    pub wins: i64,
    /// Games the human lost.
    pub losses: i64,
    /// Drawn games.
    pub draws: i64,
}

/// One entry of the hero board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Hero {
    /// The player's name.
    pub player: String,
    /// The human's moves in that game.
    pub moves: i64,
    /// The game's length in milliseconds.
    pub duration_ms: i64,
}

/// The best unassisted wins against one level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelHeroes {
    /// The level.
    pub level: String,
    /// The win with the fewest moves.
    pub fewest_moves: Option<Hero>,
    /// The fastest win.
    pub shortest_time: Option<Hero>,
}

/// The database.
#[derive(Clone, Debug)]
pub struct Store {
    db: Db,
}

impl Store {
    /// Opens the database at `url` and runs the migrations: PostgreSQL for a `postgres://` (or
    /// `postgresql://`) URL, which must name an existing database; SQLite otherwise, the file
    /// made if missing.
    pub async fn open(url: &str) -> Result<Store, ServeError> {
        let postgres = is_postgres_url(url);
        let db = if postgres {
            Store::open_postgres(url).await?
        } else {
            Store::open_sqlite(url).await?
        };
        on_db!(&db, pool => migrator(postgres).run(pool).await)?;
        Ok(Store { db })
    }

    async fn open_sqlite(url: &str) -> Result<Db, ServeError> {
        let err = |e| ServeError::Database(url.to_string(), e);
        let options = SqliteConnectOptions::from_str(url).map_err(err)?;
        // SQLite takes an empty file for a new database and would fill it without a word;
        // an empty file where a database should be is more likely a damaged one.
        let file = options.get_filename();
        if std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.len() == 0) {
            return Err(ServeError::EmptyDatabase(file.display().to_string()));
        }
        let options = options
            .create_if_missing(true)
            // The write-ahead log lets readers run beside the writer; `NORMAL` sync keeps every
            // committed transaction through a crash of the process (only a power cut can lose
            // the last ones), at a fraction of the cost of `FULL`.
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(std::time::Duration::from_secs(10))
            // 32 MiB of page cache per connection (the default is 2 MiB): the online games'
            // event index is read on every insert and should not come from the disk each time.
            .pragma("cache_size", "-32768");
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(err)?;
        Ok(Db::Sqlite(pool))
    }

    async fn open_postgres(url: &str) -> Result<Db, ServeError> {
        let err = |e| ServeError::Database(redacted_url(url), e);
        // No wait on a lock lasts long (a node taking a game over waits on the writes of the
        // node it takes it from), and a session left in a transaction (its node cut off) ends,
        // freeing its locks, instead of holding them until TCP notices.
        let options = PgConnectOptions::from_str(url).map_err(err)?.options([
            ("lock_timeout", "5s"),
            ("idle_in_transaction_session_timeout", "15s"),
        ]);
        // One connection first: a refused or failed login then says so, where the pool would
        // only report that it timed out.
        let first = <sqlx::postgres::PgConnection as sqlx::Connection>::connect_with(&options)
            .await
            .map_err(err)?;
        sqlx::Connection::close(first).await.map_err(err)?;
        // Several nodes share one server: a few connections each (the online games' writer
        // commits in groups, so one is enough for the moves of many games).
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect_with(options)
            .await
            .map_err(err)?;
        Ok(Db::Postgres(pool))
    }

    /// The database, for the online games' store.
    pub(crate) fn db(&self) -> &Db {
        &self.db
    }

    /// `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self.db {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        }
    }

    /// Closes the connections (waiting for those in use to come back).
    pub async fn close(&self) {
        on_db!(&self.db, pool => pool.close().await)
    }

    /// Stores a new game in one browser, with its first event if any, in one transaction.
    pub async fn add_local_game(
        &self,
        id: &str,
        settings: &str,
        first: Option<LocalChange<'_>>,
    ) -> Result<(), sqlx::Error> {
        on_db!(&self.db, pool => {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO local_games (id, settings, created_ms, computer_turn) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(id)
            .bind(settings)
            .bind(int(crate::online::unix_ms()))
            .bind(first.is_some_and(|c| c.computer_turn))
            .execute(&mut *tx)
            .await?;
            if let Some(c) = first {
                add_change!(tx, c);
            }
            tx.commit().await
        })
    }

    /// Stores one change of a game in one browser.
    pub async fn add_local_change(&self, c: &LocalChange<'_>) -> Result<(), sqlx::Error> {
        on_db!(&self.db, pool => {
            let mut tx = pool.begin().await?;
            add_change!(tx, c);
            tx.commit().await
        })
    }

    /// A game in one browser, if stored.
    pub async fn local_game(&self, id: &str) -> Result<Option<LocalGame>, sqlx::Error> {
        on_db!(&self.db, pool => {
            let row = sqlx::query("SELECT settings, created_ms FROM local_games WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
            let events = match row {
                Some(_) => sqlx::query(
                    "SELECT event, black_ms, white_ms, at_ms FROM local_events \
                     WHERE game_id = $1 ORDER BY seq",
                )
                .bind(id)
                .fetch_all(pool)
                .await?,
                None => Vec::new(),
            };
            row.map(|row| local_game_of(&row, &events)).transpose()
        })
    }

    /// The games in one browser where the computer is to act: start-up resumes them.
    pub async fn local_games_waiting(&self) -> Result<Vec<String>, sqlx::Error> {
        on_db!(&self.db, pool => {
            sqlx::query("SELECT id FROM local_games WHERE computer_turn AND NOT over")
                .fetch_all(pool)
                .await?
                .iter()
                .map(|r| r.text("id"))
                .collect()
        })
    }

    /// Stores a result; a second result for the same game is ignored.
    pub async fn add_result(&self, r: &ResultRow) -> Result<(), sqlx::Error> {
        on_db!(&self.db, pool => {
            sqlx::query(
                "INSERT INTO results (game_id, player, level, rule, size, human_color, \
                 outcome, reason, human_moves, duration_ms, assisted) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                 ON CONFLICT (game_id) DO NOTHING",
            )
            .bind(&r.game_id)
            .bind(&r.player)
            .bind(&r.level)
            .bind(&r.rule)
            .bind(&r.size)
            .bind(&r.human_color)
            .bind(&r.outcome)
            .bind(&r.reason)
            .bind(r.human_moves)
            .bind(r.duration_ms)
            .bind(r.assisted)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Wins, losses and draws per level, for one player or (`None`) everyone.
    pub async fn tally(&self, player: Option<&str>) -> Result<Vec<LevelTally>, sqlx::Error> {
        let sql = "SELECT level, \
               SUM(CASE WHEN outcome = 'win' THEN 1 ELSE 0 END) AS wins, \
               SUM(CASE WHEN outcome = 'loss' THEN 1 ELSE 0 END) AS losses, \
               SUM(CASE WHEN outcome = 'draw' THEN 1 ELSE 0 END) AS draws \
             FROM results WHERE (CAST($1 AS TEXT) IS NULL OR player = $1) GROUP BY level";
        let mut out: Vec<LevelTally> = tengen_engine::Level::ALL
            .iter()
            .map(|l| LevelTally {
                level: l.name().to_string(),
                ..LevelTally::default()
            })
            .collect();
        on_db!(&self.db, pool => {
            for row in sqlx::query(sql).bind(player).fetch_all(pool).await? {
                let level = row.text("level")?;
                if let Some(t) = out.iter_mut().find(|t| t.level == level) {
                    t.wins = row.int("wins")?;
                    t.losses = row.int("losses")?;
                    t.draws = row.int("draws")?;
                }
            }
        });
        Ok(out)
    }

    /// The hero board: per level, the unassisted win with the fewest moves and the fastest.
    pub async fn heroes(&self) -> Result<Vec<LevelHeroes>, sqlx::Error> {
        let mut out = Vec::new();
        for level in tengen_engine::Level::ALL {
            let mut best = [None, None];
            for (slot, order) in ["human_moves, duration_ms", "duration_ms, human_moves"]
                .into_iter()
                .enumerate()
            {
                let sql = format!(
                    "SELECT player, human_moves, duration_ms FROM results \
                     WHERE level = $1 AND outcome = 'win' AND NOT assisted \
                     ORDER BY {order}, id LIMIT 1"
                );
                best[slot] = on_db!(&self.db, pool => {
                    sqlx::query(&sql)
                        .bind(level.name())
                        .fetch_optional(pool)
                        .await?
                        .map(|r| {
                            Ok::<_, sqlx::Error>(Hero {
                                player: r.text("player")?,
                                moves: r.int("human_moves")?,
                                duration_ms: r.int("duration_ms")?,
                            })
                        })
                        .transpose()?
                });
            }
            let [fewest_moves, shortest_time] = best;
            out.push(LevelHeroes {
                level: level.name().to_string(),
                fewest_moves,
                shortest_time,
            });
        }
        Ok(out)
    }
}

fn local_game_of<R: Fields>(row: &R, events: &[R]) -> Result<LocalGame, sqlx::Error> {
    let ms =
        |r: &R, k: &str| -> Result<u64, sqlx::Error> { Ok(u64::try_from(r.int(k)?).unwrap_or(0)) };
    let created_ms = ms(row, "created_ms")?;
    let last_ms = match events.last() {
        Some(r) => ms(r, "at_ms")?,
        None => created_ms,
    };
    Ok(LocalGame {
        settings: row.text("settings")?,
        created_ms,
        last_ms,
        events: events
            .iter()
            .map(|r| Ok((r.text("event")?, [ms(r, "black_ms")?, ms(r, "white_ms")?])))
            .collect::<Result<_, sqlx::Error>>()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        game: &str,
        player: &str,
        outcome: &str,
        moves: i64,
        ms: i64,
        assisted: bool,
    ) -> ResultRow {
        ResultRow {
            game_id: game.into(),
            player: player.into(),
            level: "expert".into(),
            rule: "renju".into(),
            size: "15x15".into(),
            human_color: "black".into(),
            outcome: outcome.into(),
            reason: "five".into(),
            human_moves: moves,
            duration_ms: ms,
            assisted,
        }
    }

    /// The databases to test on: an SQLite file in `dir`, and a new PostgreSQL database when the
    /// tests' server runs.
    async fn databases(dir: &std::path::Path) -> Vec<String> {
        let mut urls = vec![format!("sqlite://{}", dir.join("t.db").display())];
        if crate::testing::postgres_admin_url().is_some() {
            urls.push(crate::testing::new_postgres_database().await);
        }
        urls
    }

    #[tokio::test]
    async fn tallies_and_the_hero_board() {
        let dir = tempfile::tempdir().expect("temporary folder");
        for url in databases(dir.path()).await {
            tallies_and_the_hero_board_on(&url).await;
        }
    }

    async fn tallies_and_the_hero_board_on(url: &str) {
        let store = Store::open(url).await.expect("open");
        for r in [
            row("1", "Ann", "win", 20, 90_000, false),
            row("2", "Bob", "win", 15, 200_000, false),
            row("3", "Cat", "win", 9, 10_000, true),
            row("4", "Ann", "loss", 30, 5_000, false),
            row("1", "Ann", "win", 1, 1, false),
        ] {
            store.add_result(&r).await.expect("insert");
        }
        let ann = store.tally(Some("Ann")).await.expect("tally");
        let expert = ann.iter().find(|t| t.level == "expert").expect("expert");
        assert_eq!((expert.wins, expert.losses, expert.draws), (1, 1, 0));
        let heroes = store.heroes().await.expect("heroes");
        let expert = heroes.iter().find(|h| h.level == "expert").expect("expert");
        // Cat's assisted win and the duplicate of game 1 do not count.
        assert_eq!(
            expert.fewest_moves.as_ref().map(|h| h.player.as_str()),
            Some("Bob")
        );
        assert_eq!(
            expert.shortest_time.as_ref().map(|h| h.player.as_str()),
            Some("Ann")
        );
        assert!(
            heroes
                .iter()
                .find(|h| h.level == "master")
                .is_some_and(|h| h.fewest_moves.is_none())
        );
        // Opening again runs no migration twice.
        store.close().await;
        Store::open(url).await.expect("reopen");
    }

    #[tokio::test]
    async fn games_in_one_browser_round_trip() {
        let dir = tempfile::tempdir().expect("temporary folder");
        for url in databases(dir.path()).await {
            let store = Store::open(&url).await.expect("open");
            let change = |seq, computer_turn| LocalChange {
                id: "g1",
                seq,
                event: r#"{"kind":"move"}"#,
                clocks: [seq * 10, seq * 20],
                over: false,
                computer_turn,
            };
            store
                .add_local_game("g1", "{}", Some(change(1, true)))
                .await
                .expect("a game");
            store
                .add_local_game("g2", "{}", None)
                .await
                .expect("a game");
            assert_eq!(
                store.local_games_waiting().await.expect("waiting"),
                vec!["g1".to_string()],
                "{}",
                store.backend()
            );
            store
                .add_local_change(&change(2, false))
                .await
                .expect("a change");
            let game = store.local_game("g1").await.expect("read").expect("g1");
            assert_eq!(
                game.events,
                vec![
                    (r#"{"kind":"move"}"#.to_string(), [10, 20]),
                    (r#"{"kind":"move"}"#.to_string(), [20, 40])
                ]
            );
            assert!(
                store
                    .local_games_waiting()
                    .await
                    .expect("waiting")
                    .is_empty()
            );
            assert!(store.local_game("nope").await.expect("read").is_none());
            // The same event number twice is refused, and the game stays as it was.
            assert!(store.add_local_change(&change(2, true)).await.is_err());
            assert!(
                store
                    .local_games_waiting()
                    .await
                    .expect("waiting")
                    .is_empty()
            );
            store.close().await;
        }
    }

    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(
            redacted_url("postgres://tengen:secret@db.example:5432/tengen"),
            "postgres://tengen:***@db.example:5432/tengen"
        );
        assert_eq!(
            redacted_url("postgres://tengen@db/tengen"),
            "postgres://tengen@db/tengen"
        );
        assert_eq!(redacted_url("sqlite:///tmp/a.db"), "sqlite:///tmp/a.db");
        assert!(is_postgres_url("postgresql://h/d") && !is_postgres_url("sqlite:x.db"));
    }
}
