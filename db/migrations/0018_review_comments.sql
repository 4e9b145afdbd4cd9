-- The review_comment trigger (src/modules/automations/review-comment.ts): comments on pull
-- requests docwright opened become follow-ups on the job that opened them. Runs may now be fired
-- by one; every comment received on such a pull request is kept, so a later reply's prompt can
-- quote the whole thread (a host's webhook carries only the comment itself).

ALTER TABLE automation_runs DROP CONSTRAINT automation_runs_trigger_type_check;
ALTER TABLE automation_runs ADD CONSTRAINT automation_runs_trigger_type_check
  CHECK (trigger_type IN ('code_change', 'schedule', 'webhook', 'review_comment'));

CREATE TABLE automation_review_comments (
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  host        text NOT NULL,
  comment_key text NOT NULL,                         -- kind and the host's id: review_comment:123, note:45...
  job_id      text NOT NULL,                         -- the job whose pull request it is on (no foreign key, as runs)
  thread_key  text NOT NULL,                         -- the thread it belongs to on that pull request
  author      text NOT NULL,
  body        text NOT NULL,
  path        text,                                  -- a comment on lines: the file
  start_line  integer,
  end_line    integer,
  url         text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, host, comment_key)
);
CREATE INDEX automation_review_comments_thread ON automation_review_comments (job_id, thread_key, created_at);

-- Matching a comment's pull request to the job that opened it: by its URL, or by head branch.
CREATE INDEX jobs_project_pr_link ON jobs (project_id, pr_link) WHERE pr_link IS NOT NULL;
CREATE INDEX jobs_project_branch ON jobs (project_id, branch) WHERE branch IS NOT NULL;

-- Delivery ids are kept a week (code hosts redeliver within days), then pruned by age.
CREATE INDEX automation_inbound_deliveries_received ON automation_inbound_deliveries (received_at);
