-- A workspace's brand and theme (spec 2.8, 4.4; issue 17): one row per workspace that set any of
-- them. Kept whatever the plan: on a plan without its own branding the room draws its own look
-- and the made-with badge, and the row waits for a plan that shows it.

create table workspace_brands (
  workspace_id uuid primary key references workspaces(id) on delete cascade,
  -- The name the room's header shows; null shows the workspace's own name.
  name text check (char_length(name) between 1 and 80),
  accent text check (accent ~ '^#[0-9a-f]{6}$'),
  -- The theme's tokens (colours `#rrggbb`, `radius`, `font`); null is the room's own look.
  theme jsonb,
  -- The logo as re-encoded by the platform (services/core/rules/images.ts), in the object store under
  -- logo_key; logo_hash (sha256 of those bytes, base64url) names the key and is the ETag.
  logo_key text,
  logo_type text check (logo_type in ('image/png', 'image/jpeg', 'image/webp')),
  logo_width integer,
  logo_height integer,
  logo_bytes integer,
  logo_hash text,
  logo_at timestamptz,
  updated_at timestamptz not null default now(),
  check ((logo_key is null) = (logo_hash is null))
);
