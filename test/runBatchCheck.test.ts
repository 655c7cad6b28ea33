// The fast check of a run batch (src/schemas/runBatchCheck.ts) against the schema it stands in for:
// whatever body it accepts, RunBatchSchema accepts and returns deep-equal (the same keys, the same
// values), so taking the body as sent is what the schema would have given the handler. Bodies come
// from generators that make mostly well-formed runs with, now and then, a field out of range, of
// the wrong type, missing or extra, each through JSON as a request's body is. And the well-formed
// batches of every shape the API takes pass it, so ingest does not fall back to the copy.
import fc from 'fast-check';
import Fastify from 'fastify';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cachingValidatorCompiler } from '../src/plugins/validation.js';
import { isWellFormedRunBatch } from '../src/schemas/runBatchCheck.js';
import { RunBatchSchema } from '../src/schemas/runs.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** `good`, or (when `bad`) now and then one of `wrong`. */
function field<T>(bad: boolean, good: fc.Arbitrary<T>, ...wrong: unknown[]): fc.Arbitrary<unknown> {
  if (!bad) return good;
  const junk = fc.oneof(
    fc.constantFrom(null, '', 'x', 0, -1, 1.5, true, [], {}, ...wrong),
    fc.string({ maxLength: 3 }),
    fc.double(),
  );
  return fc.oneof({ weight: 30, arbitrary: good }, { weight: 1, arbitrary: junk });
}

/** Mostly null; one time in 16, one of `arb`. */
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

/** `o`, or (when `bad`) now and then with its keys in another order, one of them perhaps left out. */
function maybeShuffled<T extends object>(bad: boolean, o: fc.Arbitrary<T>): fc.Arbitrary<T> {
  if (!bad) return o;
  return fc.tuple(o, rarely(fc.constant(true))).chain(([v, shuffle]) => {
    const entries = Object.entries(v);
    if (!shuffle || entries.length === 0) return fc.constant(v);
    return fc
      .shuffledSubarray(entries, { minLength: entries.length - 1, maxLength: entries.length })
      .map((e) => Object.fromEntries(e) as T);
  });
}

/** `o`, or (when `bad`) now and then with a key the schema does not name. */
function maybeExtra<T extends object>(bad: boolean, o: fc.Arbitrary<T>): fc.Arbitrary<T> {
  if (!bad) return o;
  const extra = rarely(fc.constantFrom('extra', 'Runs', 'runid', '__proto__', 'constructor', 'digests'));
  return fc.tuple(o, extra).map(([v, k]) => (k === null ? v : { ...v, [k]: 1 }));
}

const ID_UNITS = [...'abzAZ09._:-'];
const idOf = (units: string[]) => fc.string({ unit: fc.constantFrom(...units), minLength: 1, maxLength: 8 });
const id = (bad: boolean) =>
  bad
    ? fc.oneof(
        { weight: 14, arbitrary: idOf(ID_UNITS) },
        { weight: 1, arbitrary: idOf([...ID_UNITS, '/', ' ', 'é']) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('', '.', '..', 'export', 'imports', 'baseline', 'x'.repeat(128), 'x'.repeat(129)),
        },
      )
    : idOf(ID_UNITS).filter((s) => s !== '.' && s !== '..' && s !== 'export');

const int = (bad: boolean, max: number) =>
  field(
    bad,
    fc.oneof(fc.integer({ min: 0, max: Math.min(max, 2 ** 31) }), fc.constant(max)),
    max + 1,
    -0,
    0.5,
    MAX_SAFE + 1,
    1e21,
  );

const text = (bad: boolean, min: number, max: number) =>
  field(
    bad,
    fc.oneof({ weight: 9, arbitrary: fc.string({ minLength: min, maxLength: 6 }) }, fc.constant('v'.repeat(max))),
    'v'.repeat(max + 1),
    7,
  );

const tokens = (bad: boolean) =>
  fc.oneof(
    fc.constant(null),
    maybeExtra(
      bad,
      fc.record(
        { input: int(bad, MAX_SAFE), cachedInput: int(bad, MAX_SAFE), output: int(bad, MAX_SAFE) },
        { requiredKeys: ['input', 'output'] },
      ),
    ),
  );

