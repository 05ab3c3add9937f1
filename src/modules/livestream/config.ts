// The live stream's settings (read with the rest at start; docs/configuration.md, decision 0290).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const liveConfig = configSection('livestream', (r) => ({
  /** Open streams one user may hold on an instance; more are refused 429. */
  streamsPerUser: r.int('LIVE_STREAMS_PER_USER', 5, 1, 1000),
  /** Open streams one organisation's users may hold on an instance; more are refused 429. */
  streamsPerOrganisation: r.int('LIVE_STREAMS_PER_ORGANISATION', 100, 1, 100_000),
  /** How often every open stream's session is checked again (membership, role, expiry). */
  sessionCheckSeconds: r.int('LIVE_SESSION_CHECK_SECONDS', 30, 5, 3600),
}));

export type LiveConfig = SettingsOf<typeof liveConfig>;
