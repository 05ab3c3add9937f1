-- Identity: sign-in sessions (login families), the refresh-token allowlist, login lockouts,
-- invitations and single sign-on configuration.

-- One row per sign-in (password, invitation or SSO): the family every refresh token of that
-- sign-in descends from. Revoking it (logout, reuse detection) ends every token of the family.
create table auth_sessions (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  user_id text not null,
  method text not null check (method in ('password', 'invitation', 'sso')),
  email text,
  -- SSO sessions: the token's group ids, re-mapped to roles on every refresh
  sso_groups jsonb,
  created_at timestamptz not null,
  revoked_at timestamptz,
  revoked_reason text
);
create index auth_sessions_org_user_idx on auth_sessions (org_id, user_id);

-- The refresh-token allowlist. The id is the SHA-256 of the token's jti, never the token itself.
-- A row stays after use (used_at) so that a second presentation is recognised as reuse.
create table refresh_tokens (
  id text primary key,
  session_id text not null references auth_sessions(id) on delete cascade,
  org_id text not null,
  issued_at timestamptz not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
create index refresh_tokens_session_idx on refresh_tokens (session_id);
create index refresh_tokens_expires_idx on refresh_tokens (expires_at);

-- Consecutive failed logins per email (known or not), shared by every instance.
create table login_failures (
  email_key text primary key,
  failures int not null,
  locked_until timestamptz,
  updated_at timestamptz not null
);

create table invitations (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  email text not null,
  role text not null check (role in ('ORG_ADMIN', 'OPERATOR', 'ANALYST', 'VIEWER')),
  -- SHA-256 of the invitation token; the token itself is shown once, at creation
  token_hash text not null unique,
  created_by text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_user_id text,
  revoked_at timestamptz
);
create index invitations_org_created_idx on invitations (org_id, created_at desc);

-- One identity provider per organisation; a provider tenant (tid) belongs to one organisation.
create table sso_providers (
  org_id text primary key references organisations(id) on delete cascade,
  tid text not null,
  issuer text not null,
  application_id text not null,
  jwks_url text,
  discovery_url text,
  enabled boolean not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  updated_by text
);
create unique index sso_providers_tid_key on sso_providers (tid);

create table sso_group_mappings (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  group_id text not null,
  role text not null check (role in ('ORG_ADMIN', 'OPERATOR', 'ANALYST', 'VIEWER')),
  created_by text,
  created_at timestamptz not null,
  unique (org_id, group_id, role)
);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('auth_sessions');
select enable_org_isolation('invitations');
select enable_org_isolation('refresh_tokens');
select enable_org_isolation('sso_group_mappings');
select enable_org_isolation('sso_providers');
