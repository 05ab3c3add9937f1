// The console's refresh token in an HttpOnly cookie (decision 0365), through HTTP: opted into with
// `X-Refresh-Cookie: 1` on sign-in, refresh and sign-out; rotated like a body token, reuse refused
// (the whole sign-in ended) with the cookie cleared; a body token always wins; never read without
// the header (a cross-site form or link cannot send it); API clients without the header see no change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { json, type TestService } from '../helpers/service.ts';
import { bearer, claims, PASSWORD, startService } from './support.ts';
import { assertRefused } from '../helpers/refusal.ts';

let svc: TestService;
const EMAIL = 'op@cookie.example';
const OPT_IN = { 'x-refresh-cookie': '1' };
const NAME = '__Secure-ep_refresh';

before(async () => {
  svc = await startService();
  await svc.createOrg('cookie-org');
  await svc.createUser('cookie-org', EMAIL, 'OPERATOR');
});
after(async () => {
  await svc.stop();
});

/** The one Set-Cookie of an answer, split into its value and its attributes; null when none. */
function cookieOf(res: LightMyRequestResponse): { value: string; attrs: string[] } | null {
  const raw = res.headers['set-cookie'];
  if (raw === undefined) return null;
  const list = Array.isArray(raw) ? raw : [raw];
  assert.equal(list.length, 1, 'one Set-Cookie');
  const [pair, ...attrs] = list[0].split(';').map((s) => s.trim());
  const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
  assert.equal(name, NAME);
  return { value, attrs };
}
const login = (headers: Record<string, string> = {}) =>
  svc.request({ method: 'POST', url: '/api/auth/login', headers, payload: { email: EMAIL, password: PASSWORD } });
const refresh = (payload: unknown, headers: Record<string, string> = {}) =>
  svc.request({ method: 'POST', url: '/api/auth/token/refresh', headers, payload: payload as Record<string, unknown> });
