-- The realm is an attribute of the organisation, set when it is made: `demo` (simulated devices;
-- demo-realm operations act only here) or `production`. The spec names demo organisations `demo-*`,
-- so the id and the realm must agree.
alter table organisations add column realm text not null default 'production';
update organisations set realm = 'demo' where id like 'demo-%';
alter table organisations add constraint organisations_realm_check
  check (realm in ('production', 'demo') and ((realm = 'demo') = (id like 'demo-%')));
