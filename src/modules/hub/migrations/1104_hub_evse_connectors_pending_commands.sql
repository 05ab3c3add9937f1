-- OCPP 2.0.1 reports status per EVSE and connector; the hub counts EVSEs as its connectors. An EVSE
-- with several connectors (a CCS and a CHAdeMO cable on one outlet, say) reports each of them, and
-- while one is in use the others say Unavailable: the EVSE's status is their aggregate (decision
-- 0436), computed from the newest status of each of its connectors, kept here.
create table hub_evse_connectors (
  org_id text not null,
  charge_point_id text not null,
  evse_id int not null,
  connector_id int not null,
  status text not null,
  ts timestamptz not null,
  primary key (org_id, charge_point_id, evse_id, connector_id)
);
select enable_org_isolation('hub_evse_connectors');

-- Commands still pending long after their answer was due (decision 0437): the maintenance step
-- finds them through this partial index (a handful at most, whatever the history's size).
create index hub_commands_pending on hub_commands (created_at) where status = 'pending';
