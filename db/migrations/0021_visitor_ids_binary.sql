-- Visitor ids staged as bytes (VisitorSets.encodeBinary() in
-- src/modules/analytics/store/visitor-sets.ts), written by the group commit's one staging
-- statement, instead of JSON text with base64 ids: fewer bytes sent and stored per commit, and
-- no text encoding on either side. Rows staged as JSON before this migration keep their text
-- until a fold takes them (the fold reads both forms); every row holds exactly one of the two.
ALTER TABLE visitor_ids_staged ADD COLUMN ids bytea;
ALTER TABLE visitor_ids_staged ALTER COLUMN visitors DROP NOT NULL;
ALTER TABLE visitor_ids_staged
  ADD CONSTRAINT visitor_ids_staged_one_form CHECK ((visitors IS NULL) <> (ids IS NULL));
