-- Field operations (docs/field.md, decisions 0160-0161): SLA policies per priority, work orders with
-- their stored SLA clocks, and each work order's history, notes and attachment metadata.
create table field_sla_policies (
  org_id text not null references organisations(id) on delete cascade,
  priority text not null,
  policy jsonb not null,
  updated_at timestamptz not null,
  updated_by text,
  primary key (org_id, priority)
);
select enable_org_isolation('field_sla_policies');

create table field_work_orders (
  id text primary key,
  org_id text not null references organisations(id) on delete cascade,
  site_id text,
  asset_id text,
  priority text not null,
  kind text not null,
  description text not null,
  status text not null,
  assignee_id text,
  scheduled_for timestamptz,
  source_type text not null,
  source_id text,
  -- The policy in force for the work order: its priority's, taken at creation and at each priority change.
  sla_policy jsonb not null,
  -- The status timeline the clocks are computed from: [{at, status}], oldest first.
  timeline jsonb not null,
  -- Stored clocks as of sla_computed_at (the last status or priority change).
  sla_computed_at timestamptz not null,
  response_elapsed_ms bigint not null,
  response_running boolean not null,
  response_due_at timestamptz,
  response_risk_at timestamptz,
  response_stopped_at timestamptz,
  response_cancelled boolean not null default false,
  resolution_elapsed_ms bigint not null,
  resolution_running boolean not null,
  resolution_due_at timestamptz,
  resolution_risk_at timestamptz,
  resolution_stopped_at timestamptz,
  resolution_cancelled boolean not null default false,
  created_by text,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index field_work_orders_list_idx on field_work_orders (org_id, created_at desc, id desc);
create index field_work_orders_due_idx on field_work_orders (org_id, status);
-- One work order per organisation alert; one open work order per stale device feed.
create unique index field_work_orders_alert_uq on field_work_orders (org_id, source_id) where source_type = 'alert';
create unique index field_work_orders_feed_uq on field_work_orders (org_id, source_id)
  where source_type = 'stale_feed' and status in ('new', 'assigned', 'scheduled', 'in_progress', 'on_hold');
select enable_org_isolation('field_work_orders');

create table field_work_order_events (
  seq bigint generated always as identity primary key,
  id text not null unique,
  org_id text not null references organisations(id) on delete cascade,
  work_order_id text not null references field_work_orders(id) on delete cascade,
  type text not null,
  at timestamptz not null,
  actor_id text,
  data jsonb not null default '{}'
);
create index field_work_order_events_idx on field_work_order_events (org_id, work_order_id, seq);
select enable_org_isolation('field_work_order_events');
