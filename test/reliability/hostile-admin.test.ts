// Hostile admin writes: competitions, validators and miners. Every malformed request gets a 4xx
// problem+json naming the offending field or id, and the database is unchanged to the byte
// (a rejected PUT of a new competition or miner creates nothing).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { COMPETITION } from './fixture.js';
import {
  MEGA,
  RAW,
  badId,
  enc,
  extraKey,
  hostileTarget,
  invalidJsonLiteral,
  notBoolean,
  notString,
  rawNumbers,
  storm,
  withRaw,
  type Attack,
  type Target,
} from './hostileKit.js';

const safeId = fc.stringMatching(/^[a-z0-9]{1,20}$/);
/** An existing competition or a new one: neither may change. */
const competitionUrl = fc.oneof(
  fc.constant(`/v1/competitions/${COMPETITION}`),
  safeId.map((id) => `/v1/competitions/new-${id}`),
);
const goodCompetition = {
  name: 'Renamed',
  tokenWeights: { input: 2, cachedInput: 0.2, output: 4 },
  burnRatio: 0.5,
  judgeVotes: 5,
  finalStages: ['evaluation'],
};

let target: Target;
beforeAll(async () => {
  target = await hostileTarget();
});
afterAll(async () => {
  console.log(`[hostile-admin] malformed requests tried: ${target.count}, all 4xx problem+json, database unchanged`);
  await target.t.close();
});

const badCompetitionField: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.oneof(notString, fc.constantFrom('', MEGA, 'x'.repeat(201))),
  tokenWeights: fc.constantFrom(
    5,
    'x',
    null,
    [],
    { input: 1, cachedInput: 1 },
    { input: -1, cachedInput: 0, output: 0 },
    { input: 1, cachedInput: 1e7, output: 1 },
    { input: '1', cachedInput: 0, output: 0 },
    { input: 1, cachedInput: 0.1, output: 3, extra: 1 },
  ),
  burnRatio: fc.oneof(
    fc.double({ min: 1.000001, max: 1e9, noNaN: true }),
    fc.double({ min: -1e9, max: -1e-9, noNaN: true }),
    fc.constantFrom('0.5', 'NaN', 'Infinity', null, true, []),
  ),
  judgeVotes: fc.constantFrom(0, 2, 4, 16, 17, -1, 2.5, '5', null, 1e9, 2 ** 53 + 1),
  finalStages: fc.constantFrom(
    [],
    ['evaluation', 'evaluation'],
    ['final'],
    'evaluation',
    [1],
    null,
    ['Evaluation'],
    ['screener_1', 'screener_2', 'evaluation', 'evaluation'],
  ),
};

describe('hostile competition writes', () => {
  it('settings of the wrong type or out of range', () =>
    storm(
      target,
      fc
        .tuple(competitionUrl, fc.constantFrom(...Object.keys(badCompetitionField)))
        .chain(([url, field]) => fc.tuple(fc.constant(url), fc.constant(field), badCompetitionField[field]!))
        .map(([url, field, value]): Attack => ({
          name: `competition ${field}`,
          method: 'PUT',
          url,
          body: { ...goodCompetition, [field]: value },
          status: 400,
          mentions: [`body/${field}`],
        })),
      45,
    ));

  it('a missing name and unknown fields', () =>
    storm(
      target,
      fc
        .tuple(competitionUrl, fc.option(extraKey(Object.keys(goodCompetition)), { nil: undefined }), fc.jsonValue())
        .map(([url, key, value]): Attack => {
          if (key === undefined)
            return {
              name: 'no name',
              method: 'PUT',
              url,
              body: { burnRatio: 0.2 },
              status: 400,
              mentions: ['body/name'],
            };
          return {
            name: 'extra field',
            method: 'PUT',
            url,
            body: { ...goodCompetition, [key]: value },
            status: 400,
            mentions: [key.toLowerCase(), 'unknown field'],
          };
        }),
      15,
    ));

  it('NaN and Infinity sent as raw JSON text', () =>
    storm(
      target,
      fc
        .tuple(competitionUrl, fc.constantFrom('burnRatio', 'judgeVotes', 'input'), rawNumbers)
        .map(([url, field, raw]): Attack => {
          const body =
            field === 'input'
              ? { ...goodCompetition, tokenWeights: { input: RAW, cachedInput: 0, output: 1 } }
              : { ...goodCompetition, [field]: RAW };
          return {
            name: `raw ${raw}`,
            method: 'PUT',
            url,
            body: withRaw(body, raw),
            status: 400,
            mentions: [invalidJsonLiteral(raw) ? /json/ : field],
          };
        }),
      12,
    ));

  it('competition ids with path or control characters, SQL text, or too long', () =>
    storm(
      target,
      badId.map((id): Attack => ({
        name: 'bad competition id',
        method: 'PUT',
        url: `/v1/competitions/${enc(id)}`,
        body: goodCompetition,
        status: 400,
        mentions: ['params/competitionId'],
      })),
      20,
    ));
});

