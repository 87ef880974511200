-- A game can leave play without an end on the board: nobody joined it in time ('expired'), or
-- its stored rows could not be read or replayed ('quarantined', the reason below). Either way
-- `over` is set too, so it is not restored at start-up; its rows are kept as they were.
ALTER TABLE online_games ADD COLUMN closed TEXT;
CREATE TABLE IF NOT EXISTS online_quarantine (
    game_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);
