-- Clients described by a Client ID Metadata Document: the client_id is the
-- https URL of a JSON document in which the client names itself and its
-- redirect URIs, fetched at authorization instead of registering. The row
-- exists because codes and grants refer to their client; it is upserted by
-- that URL and refreshed from the document whenever it is fetched again
-- (fetched_at). Registered clients keep metadata_document = 0.
ALTER TABLE oauth_clients ADD COLUMN metadata_document BOOLEAN NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE oauth_clients ADD COLUMN fetched_at TIMESTAMP;
