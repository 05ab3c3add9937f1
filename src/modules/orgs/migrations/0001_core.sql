-- Organisations (tenants), users and their memberships.
create table organisations (
  id text primary key,
  name text not null,
  -- enabled modules: any of 'field', 'crm', 'ems/routing'
  modules text[] not null default '{}',
  -- plan limits by metric, e.g. {"api_keys": 10}; absent metric = unlimited
  plan_limits jsonb not null default '{}',
  created_at timestamptz not null default now()
);

create table users (
  id text primary key,
  email text not null,
  password_hash text,
  platform_staff boolean not null default false,
  platform_admin boolean not null default false,
  disabled boolean not null default false,
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table memberships (
  user_id text not null references users(id) on delete cascade,
  org_id text not null references organisations(id) on delete cascade,
  role text not null check (role in ('ORG_ADMIN', 'OPERATOR', 'ANALYST', 'VIEWER')),
  created_at timestamptz not null default now(),
  primary key (user_id, org_id)
);
create index memberships_org_idx on memberships (org_id);

-- memberships has no row-level security: a signed-in user lists all of their own organisations
-- (/api/auth/me). The exemption is listed in the row-level security guard test.
