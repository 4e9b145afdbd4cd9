-- The code a prompt of a job may read: for a prompt a code_change automation run gave (a new job
-- or a follow-up), the watched code repository and the commit the run followed, so the job's
-- agent gets read-only code tools at that commit (docs/automations.md, "The code tools").
-- Null for every other prompt. Runs unchanged on PostgreSQL 15+ and on PGlite.
ALTER TABLE job_prompts ADD COLUMN code_source jsonb;
