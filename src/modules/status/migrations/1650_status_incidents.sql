-- Platform incidents (decision 0224): platform-wide, not organisation data, so no org_id and no
-- row-level isolation. Members of every organisation read them; platform administrators write.
create table status_incidents (
  id text primary key,
  -- Insertion order: the tie-break between incidents opened in the same instant.
  n bigint generated always as identity,
  title text not null,
  impact text not null,
  affected_components text[] not null,
  state text not null,
  started_at timestamptz not null,
  resolved_at timestamptz,
  updated_at timestamptz not null,
  created_by text not null
);
create index status_incidents_started on status_incidents (started_at desc, n desc);

create table status_incident_updates (
  id text primary key,
  incident_id text not null references status_incidents (id),
  seq integer not null,
  state text not null,
  impact text not null,
  message text not null,
  created_at timestamptz not null,
  created_by text not null,
  unique (incident_id, seq)
);
