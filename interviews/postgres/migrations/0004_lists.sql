-- The columns the recruiters' list of invitations filters on, so it never
-- reads the summaries' JSON to choose rows: who registered the interview
-- (lower-cased), the invitation's state but for its expiry, and when the
-- link expires (nanoseconds since 1970; null when it never does, or the
-- interview started). Writes fill them from the record; this fills the
-- rows written before.
ALTER TABLE interviews
    ADD COLUMN created_by_lower text     NOT NULL DEFAULT '',
    ADD COLUMN link_state       text     NOT NULL DEFAULT 'created',
    ADD COLUMN expires_ns       bigint;

UPDATE interviews SET
    created_by_lower = lower(coalesce(summary->>'created_by', '')),
    link_state = CASE
        WHEN summary ? 'revoked_at' THEN 'revoked'
        WHEN status IN ('completed', 'candidate_left', 'failed') THEN 'completed'
        WHEN status = 'in_progress' THEN 'in_progress'
        WHEN summary ? 'opened_at' THEN 'opened'
        ELSE 'created' END,
    expires_ns = CASE WHEN summary ? 'expires_at' AND NOT summary ? 'started_at'
        THEN (extract(epoch FROM (summary->>'expires_at')::timestamptz) * 1000000000)::bigint END;

CREATE INDEX interviews_created_by ON interviews (created_by_lower, created_ns DESC, id);
CREATE INDEX interviews_link_state ON interviews (link_state, created_ns DESC, id);