const vote = (bad: boolean) =>
  maybeShuffled(
    bad,
    maybeExtra(
      bad,
      fc.record(
        {
          verdict: field(bad, fc.constantFrom('YES', 'NO'), 'yes', 'MAYBE'),
          reason: text(bad, 0, 8000),
          evidence: text(bad, 0, 8000),
        },
        { requiredKeys: ['verdict'] },
      ),
    ),
  );

/**
 * 1 to 3 of `item`; now and then exactly `max` (`filler` repeated: a list that long of generated
 * items would be too slow), and with `bad` none or `max + 1`.
 */
const sized = <T>(bad: boolean, item: fc.Arbitrary<T>, max: number, filler: unknown) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.array(item, { minLength: 1, maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...(bad ? [0, max, max + 1] : [max]))
        .map((n) => Array.from({ length: n }, () => structuredClone(filler) as T)),
    },
  );

const criterionVotes = (bad: boolean) =>
  maybeShuffled(
    bad,
    maybeExtra(
      bad,
      fc.record(
        { criterionId: text(bad, 1, 128), votes: sized(bad, vote(bad), 15, { verdict: 'NO' }) },
        { requiredKeys: ['criterionId', 'votes'] },
      ),
    ),
  );

const HEX = [...'0123456789abcdef'];
const judge = (bad: boolean) =>
  maybeExtra(
    bad,
    fc.record({
      digest: field(
        bad,
        fc.string({ unit: fc.constantFrom(...HEX), minLength: 64, maxLength: 64 }),
        'A'.repeat(64),
        'a'.repeat(63),
      ),
    }),
  );

