-- What each model call of a job cost, and the budget alerts sent (docs/cost-and-budgets.md).
-- Runs unchanged on PostgreSQL 15+ and on PGlite.

-- One row per model call (one agent step), written when the call has ended, priced then with the
-- price table in force: a later price change does not rewrite what was spent. The month's spend
-- of a project, a job's spend and the usage export are sums over these rows.
CREATE TABLE model_calls (
  id                 bigserial PRIMARY KEY,
  project_id         text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  job_id             text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  prompt_seq         integer NOT NULL,                 -- the job_prompts seq the run answered
  model              text NOT NULL,                    -- provider:model
  input_tokens       bigint NOT NULL,                  -- all input tokens, cache reads and writes included
  output_tokens      bigint NOT NULL,
  cache_read_tokens  bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  cost_usd           numeric(20, 10),                  -- null: no price known for the model
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX model_calls_project_created ON model_calls (project_id, created_at);
CREATE INDEX model_calls_job ON model_calls (job_id);

-- A budget alert is sent once per project, month and threshold (80 and 100 percent): the primary
-- key makes the second writer's insert do nothing, however many calls cross it at once.
CREATE TABLE budget_alerts (
  project_id  text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  month       date NOT NULL,                            -- the first day of the UTC month
  threshold   integer NOT NULL CHECK (threshold IN (80, 100)),
  job_id      text REFERENCES jobs (id) ON DELETE SET NULL, -- the job whose call crossed it
  spent_usd   numeric(20, 10) NOT NULL,
  budget_usd  numeric(20, 10) NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, month, threshold)
);

-- Budget alerts become webhooks like the job events they are written as (type budget_alert):
-- budget.warning at 80 percent, budget.exhausted at 100.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_type_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_type_check CHECK (type IN (
  'job.completed', 'job.failed', 'job.archived', 'pull_request.opened', 'budget.warning', 'budget.exhausted'));

CREATE OR REPLACE FUNCTION docwright_enqueue_webhook() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  job jobs%ROWTYPE;
  kind text;
BEGIN
  SELECT * INTO job FROM jobs WHERE id = NEW.job_id;
  IF NOT FOUND OR NOT EXISTS (
    SELECT 1 FROM projects WHERE id = job.project_id AND coalesce(settings ->> 'webhookUrl', '') <> ''
  ) THEN
    RETURN NULL;
  END IF;
  IF NEW.type = 'pull_request' THEN
    IF coalesce(NEW.data ->> 'url', '') = '' OR EXISTS (
      SELECT 1 FROM job_events e
       WHERE e.job_id = NEW.job_id AND e.type = 'pull_request' AND e.id < NEW.id
         AND e.data ->> 'url' = NEW.data ->> 'url'
    ) THEN
      RETURN NULL;
    END IF;
    kind := 'pull_request.opened';
  ELSIF NEW.type = 'budget_alert' THEN
    kind := CASE WHEN NEW.data ->> 'threshold' = '100' THEN 'budget.exhausted' ELSE 'budget.warning' END;
  ELSE
    kind := 'job.' || NEW.type;
  END IF;
  INSERT INTO webhook_deliveries (id, project_id, job_id, event_id, type, job_snapshot, event_data, next_attempt_at)
  VALUES ('whd_' || replace(gen_random_uuid()::text, '-', ''), job.project_id, job.id, NEW.id, kind,
          to_jsonb(job), NEW.data, now());
  PERFORM pg_notify('docwright_webhooks', job.project_id);
  RETURN NULL;
END
$$;

DROP TRIGGER job_events_enqueue_webhook ON job_events;
CREATE TRIGGER job_events_enqueue_webhook AFTER INSERT ON job_events
  FOR EACH ROW WHEN (NEW.type IN ('completed', 'failed', 'archived', 'pull_request', 'budget_alert'))
  EXECUTE FUNCTION docwright_enqueue_webhook();
