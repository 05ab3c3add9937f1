// The catalogue of recorded audit actions. A module that records a new action adds it here with
// one line saying what it means; actions found in an organisation's log but missing here are still
// listed by the catalogue operation (without a description).
export interface AuditActionInfo {
  action: string;
  description: string;
}

export const AUDIT_ACTIONS: readonly AuditActionInfo[] = [
  { action: 'auth.login', description: 'A user signed in with email and password.' },
  { action: 'auth.login.failed', description: 'A sign-in was refused: wrong password or unknown account.' },
  { action: 'auth.lockout', description: 'An account was locked for 15 minutes after 5 consecutive failed sign-ins.' },
  { action: 'auth.logout', description: 'A session was ended by logout; its tokens stopped working.' },
  {
    action: 'auth.token.reuse',
    description: 'An already used refresh token was presented again; every token of that sign-in was revoked.',
  },
  { action: 'auth.sso.login', description: 'A user signed in through the identity provider (single sign-on).' },
  { action: 'auth.sso.refused', description: 'A single sign-on token for this organisation was refused (the reason is recorded).' },
  { action: 'auth.sso.provider.update', description: 'The identity provider configuration was set or changed.' },
  {
    action: 'auth.sso.provider.verify',
    description: "The organisation's claim on its identity provider tenant was verified (a completed sign-in, or a platform administrator).",
  },
  {
    action: 'auth.sso.provider.release',
    description: "A platform administrator gave the organisation's identity provider tenant to another organisation; this claim is pending again.",
  },
  { action: 'auth.sso.mapping.create', description: 'A group-to-role mapping was added.' },
  { action: 'auth.sso.mapping.delete', description: 'A group-to-role mapping was removed.' },
  { action: 'auth.invitation.create', description: 'An email was invited to join the organisation with a role.' },
  { action: 'auth.invitation.revoke', description: 'A pending invitation was revoked.' },
  { action: 'auth.invitation.accept', description: 'An invitation was accepted: the invitee joined and signed in.' },
  { action: 'access.membership.set', description: "A user's persona at a site was granted or changed." },
  { action: 'access.membership.remove', description: "A user's access to a site was removed." },
  { action: 'audit.export', description: 'The audit log was exported as CSV.' },
  { action: 'twin.asset.create', description: 'An asset was registered (twin or registry).' },
  { action: 'twin.asset.update', description: 'An asset was edited, moved to another site or re-linked to another parent.' },
  { action: 'twin.asset.delete', description: 'An asset was removed from the registry (its telemetry is kept).' },
  { action: 'twin.asset.import', description: 'Reporting devices without a record were registered at a site.' },
  { action: 'source_priority.update', description: "An asset's source priority was set or reset." },
  { action: 'commissioning.run', description: 'Commissioning checks were run for a site and the run stored.' },
  { action: 'connect.template.create', description: 'An organisation site template was added.' },
  { action: 'connect.onboarding.start', description: 'A site was created from a template and its device mapping proposed (the onboarding clock started).' },
  { action: 'connect.onboarding.confirm', description: "A site's device mapping was confirmed (the onboarding clock stopped; edits and elapsed time recorded)." },
  { action: 'connect.ha.mapping.confirm', description: "A site's home-automation connector mapping was confirmed or edited." },
  { action: 'connect.ha.mapping.withdraw', description: "A site's home-automation connector mapping was withdrawn." },
  { action: 'apikey.create', description: 'An API key was issued (its secret is never recorded).' },
  { action: 'apikey.rotate', description: 'An API key was rotated: a successor issued, the predecessor stopped (or given a bounded overlap).' },
  { action: 'apikey.revoke', description: 'An API key was revoked.' },
  { action: 'webhook.create', description: 'A webhook endpoint was registered.' },
  { action: 'webhook.update', description: 'A webhook endpoint was changed, disabled or re-enabled (changed fields recorded).' },
  { action: 'webhook.delete', description: 'A webhook endpoint was deleted.' },
  { action: 'webhook.rotate_secret', description: "A webhook endpoint's signing secret was rotated." },
  { action: 'webhook.disable', description: 'A webhook endpoint was disabled by the service after 72 hours of failed deliveries.' },
  { action: 'webhook.test', description: 'A test event was queued to a webhook endpoint.' },
  { action: 'webhook.replay', description: 'A stored webhook event was queued again to an endpoint.' },
  { action: 'webhook.sandbox_test', description: 'A sample event was queued to the sandbox endpoints with an API key.' },
  { action: 'settlement.receipt.issue', description: 'A settlement receipt was signed and appended to the organisation’s chain.' },
  { action: 'settlement.receipt.share', description: 'A settlement receipt was published by its hash for counterparty verification.' },
  { action: 'settlement.receipt.unshare', description: 'A published settlement receipt was withdrawn from counterparty verification.' },
];
