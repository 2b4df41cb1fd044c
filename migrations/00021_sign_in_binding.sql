-- Issue 28 (security-3 M3, L2): an emailed sign-in link is bound to the browser that asked for it.
-- The browser keeps a random nonce in a __Host- cookie; the link keeps only its hash. A link opened
-- in a browser without that nonce signs in only after the person confirms the (masked) account.
alter table email_sign_ins add column browser_hash bytea;

-- The hourly sweep deletes expired provider states by this column.
create index oauth_states_expires_at on oauth_states (expires_at);
