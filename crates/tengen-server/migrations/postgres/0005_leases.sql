-- Several nodes serving one site (the PostgreSQL form of sqlite/0005): each node's heartbeat
-- (until when it counts as alive), and the node that runs each online game. A game whose node's
-- heartbeat has run out may be taken by any node. The heartbeat is one row per node, apart from
-- the leases, so that renewing it never waits on a lease row that a write of the game's events
-- holds.
CREATE TABLE IF NOT EXISTS online_nodes (
    node TEXT PRIMARY KEY,
    expires_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS online_leases (
    game_id TEXT PRIMARY KEY,
    node TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS online_leases_node ON online_leases (node);
