-- Public charging hub (issue 18): sites, OCPP charge points, connector status history (for PCPR
-- 2023 reliability), price schedule versions, transactions and their energy register samples.

create table hub_sites (
  org_id text not null,
  site_id text not null,
  name text not null,
  address text,
  postcode text,
  capacity_kw numeric,
  helpline_phone text,
  helpline_24_7 boolean,
  open_data_url text,
  payment_roaming boolean,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (org_id, site_id)
);
select enable_org_isolation('hub_sites');

create table hub_charge_points (
  org_id text not null,
  charge_point_id text not null,
  site_id text not null,
  asset_id text not null,
  password_hash text not null,
  max_power_kw numeric not null,
  connectors int not null,
  contactless boolean,
  ocpp_version text,
  vendor text,
  model text,
  firmware text,
  serial_number text,
  last_boot_at timestamptz,
  last_heartbeat_at timestamptz,
  connected_instance text,
  connected_at timestamptz,
  created_at timestamptz not null,
  primary key (org_id, charge_point_id),
  foreign key (org_id, site_id) references hub_sites (org_id, site_id)
);
create index hub_charge_points_site on hub_charge_points (org_id, site_id);
select enable_org_isolation('hub_charge_points');

-- Every status a connector reported (connector 0 = the whole charge point), and 'Offline' rows the
-- hub writes when the charger's connection ends (OCPI UNKNOWN: excluded from reliability).
create table hub_connector_status (
  seq bigserial primary key,
  org_id text not null,
  charge_point_id text not null,
  connector_id int not null,
  status text not null,
  ocpi_status text not null,
  error_code text,
  ts timestamptz not null,
  received_at timestamptz not null
);
create index hub_connector_status_cp on hub_connector_status (org_id, charge_point_id, connector_id, ts);
select enable_org_isolation('hub_connector_status');

create table hub_price_schedules (
  org_id text not null,
  site_id text not null,
  version int not null,
  status text not null check (status in ('draft', 'published')),
  energy_p_per_kwh numeric not null,
  time_p_per_minute numeric not null,
  connection_fee_p numeric not null,
  overstay_p_per_minute numeric not null,
  overstay_grace_minutes int not null,
  vat_percent numeric not null,
  bands jsonb not null,
  note text,
  created_at timestamptz not null,
  published_at timestamptz,
  primary key (org_id, site_id, version),
  foreign key (org_id, site_id) references hub_sites (org_id, site_id)
);
select enable_org_isolation('hub_price_schedules');

-- OCPP 1.6 transaction ids are integers the central system hands out: one sequence for the service.
create sequence hub_ocpp_transaction_seq;

create table hub_transactions (
  org_id text not null,
  transaction_id text not null,
  site_id text not null,
  charge_point_id text not null,
  connector_id int not null,
  ocpp_transaction_id text not null,
  ocpp_version text not null,
  id_tag text,
  started_at timestamptz not null,
  stopped_at timestamptz,
  meter_start_wh bigint not null,
  -- false when the start event carried no register reading: the first sample then sets meter_start_wh
  meter_start_known boolean not null,
  meter_stop_wh bigint,
  last_meter_wh bigint,
  last_meter_at timestamptz,
  energy_last_increase_at timestamptz,
  stop_reason text,
  schedule_version int,
  created_at timestamptz not null,
  primary key (org_id, transaction_id),
  unique (org_id, charge_point_id, ocpp_transaction_id)
);
create index hub_transactions_site on hub_transactions (org_id, site_id, started_at desc, transaction_id desc);
select enable_org_isolation('hub_transactions');

-- Energy.Active.Import.Register samples of a transaction (Wh), for costing under time-of-day bands.
create table hub_meter_samples (
  org_id text not null,
  transaction_id text not null,
  ts timestamptz not null,
  wh bigint not null,
  primary key (org_id, transaction_id, ts)
);
select enable_org_isolation('hub_meter_samples');
