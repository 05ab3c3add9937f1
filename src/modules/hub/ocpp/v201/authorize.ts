// 2.0.1 Authorize: the id token is answered from the organisation's id tokens, or Accepted where
// the site is free vend (authorisation.ts, decision 0410).
import { idTokenInfo201 } from '../authorisation.ts';
import type { Handler } from '../context.ts';
import type { AuthorizeRequest, AuthorizeResponse } from '../generated/v201.ts';

export const authorize: Handler<AuthorizeRequest, AuthorizeResponse> = async (ctx, params) => ({
  idTokenInfo: idTokenInfo201(await ctx.auth.check(ctx.session, params.idToken.idToken)),
});
