-- Staged payloads are stored as they are sent, not compressed. A group commit's counts (JSON text
-- of ViewSums.encode(), about 50 KB for the 7,000 views of a busy group) are written once, read
-- back only by a merge in another process or after a crash, and deleted within seconds; the
-- default storage (EXTENDED) compressed each with pglz on the way in, which cost the staging
-- insert about half of its database CPU (docs/ingestion.md, "PostgreSQL's side"). EXTERNAL keeps
-- large values out of line, uncompressed. The visitor ids are random bytes that do not compress
-- either. Only the storage of new values changes; rows staged before stay readable as they are.
ALTER TABLE page_views_staged
  ALTER COLUMN counts SET STORAGE EXTERNAL,
  ALTER COLUMN referrals SET STORAGE EXTERNAL,
  ALTER COLUMN formats SET STORAGE EXTERNAL;
ALTER TABLE visitor_ids_staged
  ALTER COLUMN ids SET STORAGE EXTERNAL,
  ALTER COLUMN visitors SET STORAGE EXTERNAL;
