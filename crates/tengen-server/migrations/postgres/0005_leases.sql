-- Several nodes serving one site (the PostgreSQL form of sqlite/0005): the node that runs each
-- online game, until when. A node renews its leases while it lives; a lease past its time may be
-- taken by any node.
CREATE TABLE IF NOT EXISTS online_leases (
    game_id TEXT PRIMARY KEY,
    node TEXT NOT NULL,
    expires_ms BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS online_leases_node ON online_leases (node);
