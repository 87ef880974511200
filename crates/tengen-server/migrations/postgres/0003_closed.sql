-- A game can leave play without an end on the board (the PostgreSQL form of sqlite/0003): nobody
-- joined it in time ('expired'), or its stored rows could not be read or replayed
-- ('quarantined', the reason below). Either way `over` is set too.
ALTER TABLE online_games ADD COLUMN IF NOT EXISTS closed TEXT;
CREATE TABLE IF NOT EXISTS online_quarantine (
    game_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
