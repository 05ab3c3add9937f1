// The hub's rules behind its REST operations, one named service per area (services/):
// sites.ts (sites, charge point registration, password shown once), pricing.ts (price schedule
// versions, draft -> published and never edited after; quotes), sessions.ts (transactions and their
// cost), evidence.ts (reliability from connector status history, PCPR 2023 compliance),
// load-sharing.ts. shared.ts holds their dependencies and the views of stored rows.
import { createCommandService } from './services/commands.ts';
import { createIdTokenService } from './services/id-tokens.ts';
import { createEvidenceService } from './services/evidence.ts';
import { createLoadSharingService } from './services/load-sharing.ts';
import { createPricingService } from './services/pricing.ts';
import { createSessionService } from './services/sessions.ts';
import type { HubDeps } from './services/shared.ts';
import { createSecurityService } from './services/security.ts';
import { createSiteService } from './services/sites.ts';

export { LOAD_SHARING_METHOD, toSchedule } from './services/shared.ts';

export function createHubService(deps: HubDeps) {
  return {
    ...createSiteService(deps),
    ...createPricingService(deps),
    ...createSessionService(deps),
    ...createEvidenceService(deps),
    ...createLoadSharingService(deps),
    ...createIdTokenService(deps),
    ...createCommandService(deps),
    ...createSecurityService(deps),
  };
}

export type HubService = ReturnType<typeof createHubService>;
