-- In-app notifications of one user in one organisation, and each user's preferences (which kinds,
-- which channels, quiet hours) that alert routing honours (docs/notifications.md, decision 0134).
create table notifications (
  seq bigint generated always as identity,
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  user_id text not null,
  kind text not null,
  title text not null,
  body text not null default '',
  link text,
  data jsonb not null default '{}',
  created_at timestamptz not null,
  read_at timestamptz
);
create index notifications_user_idx on notifications (org_id, user_id, created_at desc, seq desc);
create index notifications_unread_idx on notifications (org_id, user_id) where read_at is null;
select enable_org_isolation('notifications');

create table notification_preferences (
  org_id text not null references organisations(id) on delete cascade,
  user_id text not null,
  kinds jsonb not null,
  channels jsonb not null,
  quiet_hours jsonb,
  updated_at timestamptz not null,
  primary key (org_id, user_id)
);
select enable_org_isolation('notification_preferences');