const withCookie = (token: string, headers: Record<string, string> = OPT_IN) => ({ ...headers, cookie: `other=1; ${NAME}=${token}` });
const me = (token: string) => svc.request({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

async function cookieSignIn() {
  const res = await login(OPT_IN);
  assert.equal(res.statusCode, 200, res.body);
  const c = cookieOf(res);
  assert.ok(c);
  return { body: json(res), cookie: c.value };
}

test('sign-in with X-Refresh-Cookie: 1 puts the refresh token in an HttpOnly, Secure, SameSite=Strict cookie on /api/auth; without it nothing changes', async () => {
  const plain = await login();
  assert.equal(plain.statusCode, 200);
  assert.equal(plain.headers['set-cookie'], undefined, 'no cookie without the header');
  assert.ok(json(plain).refresh_token.length > 20);

  const res = await login(OPT_IN);
  assert.equal(res.statusCode, 200);
  const body = json(res);
  assert.equal(body.refresh_token, '', 'the body carries no refresh token');
  assert.ok(body.access_token.length > 20);
  assert.equal(body.refresh_expires_in, 604800);
  const c = cookieOf(res)!;
  assert.deepEqual(c.attrs, ['Max-Age=604800', 'HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/auth']);
  assert.equal(claims(c.value).sid, claims(body.access_token).sid, 'the cookie holds this sign-in’s refresh token');
});

test('refresh by cookie rotates it; the used one presented again is refused, the cookie cleared and the whole sign-in ended', async () => {
  const first = await cookieSignIn();
  const res = await refresh({}, withCookie(first.cookie));
  assert.equal(res.statusCode, 200, res.body);
  const second = json(res);
  assert.equal(second.refresh_token, '');
  assert.deepEqual(second.roles, ['OPERATOR']);
  const rotated = cookieOf(res)!;
  assert.notEqual(rotated.value, first.cookie);
  assert.deepEqual(rotated.attrs, ['Max-Age=604800', 'HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/auth']);
  assert.equal((await me(second.access_token)).statusCode, 200);

  // The used cookie again (a stolen copy): refused, cleared, and every token of the sign-in dead.
  const reused = await refresh({}, withCookie(first.cookie));
  assertRefused(reused, 401, 'Invalid or expired refresh token');
  assert.deepEqual(cookieOf(reused), { value: '', attrs: ['Max-Age=0', 'HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/auth'] });
  assertRefused(await refresh({}, withCookie(rotated.value)), 401, 'Invalid or expired refresh token');
  assertRefused(await me(second.access_token), 401, 'Invalid or expired token');
  // Garbage in the cookie is refused the same way, and cleared.
  const junk = await refresh({}, withCookie('not.a.token'));
  assertRefused(junk, 401, 'Invalid or expired refresh token');
  assert.equal(cookieOf(junk)?.value, '');
});

test('CSRF: without the header the cookie is never read (the spec’s 422) and stays usable; a form post is refused 415', async () => {
  const s = await cookieSignIn();
  const before = await refresh({});
  const noHeader = await refresh({}, withCookie(s.cookie, {}));
  assert.equal(noHeader.statusCode, 422);
  assert.deepEqual(json(noHeader), json(before), 'the same 422 as with no cookie at all');
  assert.deepEqual(json(noHeader), { detail: [{ type: 'missing', loc: ['body', 'refresh_token'], msg: 'Field required', input: '[redacted]' }] });
  assert.equal(noHeader.headers['set-cookie'], undefined);
  const otherValue = await refresh({}, withCookie(s.cookie, { 'x-refresh-cookie': 'true' }));
  assert.equal(otherValue.statusCode, 422, 'only the value 1 opts in');
  // A cross-site form can send neither the header nor JSON.
  const form = await svc.request({
    method: 'POST',
    url: '/api/auth/token/refresh',
    headers: { ...withCookie(s.cookie, {}), 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  assert.equal(form.statusCode, 415);
  // The header with no cookie: the same 422.
  assert.deepEqual(json(await refresh({}, OPT_IN)), json(before));
  // None of that used the cookie up.
  assert.equal((await refresh({}, withCookie(s.cookie))).statusCode, 200);
});

test('a refresh token in the body wins over the cookie (API clients untouched), and bad body input is still 422', async () => {
  const s = await cookieSignIn();
  const api = json(await login());
  const res = await refresh({ refresh_token: api.refresh_token }, withCookie(s.cookie));
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['set-cookie'], undefined, 'the cookie is neither set nor cleared');
  const body = json(res);
  assert.ok(body.refresh_token.length > 20, 'the body carries the rotated token');
  assert.equal(claims(body.access_token).sid, claims(api.access_token).sid, 'the body token’s sign-in, not the cookie’s');
  // The cookie's sign-in was not touched.
  assert.equal((await refresh({}, withCookie(s.cookie))).statusCode, 200);
  const empty = await refresh({ refresh_token: '' }, withCookie(s.cookie));
  assert.equal(empty.statusCode, 422);
  assert.equal(json(empty).detail[0].type, 'string_too_short');
  assert.equal((await refresh({ refresh_token: 'x', extra: 1 }, OPT_IN)).statusCode, 422);
});

test('sign-out by cookie ends the sign-in and clears the cookie; without the header the body token is needed as before', async () => {
  const s = await cookieSignIn();
  const out = await svc.request({ method: 'POST', url: '/api/auth/logout', headers: { ...bearer(s.body.access_token), ...withCookie(s.cookie) }, payload: {} });
  assert.equal(out.statusCode, 200, out.body);
  assert.equal(json(out).status, 'ok');
  assert.deepEqual(cookieOf(out), { value: '', attrs: ['Max-Age=0', 'HttpOnly', 'Secure', 'SameSite=Strict', 'Path=/api/auth'] });
  assertRefused(await me(s.body.access_token), 401, 'Invalid or expired token');
  assertRefused(await refresh({}, withCookie(s.cookie)), 401, 'Invalid or expired refresh token');

  const t = await cookieSignIn();
  const noHeader = await svc.request({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { ...bearer(t.body.access_token), ...withCookie(t.cookie, {}) },
    payload: {},
  });
  assert.equal(noHeader.statusCode, 422);
  assert.equal(noHeader.headers['set-cookie'], undefined);
  // Someone else's cookie: refused like someone else's body token, and cleared.
  const other = await cookieSignIn();
  const foreign = await svc.request({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { ...bearer(json(await login()).access_token), ...withCookie(other.cookie) },
    payload: {},
  });
  assert.equal(foreign.statusCode, 200, 'the same user’s other sign-in is theirs to end');
  assert.equal(cookieOf(foreign)?.value, '');
  assertRefused(await refresh({}, withCookie(other.cookie)), 401, 'Invalid or expired refresh token');
});

test('the OpenAPI document still shows refresh_token as required, and names the header', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  for (const path of ['/api/auth/token/refresh', '/api/auth/logout']) {
    const op = doc.paths[path].post;
    const schema = op.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    assert.deepEqual(resolved.required, ['refresh_token'], path);
    assert.match(op.description, /X-Refresh-Cookie: 1/);
  }
  assert.match(doc.paths['/api/auth/login'].post.description, /__Secure-ep_refresh/);
});
