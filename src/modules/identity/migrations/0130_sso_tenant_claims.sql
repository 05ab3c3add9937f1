-- A provider tenant (tid) is no longer taken by the first organisation to name it (decision 0029):
-- any organisation may claim it, and the claim counts once verified, by one completed sign-in
-- from the tenant or by a platform administrator. One verified claim per tenant.
alter table sso_providers add column verified_at timestamptz;
alter table sso_providers add column verified_by text;
-- Configurations made under the first-come rule were unique per tenant: they stay in force.
update sso_providers set verified_at = updated_at, verified_by = 'migration';
drop index sso_providers_tid_key;
create unique index sso_providers_verified_tid_key on sso_providers (tid) where verified_at is not null;
create index sso_providers_tid_idx on sso_providers (tid);
