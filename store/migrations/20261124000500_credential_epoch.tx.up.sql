-- The credential epoch of a user moves on by one with each password change,
-- in the transaction that stores the new hash and deletes the user's browser
-- sessions. First-party access tokens carry the epoch they were issued under
-- and are refused once it has moved on, so a password change ends every
-- sign-in made with the old password. API keys and OAuth grants are separate
-- credentials and are not affected.
ALTER TABLE users ADD COLUMN credential_epoch INTEGER NOT NULL DEFAULT 0;
