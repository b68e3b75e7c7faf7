-- One row that the health routes rewrite to prove a write still commits
-- (a full disk or a read-only file lets reads pass but fails every write).
CREATE TABLE health_probe (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TIMESTAMP NOT NULL
);
