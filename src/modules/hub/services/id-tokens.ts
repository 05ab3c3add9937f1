// Id tokens per organisation (decision 0410): what Authorize, StartTransaction and TransactionEvent
// are answered from (ocpp/authorisation.ts). Writes are audited.
import { pageAfter } from '../../../platform/cursor.ts';
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../../platform/schema-kit.ts';
import { hubErrors } from '../errors.ts';
import { type IdTokenFields, type IdTokenRow, hubStore as store } from '../store.ts';
import type { HubDeps } from './shared.ts';

type TokenType = 'Central' | 'eMAID' | 'ISO14443' | 'ISO15693' | 'KeyCode' | 'Local' | 'MacAddress' | 'NoAuthorization';
interface TokenInput {
  type?: TokenType;
  status?: IdTokenRow['status'];
  expires_at?: string | null;
  group_id?: string | null;
  note?: string | null;
}

export function idTokenView(r: IdTokenRow) {
  return {
    id_token: r.id_token,
    type: r.token_type as TokenType,
    status: r.status,
    expires_at: isoTimeOrNull(r.expires_at),
    group_id: r.group_id,
    note: r.note,
    created_at: isoTime(r.created_at),
    updated_at: isoTime(r.updated_at),
  };
}

const when = (s: string | null | undefined) => (s === null || s === undefined ? null : new Date(s));

export function createIdTokenService(deps: HubDeps) {
  const { db, clock, cursors } = deps;
  return {
    async listIdTokens(ctx: RequestContext, query: { limit?: number; cursor?: string }) {
      const limit = query.limit ?? 100;
      const binding = { op: 'listHubIdTokens', orgId: ctx.orgId };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await store.idTokensPage(db, ctx.orgId, paged.after?.id, limit), (r) => ({ t: '', id: r.id_token }));
      return { id_tokens: page.items.map(idTokenView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async createIdToken(ctx: RequestContext, body: TokenInput & { id_token: string }) {
      const f: IdTokenFields = {
        token_type: body.type ?? 'ISO14443',
        status: body.status ?? 'accepted',
        expires_at: when(body.expires_at),
        group_id: body.group_id ?? null,
        note: body.note ?? null,
      };
      return db.tx(async (q) => {
        const row = await store.insertIdToken(q, ctx.orgId, body.id_token, f, clock.now());
        if (!row) throw hubErrors.idTokenExists();
        await deps.audit.record(q, ctx, {
          action: 'hub.id_token.create',
          targetType: 'hub_id_token',
          targetId: row.id_token,
          details: { status: f.status, type: f.token_type },
        });
        return idTokenView(row);
      });
    },

    async getIdToken(ctx: RequestContext, idToken: string) {
      const row = await store.idToken(db, ctx.orgId, idToken);
      if (!row) throw hubErrors.idTokenNotFound();
      return idTokenView(row);
    },

    async updateIdToken(ctx: RequestContext, idToken: string, body: TokenInput) {
      return db.tx(async (q) => {
        const now = await store.idToken(q, ctx.orgId, idToken);
        if (!now) throw hubErrors.idTokenNotFound();
        const f: IdTokenFields = {
          token_type: body.type ?? now.token_type,
          status: body.status ?? now.status,
          expires_at: body.expires_at === undefined ? now.expires_at : when(body.expires_at),
          group_id: body.group_id === undefined ? now.group_id : body.group_id,
          note: body.note === undefined ? now.note : body.note,
        };
        const row = (await store.updateIdToken(q, ctx.orgId, now.id_token, f, clock.now()))!;
        await deps.audit.record(q, ctx, {
          action: 'hub.id_token.update',
          targetType: 'hub_id_token',
          targetId: row.id_token,
          details: { changed: Object.keys(body).sort(), status: f.status },
        });
        return idTokenView(row);
      });
    },

    async deleteIdToken(ctx: RequestContext, idToken: string) {
      await db.tx(async (q) => {
        const row = await store.idToken(q, ctx.orgId, idToken);
        if (!row || !(await store.deleteIdToken(q, ctx.orgId, row.id_token))) throw hubErrors.idTokenNotFound();
        await deps.audit.record(q, ctx, { action: 'hub.id_token.delete', targetType: 'hub_id_token', targetId: row.id_token, details: {} });
      });
    },
  };
}
