-- Site access: a member's persona at a site of their organisation (one persona per user and site).
-- Removing the organisation membership removes the user's site access with it.
create table site_access (
  org_id text not null,
  site_id text not null,
  user_id text not null,
  persona text not null,
  granted_by text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, site_id, user_id),
  foreign key (user_id, org_id) references memberships (user_id, org_id) on delete cascade
);
create index site_access_org_user_idx on site_access (org_id, user_id);

-- Row-level security (decision 0009): only the rows of app.org_id for the restricted role.
select enable_org_isolation('site_access');
