// Organisation roles and what each may do (concepts.md section 5, the role table).

export const ROLES = ['ORG_ADMIN', 'OPERATOR', 'ANALYST', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const ANY_ROLE: readonly Role[] = ROLES;
/** Read: every role. */
export const CAN_READ: readonly Role[] = ROLES;
/** Ingest telemetry: everyone but VIEWER. */
export const CAN_INGEST: readonly Role[] = ['ORG_ADMIN', 'OPERATOR', 'ANALYST'];
/** Write configuration: ORG_ADMIN and OPERATOR. */
export const CAN_CONFIGURE: readonly Role[] = ['ORG_ADMIN', 'OPERATOR'];
/** Administration (API keys, webhooks, SSO, invitations, audit): ORG_ADMIN only. */
export const ADMIN_ONLY: readonly Role[] = ['ORG_ADMIN'];

/**
 * An API key scope. Modules declare the scopes their operations require (ModuleDefinition.scopes);
 * the platform knows none by name. A scope whose name ends in `:read` is a read scope: an operation
 * declared with scope 'read' admits a key holding any of them.
 */
export type Scope = string;

export function isReadScope(scope: string): boolean {
  return scope.endsWith(':read');
}

/**
 * A device credential scope (decision 0375). The device-credentials module declares which exist
 * (DEVICE_SCOPES there); an operation admits device credentials only when it names one
 * (Access.device), and every other operation refuses them.
 */
export type DeviceScope = string;

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}
