-- Own account (spec 2.10, 3 Account, 4.6, 5 (8); issue 19): preferences, product feedback,
-- passkeys and their challenges, and the outbox of an account deletion's stored objects.

-- A person's preferences; no row means the defaults (welcome not seen, feedback tab unfolded).
create table preferences (
  person_id uuid primary key references people(id) on delete cascade,
  welcome_seen_at timestamptz,
  feedback_tab_folded boolean not null default false
);

-- Feedback on the product, filed under the person and the workspace active when it was sent.
-- It goes with the person's account; a team's workspace being deleted only forgets which one.
create table product_feedback (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references people(id) on delete cascade,
  workspace_id uuid references workspaces(id) on delete set null,
  body text not null check (char_length(body) between 1 and 2000),
  page text check (char_length(page) <= 300),
  app_version text check (char_length(app_version) <= 64),
  created_at timestamptz not null default now()
);
create index product_feedback_at on product_feedback (created_at desc);

-- A passkey (WebAuthn credential) of a person: the id the authenticator chose (base64url), its
-- COSE public key and signature counter, as @simplewebauthn/server verifies them.
create table passkeys (
  id uuid primary key default gen_random_uuid(),
  person_id uuid not null references people(id) on delete cascade,
  credential_id text not null unique check (char_length(credential_id) <= 1366),
  public_key bytea not null,
  counter bigint not null default 0,
  transports text[] not null default '{}',
  device_type text,
  backed_up boolean not null default false,
  created_at timestamptz not null default now(),
  last_used_at timestamptz
);
create index passkeys_person on passkeys (person_id, created_at);

-- A WebAuthn challenge: issued for one ceremony, spent by the first verification that names it
-- (deleted then, whatever the outcome), worthless after `expires_at`. A registration challenge
-- belongs to the person registering; a sign-in challenge to nobody yet.
create table webauthn_challenges (
  challenge text primary key,
  purpose text not null check (purpose in ('register', 'sign-in')),
  person_id uuid references people(id) on delete cascade,
  expires_at timestamptz not null
);

-- The stored objects of a deleted account, written in the deletion's transaction and removed by
-- the account.purge job once every prefix is empty: a crash between the two leaves a row that
-- the hourly sweep enqueues again, never an orphaned object.
create table account_purges (
  id uuid primary key default gen_random_uuid(),
  prefixes text[] not null,
  created_at timestamptz not null default now()
);

-- An external sign-in provider's account linked to a person: the provider's own stable id for
-- it (`subject`: GitHub's numeric user id, the OpenID `sub`), and its avatar, the picture shown
-- when the person uploaded no photo.
create table provider_links (
  person_id uuid not null references people(id) on delete cascade,
  provider text not null check (provider in ('github', 'google')),
  subject text not null check (char_length(subject) <= 255),
  image_url text check (char_length(image_url) <= 2000),
  created_at timestamptz not null default now(),
  primary key (provider, subject),
  unique (person_id, provider)
);

-- One authorization request to a provider: its `state` (kept as a hash), the PKCE verifier and the
-- OpenID nonce, and the person who asked to link it (null for a sign-in). Spent by the callback
-- that names it, valid 10 minutes.
create table oauth_states (
  state_hash bytea primary key,
  provider text not null,
  code_verifier text not null,
  nonce text,
  person_id uuid references people(id) on delete cascade,
  expires_at timestamptz not null
);
