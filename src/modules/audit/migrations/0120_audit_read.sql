-- Audit log reads: filter by actor within an organisation, newest first.
create index audit_log_org_actor_idx on audit_log (org_id, actor_id, created_at desc, id desc);
