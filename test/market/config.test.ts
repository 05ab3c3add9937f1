// Configuration of the market-data providers, the flexibility platforms and the receipt key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { loadConfig, ConfigError, sectionOf } from '../../src/config.ts';
import type { Config } from '../../src/core/config.ts';
import { marketConfig } from '../../src/modules/market/config.ts';
import { flexConfig } from '../../src/modules/flex/config.ts';
import { esgConfig } from '../../src/modules/esg/config.ts';

const market = (c: Config) => sectionOf(c, marketConfig);
const flex = (c: Config) => sectionOf(c, flexConfig);
const esg = (c: Config) => sectionOf(c, esgConfig);

test('provider settings: defaults', () => {
  const c = loadConfig({});
  assert.equal(market(c).tariffBaseUrl, 'https://api.octopus.energy');
  assert.equal(market(c).carbonBaseUrl, 'https://api.carbonintensity.org.uk');
  assert.equal(market(c).tariffProductCode, 'AGILE-24-10-01');
  assert.equal(c.upstreams.retries, 2);
  assert.equal(market(c).tariffCacheTtlSeconds, 86_400);
  assert.equal(market(c).tariffUnpublishedTtlSeconds, 300);
  assert.equal(market(c).carbonCacheTtlSeconds, 300);
  assert.equal(flex(c).cacheTtlSeconds, 60);
  assert.deepEqual(
    flex(c).operators.map((o) => [o.slot, o.id, o.baseUrl, o.requiresTenderPlatformId]),
    [
      ['A', 'dno-a', undefined, false],
      ['B', 'dno-b', undefined, true],
    ],
  );
  assert.equal(esg(c).signingKeyPem, undefined);
});

test('provider settings: a bad variable fails at start with a message naming it', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const cases: [Record<string, string>, RegExp][] = [
    [{ UPSTREAM_RETRIES: '9' }, /UPSTREAM_RETRIES/],
    [{ UPSTREAM_RETRY_BASE_MS: 'soon' }, /UPSTREAM_RETRY_BASE_MS/],
    [{ TARIFF_PRODUCT_CODE: 'agile 24' }, /TARIFF_PRODUCT_CODE/],
    [{ TARIFF_CACHE_TTL_SECONDS: '-1' }, /TARIFF_CACHE_TTL_SECONDS/],
    [{ CARBON_CACHE_TTL_SECONDS: '3600' }, /CARBON_CACHE_TTL_SECONDS/],
    [{ FLEX_CACHE_TTL_SECONDS: 'x' }, /FLEX_CACHE_TTL_SECONDS/],
    [{ FLEX_DNO_A_ID: 'Bad Id' }, /FLEX_DNO_A_ID/],
    [{ FLEX_DNO_A_ID: 'same', FLEX_DNO_B_ID: 'same' }, /FLEX_DNO_A_ID and FLEX_DNO_B_ID/],
    [{ FLEX_DNO_B_BASE_URL: 'ftp://flex.example' }, /FLEX_DNO_B_BASE_URL/],
    [{ FLEX_DNO_A_CLIENT_ID: 'machine' }, /FLEX_DNO_A_CLIENT_ID and FLEX_DNO_A_API_KEY/],
    [{ FLEX_DNO_B_API_KEY: 'secret' }, /FLEX_DNO_B_CLIENT_ID and FLEX_DNO_B_API_KEY/],
    [{ ESG_SIGNING_KEY: 'not-a-key' }, /ESG_SIGNING_KEY/],
    [{ ESG_SIGNING_KEY: Buffer.alloc(16).toString('base64') }, /ESG_SIGNING_KEY/],
    [{ ESG_SIGNING_KEY: rsa }, /ESG_SIGNING_KEY/],
    [{ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), FLEX_DNO_A_BASE_URL: 'http://flex.example' }, /FLEX_DNO_A_BASE_URL must use https/],
  ];
  for (const [env, re] of cases) {
    assert.throws(
      () => loadConfig(env),
      (e: Error) => e instanceof ConfigError && re.test(e.message),
      JSON.stringify(env).slice(0, 80),
    );
  }
});

test('provider settings: the receipt key is accepted as a base64 seed or PKCS8 PEM (also with escaped newlines)', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
  for (const v of [pem, seed, pem.replace(/\n/g, '\\n')]) assert.equal(esg(loadConfig({ ESG_SIGNING_KEY: v })).signingKeyPem, pem);
  const c = loadConfig({ FLEX_DNO_A_ID: 'ukpn', FLEX_DNO_A_BASE_URL: 'https://flex.example', FLEX_DNO_A_CLIENT_ID: 'm', FLEX_DNO_A_API_KEY: 'k' });
  assert.deepEqual(flex(c).operators[0], {
    slot: 'A',
    id: 'ukpn',
    baseUrl: 'https://flex.example',
    clientId: 'm',
    apiKey: 'k',
    requiresTenderPlatformId: false,
  });
});
