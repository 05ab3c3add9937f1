// The live stream's settings (read with the rest at start; docs/configuration.md, decision 0290).
import type { ConfigSection } from '../../core/config-section.ts';

export interface LiveConfig {
  /** Open streams one user may hold on an instance; more are refused 429. */
  streamsPerUser: number;
  /** Open streams one organisation's users may hold on an instance; more are refused 429. */
  streamsPerOrganisation: number;
  /** How often every open stream's session is checked again (membership, role, expiry). */
  sessionCheckSeconds: number;
}

export const liveConfig: ConfigSection<LiveConfig> = {
  name: 'livestream',
  read: (r) => ({
    streamsPerUser: r.int('LIVE_STREAMS_PER_USER', 5, 1, 1000),
    streamsPerOrganisation: r.int('LIVE_STREAMS_PER_ORGANISATION', 100, 1, 100_000),
    sessionCheckSeconds: r.int('LIVE_SESSION_CHECK_SECONDS', 30, 5, 3600),
  }),
};
