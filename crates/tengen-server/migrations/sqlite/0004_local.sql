-- Games against the computer and between friends on one screen. Each change is an event,
-- stored before the answer, so a reload, another tab or a restart finds the game as it was.
CREATE TABLE IF NOT EXISTS local_games (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    -- The computer is to act: start-up resumes its thinking.
    computer_turn INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS local_games_computer ON local_games (computer_turn, over);
CREATE TABLE IF NOT EXISTS local_events (
    game_id TEXT NOT NULL REFERENCES local_games (id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    black_ms INTEGER NOT NULL,
    white_ms INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
