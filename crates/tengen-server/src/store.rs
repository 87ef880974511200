//! The store: results of games against the computer, and the event logs of games in one browser
//! (against the computer, between friends), in SQLite (any sqlx SQLite URL).

use std::borrow::Cow;
use std::str::FromStr;

use serde::Serialize;
use sqlx::Row;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::error::ServeError;

/// The migrations, embedded in the binary.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "results", include_str!("../migrations/0001_results.sql")),
    (2, "online", include_str!("../migrations/0002_online.sql")),
    (3, "closed", include_str!("../migrations/0003_closed.sql")),
    (4, "local", include_str!("../migrations/0004_local.sql")),
];

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
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if missing) the database at `url` and runs the migrations.
    pub async fn open(url: &str) -> Result<Store, ServeError> {
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
        let migrator = Migrator {
            migrations: Cow::Owned(
                MIGRATIONS
                    .iter()
                    .map(|&(v, d, sql)| {
                        Migration::new(v, d.into(), MigrationType::Simple, sql.into(), false)
                    })
                    .collect(),
            ),
            ..Migrator::DEFAULT
        };
        migrator.run(&pool).await?;
        Ok(Store { pool })
    }

    /// The connection pool, for the online games' store.
    pub(crate) fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Stores a new game in one browser, with its first event if any, in one transaction.
    pub async fn add_local_game(
        &self,
        id: &str,
        settings: &str,
        first: Option<LocalChange<'_>>,
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO local_games (id, settings, created_ms, computer_turn) VALUES (?, ?, ?, ?)",
        )
        .bind(id)
        .bind(settings)
        .bind(int(crate::online::unix_ms()))
        .bind(first.is_some_and(|c| c.computer_turn))
        .execute(&mut *tx)
        .await?;
        if let Some(c) = first {
            add_change(&mut tx, &c).await?;
        }
        tx.commit().await
    }

    /// Stores one change of a game in one browser.
    pub async fn add_local_change(&self, c: &LocalChange<'_>) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        add_change(&mut tx, c).await?;
        tx.commit().await
    }

    /// A game in one browser, if stored.
    pub async fn local_game(&self, id: &str) -> Result<Option<LocalGame>, sqlx::Error> {
        let Some(row) = sqlx::query("SELECT settings, created_ms FROM local_games WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?
        else {
            return Ok(None);
        };
        let events = sqlx::query(
            "SELECT event, black_ms, white_ms, at_ms FROM local_events WHERE game_id = ? ORDER BY seq",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let ms = |r: &sqlx::sqlite::SqliteRow, k: &str| -> Result<u64, sqlx::Error> {
            Ok(u64::try_from(r.try_get::<i64, _>(k)?).unwrap_or(0))
        };
        let created_ms = ms(&row, "created_ms")?;
        let last_ms = match events.last() {
            Some(r) => ms(r, "at_ms")?,
            None => created_ms,
        };
        Ok(Some(LocalGame {
            settings: row.try_get("settings")?,
            created_ms,
            last_ms,
            events: events
                .iter()
                .map(|r| {
                    Ok((
                        r.try_get("event")?,
                        [ms(r, "black_ms")?, ms(r, "white_ms")?],
                    ))
                })
                .collect::<Result<_, sqlx::Error>>()?,
        }))
    }

    /// The games in one browser where the computer is to act: start-up resumes them.
    pub async fn local_games_waiting(&self) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query("SELECT id FROM local_games WHERE computer_turn = 1 AND over = 0")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| r.try_get("id"))
            .collect()
    }

    /// Stores a result; a second result for the same game is ignored.
    pub async fn add_result(&self, r: &ResultRow) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT OR IGNORE INTO results (game_id, player, level, rule, size, human_color, \
             outcome, reason, human_moves, duration_ms, assisted) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Wins, losses and draws per level, for one player or (`None`) everyone.
    pub async fn tally(&self, player: Option<&str>) -> Result<Vec<LevelTally>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT level, \
               SUM(outcome = 'win') AS wins, SUM(outcome = 'loss') AS losses, \
               SUM(outcome = 'draw') AS draws \
             FROM results WHERE (?1 IS NULL OR player = ?1) GROUP BY level",
        )
        .bind(player)
        .fetch_all(&self.pool)
        .await?;
        let mut out: Vec<LevelTally> = tengen_engine::Level::ALL
            .iter()
            .map(|l| LevelTally {
                level: l.name().to_string(),
                ..LevelTally::default()
            })
            .collect();
        for row in rows {
            let level: String = row.try_get("level")?;
            if let Some(t) = out.iter_mut().find(|t| t.level == level) {
                t.wins = row.try_get("wins")?;
                t.losses = row.try_get("losses")?;
                t.draws = row.try_get("draws")?;
            }
        }
        Ok(out)
    }

    /// The hero board: per level, the unassisted win with the fewest moves and the fastest.
    pub async fn heroes(&self) -> Result<Vec<LevelHeroes>, sqlx::Error> {
        let mut out = Vec::new();
        for level in tengen_engine::Level::ALL {
            let best = |order: &'static str| {
                let sql = format!(
                    "SELECT player, human_moves, duration_ms FROM results \
                     WHERE level = ? AND outcome = 'win' AND assisted = 0 \
                     ORDER BY {order}, id LIMIT 1"
                );
                let pool = self.pool.clone();
                async move {
                    let row = sqlx::query(&sql)
                        .bind(level.name())
                        .fetch_optional(&pool)
                        .await?;
                    row.map(|r| {
                        Ok::<_, sqlx::Error>(Hero {
                            player: r.try_get("player")?,
                            moves: r.try_get("human_moves")?,
                            duration_ms: r.try_get("duration_ms")?,
                        })
                    })
                    .transpose()
                }
            };
            out.push(LevelHeroes {
                level: level.name().to_string(),
                fewest_moves: best("human_moves, duration_ms").await?,
                shortest_time: best("duration_ms, human_moves").await?,
            });
        }
        Ok(out)
    }
}

async fn add_change(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    c: &LocalChange<'_>,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO local_events (game_id, seq, event, black_ms, white_ms, at_ms) \
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(c.id)
    .bind(int(c.seq))
    .bind(c.event)
    .bind(int(c.clocks[0]))
    .bind(int(c.clocks[1]))
    .bind(int(crate::online::unix_ms()))
    .execute(&mut **tx)
    .await?;
    sqlx::query("UPDATE local_games SET over = ?, computer_turn = ? WHERE id = ?")
        .bind(c.over)
        .bind(c.computer_turn)
        .bind(c.id)
        .execute(&mut **tx)
        .await?;
    Ok(())
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

    #[tokio::test]
    async fn tallies_and_the_hero_board() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let store = Store::open(&url).await.expect("open");
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
        drop(store);
        Store::open(&url).await.expect("reopen");
    }
}
