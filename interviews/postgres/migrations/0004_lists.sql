-- A recruiter's own invitations, newest first, by index: the list of
-- invitations filters on who registered each interview.
CREATE INDEX interviews_created_by ON interviews ((lower(summary->>'created_by')), created_ns DESC, id);
