-- The design library (see interviews.DesignStore): every version of every
-- installed blueprint and role template, written once and never changed,
-- and each design's current version and removal.
CREATE TABLE design_versions (
    kind      text        NOT NULL,
    name      text        NOT NULL,
    version   text        NOT NULL,
    content   text        NOT NULL,
    added_by  text        NOT NULL,
    added_at  timestamptz NOT NULL,
    PRIMARY KEY (kind, name, version)
);

CREATE TABLE designs (
    kind        text        NOT NULL,
    name        text        NOT NULL,
    current     text        NOT NULL,
    removed_at  timestamptz,
    PRIMARY KEY (kind, name),
    FOREIGN KEY (kind, name, current) REFERENCES design_versions (kind, name, version)
);
