-- Trigram indexes make the name and role searches (substring, any case)
-- use an index. pg_trgm ships with PostgreSQL and is a trusted extension;
-- where it cannot be created the searches scan the table instead.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is unavailable (%): searches scan the table', SQLERRM;
END
$$;

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX interviews_name_search ON interviews USING gin (name_lower gin_trgm_ops);
        CREATE INDEX interviews_role_search ON interviews USING gin (role_lower gin_trgm_ops);
    END IF;
END
$$;
