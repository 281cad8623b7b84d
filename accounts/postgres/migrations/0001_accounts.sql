-- The web app's users: each the whole accounts.User as JSONB (its
-- password hash, role, generation and tokens), keyed by email address.
CREATE TABLE accounts_users (
    email    text COLLATE "C" PRIMARY KEY,
    account  jsonb NOT NULL
);

-- API tokens by hash, so a request's token finds its user by index. Kept
-- in step with accounts_users.account's tokens on every write.
CREATE TABLE accounts_tokens (
    hash   text COLLATE "C" PRIMARY KEY,
    email  text COLLATE "C" NOT NULL REFERENCES accounts_users (email) ON DELETE CASCADE
);
CREATE INDEX accounts_tokens_email ON accounts_tokens (email);

-- Signed-in browsers: the SHA-256 of the cookie, never the cookie.
CREATE TABLE accounts_sessions (
    hash        bytea       PRIMARY KEY,
    email       text        NOT NULL,
    user_id     text        NOT NULL,
    generation  integer     NOT NULL,
    expires_at  timestamptz NOT NULL
);
CREATE INDEX accounts_sessions_email ON accounts_sessions (email, expires_at);
CREATE INDEX accounts_sessions_expiry ON accounts_sessions (expires_at);

-- Rate limits: one token bucket per limiter and client.
CREATE TABLE accounts_rate_buckets (
    key         text COLLATE "C" PRIMARY KEY,
    tokens      double precision NOT NULL,
    updated_at  timestamptz      NOT NULL
);
CREATE INDEX accounts_rate_buckets_updated ON accounts_rate_buckets (updated_at);
