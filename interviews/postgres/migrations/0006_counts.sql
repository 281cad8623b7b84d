-- Every list page counts the interviews its filters match. Counting by a
-- search (any part of a role or a name) through the trigram indexes
-- reads every matching row to recheck it, and counting the expired
-- invitations read the whole table; these narrow indexes hold what those
-- filters look at, so the counts read only them (index-only scans, once
-- autovacuum has marked the table's pages visible).
CREATE INDEX interviews_role ON interviews (role_lower);
CREATE INDEX interviews_name ON interviews (name_lower);
CREATE INDEX interviews_link_expiry ON interviews (link_state, expires_ns);
