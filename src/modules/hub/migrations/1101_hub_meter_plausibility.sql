-- Plausibility of charger meter data (decision 0275): a register sample judged implausible is kept
-- with its reason and never billed (flag null: accepted); each transaction counts its refused and
-- flagged samples by reason, for the operator ({reason: {samples, first_received_at, last_received_at}}).
alter table hub_meter_samples add column flag text;
alter table hub_transactions add column meter_anomalies jsonb not null default '{}'::jsonb;
