// The weighted pipeline forecast: open deals' value by close month and currency, each weighted by
// its stage's probability, in exact decimals.
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import { DEFAULT_STAGES, stagesOf } from './settings.ts';
import { crmStore } from './store.ts';
import { penceOf, poundsText, roundDiv } from '../../kit/decimal.ts';

interface StageFigures {
  stage: string;
  probability: number;
  deals: number;
  value: string;
  weighted: string;
}

// Exact decimals (src/kit/decimal.ts): pence as BigInt, weighted = value x probability / 100
// rounded half away from zero to the penny.
const weigh = (p: bigint, pct: number) => roundDiv(p * BigInt(pct), 100n);

export function createForecast(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return {
    async forecast(ctx: RequestContext) {
      const settings = await crmStore.getSettings(db, ctx.orgId);
      const stages = stagesOf(settings ?? { stages: DEFAULT_STAGES }).filter((s) => !s.final);
      const prob = new Map(stages.map((s) => [s.name, s.probability]));
      const rows = await crmStore.pipeline(
        db,
        ctx.orgId,
        stages.map((s) => s.name),
      );
      const byKey = new Map<string, { currency: string; month: string; deals: number; value: bigint; weighted: bigint; stages: StageFigures[] }>();
      const totals = new Map<string, { value: bigint; weighted: bigint; deals: number }>();
      for (const r of rows) {
        const key = `${r.currency}|${r.month}`;
        const value = penceOf(r.total);
        const weighted = weigh(value, prob.get(r.stage) ?? 0);
        const m = byKey.get(key) ?? { currency: r.currency, month: r.month, deals: 0, value: 0n, weighted: 0n, stages: [] as StageFigures[] };
        m.deals += r.n;
        m.value += value;
        m.weighted += weighted;
        m.stages.push({ stage: r.stage, probability: prob.get(r.stage) ?? 0, deals: r.n, value: poundsText(value), weighted: poundsText(weighted) });
        byKey.set(key, m);
        const t = totals.get(r.currency) ?? { value: 0n, weighted: 0n, deals: 0 };
        t.value += value;
        t.weighted += weighted;
        t.deals += r.n;
        totals.set(r.currency, t);
      }
      return {
        as_of: isoTime(clock.now()),
        months: [...byKey.values()].map((m) => ({
          month: m.month,
          currency: m.currency,
          deals: m.deals,
          value: poundsText(m.value),
          weighted: poundsText(m.weighted),
          stages: m.stages,
        })),
        totals: [...totals.entries()].map(([currency, t]) => ({ currency, deals: t.deals, value: poundsText(t.value), weighted: poundsText(t.weighted) })),
      };
    },
  };
}

export type Forecast = ReturnType<typeof createForecast>;
