// 1.6 Authorize: the id tag is answered from the organisation's id tokens, or Accepted where the
// site is free vend (authorisation.ts, decision 0410).
import { idTagInfo16 } from '../authorisation.ts';
import type { Handler } from '../context.ts';
import type { AuthorizeRequest, AuthorizeResponse } from '../generated/v16.ts';

export const authorize: Handler<AuthorizeRequest, AuthorizeResponse> = async (ctx, params) => ({
  idTagInfo: idTagInfo16(await ctx.auth.check(ctx.session, params.idTag)),
});
