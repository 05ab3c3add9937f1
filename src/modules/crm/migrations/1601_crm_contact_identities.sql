-- Every name, e-mail address and phone number a contact has held, as written (decision 0295):
-- erasure matches the earlier values too, then deletes these rows with the contact's data.
create table crm_contact_identities (
  org_id text not null references organisations(id) on delete cascade,
  contact_id text not null references crm_contacts(id) on delete cascade,
  kind text not null check (kind in ('name', 'email', 'phone')),
  value text not null,
  recorded_at timestamptz not null,
  primary key (org_id, contact_id, kind, value)
);
select enable_org_isolation('crm_contact_identities');
