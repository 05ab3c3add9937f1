-- Device credentials (decision 0375): a gateway's or device's own credential, bound to one site and
-- optionally some device ids. The secret is never stored: only SHA-256 of it and its last four
-- characters. `id` is the non-secret lookup id embedded in the credential
-- (<prefix>dev_<id>_<secret>) and the device's MQTT username.
create table device_credentials (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  name text not null,
  site_id text not null,
  device_ids text[],
  scopes text[] not null,
  secret_hash bytea not null,
  secret_hint text not null,
  created_at timestamptz not null,
  created_by text,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  -- rotation: the successor's id, when, and until when this credential still works (null = stopped at rotation)
  replaced_by text,
  rotated_at timestamptz,
  overlap_until timestamptz,
  last_used_at timestamptz
);
create index device_credentials_org_idx on device_credentials (org_id, created_at desc, id desc);
select enable_org_isolation('device_credentials');
