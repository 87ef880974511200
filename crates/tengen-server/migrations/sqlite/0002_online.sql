-- Games between people. Everything that happens in one is an event, stored before anyone is told.
CREATE TABLE IF NOT EXISTS online_games (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS online_games_live ON online_games (over);
CREATE TABLE IF NOT EXISTS online_events (
    game_id TEXT NOT NULL REFERENCES online_games (id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    first_ms INTEGER NOT NULL,
    second_ms INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
