-- One row per finished game against the computer (the PostgreSQL form of sqlite/0001).
CREATE TABLE IF NOT EXISTS results (
    id BIGSERIAL PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    player TEXT NOT NULL,
    level TEXT NOT NULL,
    rule TEXT NOT NULL,
    size TEXT NOT NULL,
    human_color TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    reason TEXT NOT NULL,
    human_moves BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    assisted BOOLEAN NOT NULL DEFAULT FALSE,
    finished_at TEXT NOT NULL DEFAULT (to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
);
CREATE INDEX IF NOT EXISTS results_player ON results (player);
CREATE INDEX IF NOT EXISTS results_level ON results (level, outcome);