const day = fc
  .date({ min: new Date('0001-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const answerDate = (bad: boolean) =>
  field(bad, day, '2024-02-30', '2023-02-29', '2024-2-3', '2020', '+002020-01-01', '2024-13-01', '2024-02-29T00:00');

/** A run of either kind; with `bad`, sometimes of no kind, or with a field missing, extra or out of range. */
const run = (bad: boolean) =>
  fc
    .tuple(
      field(bad, fc.constantFrom('baseline', 'miner'), 'Miner', 'other'),
      fc.record(
        {
          runId: id(bad),
          taskId: id(bad),
          minerHotkey: id(bad),
          attemptNo: int(bad, 1_000_000),
          resolved: field(bad, fc.boolean(), 'true', 1),
          tokens: tokens(bad),
          timeTakenSeconds: field(
            bad,
            fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.constant(1e9)),
            1e9 + 1,
            -0.5,
          ),
          agentSteps: int(bad, 1e9),
          rubricVotes: sized(bad, criterionVotes(bad), 200, { criterionId: 'c', votes: [{ verdict: 'YES' }] }),
          judge: judge(bad),
          answerDate: answerDate(bad),
        },
        { requiredKeys: ['runId', 'taskId'] },
      ),
      fc.boolean(),
      bad ? rarely(fc.constantFrom('runId', 'taskId', 'minerHotkey', 'resolved', 'kind')) : fc.constant(null),
    )
    .map(([kind, fields, resolved, dropped]) => {
      const r: Record<string, unknown> = { ...fields, kind };
      // Well-formed: a miner run names its miner, a baseline run none; graded one way or both.
      if (kind === 'miner') r.minerHotkey ??= 'miner-1';
      else delete r.minerHotkey;
      if (r.resolved === undefined && r.rubricVotes === undefined) r.resolved = resolved;
      // With `bad`, now and then a key taken out (or a miner named on a baseline run) after all.
      if (dropped === 'minerHotkey' && kind === 'baseline') r.minerHotkey = 'miner-1';
      else if (dropped !== null) delete r[dropped];
      return r;
    })
    .chain((r) => maybeExtra(bad, fc.constant(r)));

const FILLER_RUN = { runId: 'r', taskId: 't', kind: 'baseline', resolved: false };
const batch = (bad: boolean) =>
  maybeExtra(
    bad,
    fc.record({ runs: sized(bad, run(bad), 5000, FILLER_RUN).map((runs) => (bad ? runs : unique(runs))) }),
  );

/** Run ids made distinct, as a well-formed batch's are. */
const unique = (runs: Record<string, unknown>[]) => runs.map((r, i) => ({ ...r, runId: `${String(r.runId)}-${i}` }));

/**
 * Each run's votes as stored and compared on a resend: JSON text, in which key order counts (the
 * rest of a run is read field by field).
 */
const votesText = (body: unknown) =>
  JSON.stringify((body as { runs: { rubricVotes?: unknown }[] }).runs.map((r) => r.rubricVotes));

/** As the server receives a body: through JSON (no undefined, -0 as 0, plain objects). */
const asSent = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('the fast check of a run batch', () => {
  it('accepts only what RunBatchSchema accepts and returns deep-equal', () => {
    let accepted = 0;
    fc.assert(
      fc.property(batch(true), (raw) => {
        const body = asSent(raw);
        if (!isWellFormedRunBatch(body)) return;
        accepted++;
        const parsed = RunBatchSchema.safeParse(body);
        expect(parsed.error?.issues).toBeUndefined();
        expect(isDeepStrictEqual(parsed.data, body)).toBe(true);
        expect(votesText(parsed.data)).toBe(votesText(body));
      }),
      { numRuns: 3000 },
    );
    // The generators reach the accepting side often enough for the property to say something.
    expect(accepted).toBeGreaterThan(100);
  });

  it('accepts every well-formed batch, which the schema returns deep-equal', () => {
    fc.assert(
      fc.property(batch(false), (raw) => {
        const body = asSent(raw);
        const parsed = RunBatchSchema.safeParse(body);
        expect(parsed.error?.issues).toBeUndefined();
        expect(isWellFormedRunBatch(body)).toBe(true);
        expect(isDeepStrictEqual(parsed.data, body)).toBe(true);
        expect(votesText(parsed.data)).toBe(votesText(body));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what the schema would change or refuse', () => {
    const good = { runId: 'r1', taskId: 't1', kind: 'miner', minerHotkey: 'm', resolved: true };
    expect(isWellFormedRunBatch({ runs: [good] })).toBe(true);
    for (const body of [
      { runs: [good, good] }, // a repeated run id
      { runs: [{ ...good, judge: { digest: 'a'.repeat(64), model: 'x' } }] }, // the schema refuses `model`
      { runs: [{ ...good, answerDate: '2024-02-30' }] },
      { runs: [{ ...good, kind: 'baseline' }] }, // a baseline run names no miner
      { runs: [{ ...good, resolved: undefined }] }, // neither resolved nor votes
      { runs: [{ ...good, runId: 'export' }] },
      { runs: [{ ...good, minerHotkey: 'baseline' }] }, // coverage's miner of the baseline pairs
      { runs: [] },
      { runs: [good], more: 1 },
    ])
      expect(isWellFormedRunBatch(asSent(body))).toBe(false);
  });

  it('hands a body that passes to the handler as sent, and one that does not through zod', async () => {
    const app = Fastify();
    app.setValidatorCompiler(cachingValidatorCompiler);
    let parsed: unknown;
    app.addHook('preValidation', async (request) => {
      parsed = request.body;
    });
    app.post('/runs', { schema: { body: RunBatchSchema } }, async (request) => ({ same: request.body === parsed }));
    const good = { runId: 'r1', taskId: 't1', kind: 'baseline', resolved: true };
    const sent = await app.inject({ method: 'POST', url: '/runs', payload: { runs: [good] } });
    expect(sent.json()).toEqual({ same: true });
    // Votes whose keys come in another order than the schema's: parsed by zod, which returns a copy
    // in its own order (the stored votes keep one order whatever the sender's).
    const { resolved: _r, ...unresolved } = good;
    const voted = { ...unresolved, rubricVotes: [{ votes: [{ verdict: 'YES' }], criterionId: 'c1' }] };
    const copied = await app.inject({ method: 'POST', url: '/runs', payload: { runs: [voted] } });
    expect(copied.json()).toEqual({ same: false });
    // `judge` with a key besides its digest: refused, naming it (it was stripped, unsaid).
    const judged = { ...good, judge: { digest: 'a'.repeat(64), extra: 1 } };
    const refused = await app.inject({ method: 'POST', url: '/runs', payload: { runs: [judged] } });
    expect(refused.statusCode).toBe(400);
    await app.close();
  });
});
