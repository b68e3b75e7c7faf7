-- A small integer per user, unique, set when the user is created
-- (insertUser). A table with many rows per user leads its indexes with it
-- instead of the 36-character user id: expenses (the table rebuild of
-- 20261128000100 in store/rebuild.go) carry (user_id, user_seq), a foreign
-- key to (id, seq) here, so that a row's user_seq always names its own user.
ALTER TABLE users ADD COLUMN seq INTEGER;
--bun:split
UPDATE users SET seq = rowid;
--bun:split
CREATE UNIQUE INDEX users_seq ON users (seq);
--bun:split
CREATE UNIQUE INDEX users_id_seq ON users (id, seq);
--bun:split
-- A user without its number could record nothing (expenses need it): refuse
-- such an insert at once, whichever path makes it (see insertUser).
CREATE TRIGGER users_seq_required BEFORE INSERT ON users
WHEN NEW.seq IS NULL
BEGIN
    SELECT RAISE(ABORT, 'users.seq is required');
END;