describe('hostile validator writes', () => {
  it('names of the wrong type, empty, too long, missing, or with unknown fields', () =>
    storm(
      target,
      fc
        .oneof(
          fc
            .oneof(notString, fc.constantFrom('', 'x'.repeat(201), MEGA))
            .map((name) => ({ body: { name }, mention: 'body/name' })),
          fc.constant({ body: {}, mention: 'body/name' }),
          extraKey(['name']).map((k) => ({ body: { name: 'ok', [k]: 1 }, mention: k.toLowerCase() })),
        )
        .map(({ body, mention }): Attack => ({
          name: 'new validator',
          method: 'POST',
          url: '/v1/validators',
          body,
          status: 400,
          mentions: [mention],
        })),
      20,
    ));

  it('revoking unknown or malformed validator ids', () =>
    storm(
      target,
      fc
        .oneof(
          fc.stringMatching(/^[0-9a-f]{32}$/).map((id) => ({ id, status: 404, mention: `validator ${id}` })),
          badId.map((id) => ({ id, status: 400, mention: 'params/id' })),
        )
        .map(({ id, status, mention }): Attack => ({
          name: 'revoke',
          method: 'DELETE',
          url: `/v1/validators/${enc(id)}`,
          status,
          mentions: [mention],
        })),
      20,
    ));
});

describe('hostile miner writes', () => {
  const minerUrl = fc
    .oneof(
      fc.constantFrom('hk-a', 'hk-x'),
      safeId.map((s) => `new-${s}`),
    )
    .map((h) => `/v1/competitions/${COMPETITION}/miners/${h}`);
  it('standing of the wrong type, too long a reason, missing or unknown fields', () =>
    storm(
      target,
      fc
        .tuple(
          minerUrl,
          fc.oneof(
            notBoolean.map((excluded) => ({ body: { excluded }, mention: 'body/excluded' })),
            fc
              .oneof(notString, fc.constantFrom('x'.repeat(2001), MEGA))
              .map((reason) => ({ body: { excluded: true, reason }, mention: 'body/reason' })),
            fc.constant({ body: { reason: 'no flag' }, mention: 'body/excluded' }),
            extraKey(['excluded', 'reason']).map((k) => ({
              body: { excluded: false, [k]: true },
              mention: k.toLowerCase(),
            })),
          ),
        )
        .map(([url, { body, mention }]): Attack => ({
          name: 'miner standing',
          method: 'PUT',
          url,
          body,
          status: 400,
          mentions: [mention],
        })),
      30,
    ));

  it('bad hotkeys and unknown competitions', () =>
    storm(
      target,
      fc.oneof(
        badId.map((h): Attack => ({
          name: 'bad hotkey',
          method: 'PUT',
          url: `/v1/competitions/${COMPETITION}/miners/${enc(h)}`,
          body: { excluded: true },
          status: 400,
          mentions: ['params/hotkey'],
        })),
        safeId.map((c): Attack => ({
          name: 'unknown competition',
          method: 'PUT',
          url: `/v1/competitions/ghost-${c}/miners/hk-a`,
          body: { excluded: true },
          status: 404,
          mentions: [`competition ghost-${c}`],
        })),
      ),
      20,
    ));
});
