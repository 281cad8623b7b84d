-- Finding every interview of one candidate (viva erase, viva export
-- --email) by their email address, compared as interviews.NormalizeEmail
-- does.
CREATE INDEX interviews_email ON interviews ((lower(btrim(summary->'candidate'->>'email'))));

-- The erasure log: one row per erased record, with nothing of the
-- candidate (see interviews.Erasure).
CREATE TABLE interview_erasures (
    seq     bigserial   PRIMARY KEY,
    id      text        NOT NULL,
    at      timestamptz NOT NULL,
    who     text        NOT NULL,
    reason  text        NOT NULL,
    detail  text        NOT NULL
);
