-- One row per finished game against the computer.
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL UNIQUE,
    player TEXT NOT NULL,
    level TEXT NOT NULL,
    rule TEXT NOT NULL,
    size TEXT NOT NULL,
    human_color TEXT NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    reason TEXT NOT NULL,
    human_moves INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    assisted INTEGER NOT NULL DEFAULT 0,
    finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX IF NOT EXISTS results_player ON results (player);
CREATE INDEX IF NOT EXISTS results_level ON results (level, outcome);
