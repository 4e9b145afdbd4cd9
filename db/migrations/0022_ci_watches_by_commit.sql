-- CI webhooks (docs/ci-follow-up.md): a code host's check_run / check_suite / status / pipeline
-- webhook names a commit; the hook finds the project's watches of that commit with this index
-- and makes them due at once, in one short update.

CREATE INDEX ci_watches_by_commit ON ci_watches (project_id, head_sha) WHERE state = 'watching';
