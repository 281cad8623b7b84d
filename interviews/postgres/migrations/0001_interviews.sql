-- Interview records: the whole record as JSONB, plus the columns List
-- filters, searches and orders by, and the summary it returns.
CREATE SEQUENCE interview_versions;

CREATE TABLE interviews (
    id             text COLLATE "C" PRIMARY KEY,
    record         jsonb            NOT NULL,
    summary        jsonb            NOT NULL,
    status         text             NOT NULL,
    role_lower     text             NOT NULL,
    name_lower     text             NOT NULL,
    created_at     timestamptz      NOT NULL,
    created_ns     bigint           NOT NULL,
    score          double precision,
    decision_rank  smallint         NOT NULL,
    version        bigint           NOT NULL DEFAULT nextval('interview_versions'),
    updated_at     timestamptz      NOT NULL DEFAULT now()
);

CREATE INDEX interviews_newest ON interviews (created_ns DESC, id);
CREATE INDEX interviews_status_newest ON interviews (status, created_ns DESC, id);
CREATE INDEX interviews_score ON interviews (score DESC NULLS LAST, created_ns DESC, id);
CREATE INDEX interviews_decision ON interviews (decision_rank, created_ns DESC, id);

-- Leases: one session at a time runs an interview. A lease may exist
-- before its record does.
CREATE TABLE interview_leases (
    id          text COLLATE "C" PRIMARY KEY,
    owner       text        NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- An interview's own provider keys, sealed (AES-256-GCM, bound to the id).
CREATE TABLE interview_keys (
    id      text COLLATE "C" PRIMARY KEY,
    sealed  bytea NOT NULL
);
