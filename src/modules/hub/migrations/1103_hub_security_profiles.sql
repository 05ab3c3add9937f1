-- OCPP security profiles 2 and 3 and password rotation (issue 39 item 3, decisions 0430-0432).
-- Each charge point records the profile it must connect at: 1 (HTTP Basic, plain or TLS),
-- 2 (TLS and HTTP Basic), 3 (TLS with a client certificate issued by the organisation's CA).
alter table hub_charge_points add column security_profile int not null default 1 check (security_profile in (1, 2, 3));
-- A password sent to the charger (ChangeConfiguration AuthorizationKey / SetVariables
-- BasicAuthPassword) and not yet confirmed: valid beside the current one until the charger accepts
-- it (or first connects with it), then the only one.
alter table hub_charge_points add column pending_password_hash text;

-- The certificate authorities that issue the organisation's charger certificates (profile 3): the
-- PEM of each CA certificate, never a key.
create table hub_charger_cas (
  org_id text not null,
  fingerprint_sha256 text not null,
  certificate_pem text not null,
  subject text not null,
  not_before timestamptz not null,
  not_after timestamptz not null,
  created_at timestamptz not null,
  primary key (org_id, fingerprint_sha256)
);
select enable_org_isolation('hub_charger_cas');
