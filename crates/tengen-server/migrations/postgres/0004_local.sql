-- Games against the computer and between friends on one screen (the PostgreSQL form of
-- sqlite/0004). Each change is an event, stored before the answer.
CREATE TABLE IF NOT EXISTS local_games (
    id TEXT PRIMARY KEY,
    settings TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    over BOOLEAN NOT NULL DEFAULT FALSE,
    -- The computer is to act: start-up resumes its thinking.
    computer_turn BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX IF NOT EXISTS local_games_computer ON local_games (computer_turn, over);
CREATE TABLE IF NOT EXISTS local_events (
    game_id TEXT NOT NULL REFERENCES local_games (id),
    seq BIGINT NOT NULL,
    event TEXT NOT NULL,
    black_ms BIGINT NOT NULL,
    white_ms BIGINT NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
