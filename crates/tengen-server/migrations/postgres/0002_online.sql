-- Games between people (the PostgreSQL form of sqlite/0002). Everything that happens in one is
-- an event, stored before anyone is told.
CREATE TABLE IF NOT EXISTS online_games (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    over BOOLEAN NOT NULL DEFAULT FALSE,
    created_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS online_games_live ON online_games (over);
CREATE TABLE IF NOT EXISTS online_events (
    game_id TEXT NOT NULL REFERENCES online_games (id),
    seq BIGINT NOT NULL,
    event TEXT NOT NULL,
    first_ms BIGINT NOT NULL,
    second_ms BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
