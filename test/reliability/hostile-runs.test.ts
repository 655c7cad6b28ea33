// Hostile run batches (POST and DELETE runs): every malformed request gets a 4xx problem+json
// naming the offending field or id, and the database is unchanged to the byte. Batches mix the
// bad run with valid fresh ones, so a partial write would show in the dump.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { COMPETITION, CRITERIA, HOTKEYS } from './fixture.js';
import {
  MEGA,
  RAW,
  badCount,
  badId,
  enc,
  extraKey,
  hostileTarget,
  invalidJsonLiteral,
  notBoolean,
  notString,
  qnaRun,
  rawNumbers,
  storm,
  validRun,
  votes,
  withRaw,
  type Attack,
  type Target,
} from './hostileKit.js';
import type { Json } from '../support/json.js';

const url = `/v1/competitions/${COMPETITION}/runs`;
const safeId = fc.stringMatching(/^[a-z0-9]{1,20}$/);
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/).filter((h) => !(CRITERIA as readonly string[]).includes(h));
const verdicts = fc.array(fc.constantFrom<'YES' | 'NO'>('YES', 'NO'), { minLength: 3, maxLength: 3 });

let target: Target;
beforeAll(async () => {
  target = await hostileTarget();
});
afterAll(async () => {
  console.log(`[hostile-runs] malformed requests tried: ${target.count}, all 4xx problem+json, database unchanged`);
  await target.t.close();
});

/** A batch of valid fresh runs with `bad` at `at`. */
function batch(
  name: string,
  bad: Record<string, unknown>,
  at: number,
  status: number,
  mentions: Attack['mentions'],
): Attack {
  const runs: unknown[] = [
    validRun('fresh-a'),
    validRun('fresh-b', { kind: 'baseline', minerHotkey: undefined }),
    qnaRun('fresh-q'),
  ];
  runs.splice(Math.min(at, runs.length), 0, bad);
  return { name, method: 'POST', url, body: { runs }, token: target.validatorKey, status, mentions };
}
const where = (at: number) => Math.min(at, 3);

describe('hostile run batches', () => {
  it('token counts that are negative, fractional, beyond 2^53 - 1 or not numbers', () =>
    storm(
      target,
      fc
        .tuple(fc.constantFrom('input', 'cachedInput', 'output'), badCount, fc.nat(3))
        .map(([field, value, at]) =>
          batch('token count', validRun('bad', { tokens: { input: 5, output: 5, [field]: value } }), at, 400, [
            `runs/${where(at)}/tokens/${field}`,
          ]),
        ),
      30,
    ));

  it('NaN, Infinity and out-of-range literals sent as raw JSON text', () =>
    storm(
      target,
      fc.tuple(fc.constantFrom('input', 'output', 'cachedInput'), rawNumbers).map(([field, raw]): Attack => ({
        name: `raw ${raw}`,
        method: 'POST',
        url,
        token: target.validatorKey,
        status: 400,
        body: withRaw({ runs: [validRun('bad', { tokens: { input: 1, output: 1, [field]: RAW } })] }, raw),
        mentions: [invalidJsonLiteral(raw) ? /json/ : `tokens/${field}`],
      })),
      20,
    ));

  const wrongTyped: Record<string, fc.Arbitrary<unknown>> = {
    runId: notString,
    taskId: notString,
    minerHotkey: notString,
    kind: fc.oneof(notString, fc.constantFrom('Miner', 'validator', '', 'baseline ')),
    attemptNo: fc.oneof(badCount, fc.constant(1_000_001)),
    resolved: notBoolean,
    tokens: fc.oneof(fc.integer(), fc.string(), fc.constant([]), fc.constant({ input: 1 }), fc.constant({ output: 1 })),
    timeTakenSeconds: fc.constantFrom(-1, -0.5, 1e10, '5', null, true, [], {}),
    agentSteps: fc.oneof(badCount, fc.constant(1e10)),
    rubricVotes: fc.constantFrom([], 'x', 5, null, {}, [{}], [{ criterionId: CRITERIA[0], votes: [] }], [null]),
  };
  it('fields of the wrong type or out of range', () =>
    storm(
      target,
      fc
        .constantFrom(...Object.keys(wrongTyped))
        .chain((field) => fc.tuple(fc.constant(field), wrongTyped[field]!, fc.nat(3)))
        .map(([field, value, at]) =>
          batch(`wrong ${field}`, { ...validRun('bad'), [field]: value }, at, 400, [`runs/${where(at)}/${field}`]),
        ),
      40,
    ));

  it('missing required fields', () =>
    storm(
      target,
      fc.tuple(fc.constantFrom('runId', 'taskId', 'kind', 'minerHotkey', 'resolved'), fc.nat(3)).map(([field, at]) => {
        const run: Record<string, unknown> = validRun('bad');
        delete run[field];
        return batch(`missing ${field}`, run, at, 400, [`runs/${where(at)}/${field}`]);
      }),
      15,
    ));

  const runKeys = [
    'runId',
    'taskId',
    'kind',
    'minerHotkey',
    'attemptNo',
    'resolved',
    'tokens',
    'timeTakenSeconds',
    'agentSteps',
    'rubricVotes',
  ];
  it('unknown fields at every level', () =>
    storm(
      target,
      fc
        .tuple(
          fc.constantFrom('body', 'run', 'tokens', 'criterion', 'vote'),
          extraKey([
            ...runKeys,
            'runs',
            'input',
            'output',
            'cachedInput',
            'criterionId',
            'votes',
            'verdict',
            'reason',
            'evidence',
          ]),
          fc.jsonValue(),
        )
        .map(([level, key, value]): Attack => {
          const run: Json = level === 'criterion' || level === 'vote' ? qnaRun('bad') : validRun('bad');
          if (level === 'run') run[key] = value;
          if (level === 'tokens') run.tokens[key] = value;
          if (level === 'criterion') run.rubricVotes[1][key] = value;
          if (level === 'vote') run.rubricVotes[0].votes[2][key] = value;
          const body: Record<string, unknown> = { runs: [validRun('fresh-a'), run] };
          if (level === 'body') body[key] = value;
          return {
            name: `extra ${level} field`,
            method: 'POST',
            url,
            body,
            token: target.validatorKey,
            status: 400,
            mentions: [key.toLowerCase()],
          };
        }),
      20,
    ));

  it('strings of a megabyte, and just over the limit', () =>
    storm(
      target,
      fc
        .tuple(
          fc.constantFrom('runId', 'taskId', 'minerHotkey', 'kind', 'criterionId', 'reason', 'evidence'),
          fc.constantFrom(MEGA, 'x'.repeat(8001)),
          fc.nat(3),
        )
        .map(([field, text, at]) => {
          const run: Json = qnaRun('bad');
          if (field === 'criterionId') run.rubricVotes[0].criterionId = text;
          else if (field === 'reason' || field === 'evidence') run.rubricVotes[1].votes[0][field] = text;
          else run[field] = text;
          return batch(`long ${field}`, run, at, 400, [field]);
        }),
      10,
    ));

  it('miner runs without a hotkey and baseline runs with one', () =>
    storm(
      target,
      fc
        .tuple(fc.boolean(), fc.constantFrom(...HOTKEYS), fc.nat(3))
        .map(([miner, hotkey, at]) =>
          batch(
            'hotkey rule',
            miner
              ? { ...validRun('bad'), minerHotkey: undefined }
              : { ...validRun('bad'), kind: 'baseline', minerHotkey: hotkey },
            at,
            400,
            [`runs/${where(at)}/minerHotkey`, miner ? 'required' : 'absent'],
          ),
        ),
      10,
    ));

  it('run ids repeated inside a batch', () =>
    storm(
      target,
      fc.tuple(safeId, fc.integer({ min: 1, max: 30 })).map(([id, n]): Attack => {
        const runs = Array.from({ length: n + 1 }, (_, i) => validRun(`dup-${id}-${i}`));
        runs[n] = validRun(runs[Math.floor(n / 2)]!.runId, { resolved: false });
        return {
          name: 'repeated runId',
          method: 'POST',
          url,
          body: { runs },
          token: target.validatorKey,
          status: 400,
          mentions: [runs[n].runId, 'repeated'],
        };
      }),
      10,
    ));

  it('identifiers with path or control characters, SQL text, or too long', () =>
    storm(
      target,
      fc
        .tuple(fc.constantFrom('runId', 'taskId', 'minerHotkey'), badId, fc.nat(3))
        .map(([field, id, at]) =>
          batch(`bad ${field}`, { ...validRun('bad'), [field]: id }, at, 400, [`runs/${where(at)}/${field}`]),
        ),
      20,
    ));

  it('unknown tasks (404) and unknown competitions (404)', () =>
    storm(
      target,
      fc.tuple(safeId, fc.boolean(), fc.nat(3)).map(([id, task, at]): Attack =>
        task
          ? batch('unknown task', validRun('bad', { taskId: `nope-${id}` }), at, 404, [`nope-${id}`])
          : {
              name: 'unknown competition',
              method: 'POST',
              url: `/v1/competitions/ghost-${id}/runs`,
              body: { runs: [validRun('fresh-a')] },
              token: target.validatorKey,
              status: 404,
              mentions: [`competition ghost-${id}`],
            },
      ),
      16,
    ));

  it('rubric votes that do not match the task (422)', () =>
    storm(
      target,
      fc
        .tuple(
          fc.constantFrom('missing', 'unknown', 'count', 'contradict', 'repeated', 'not-qna'),
          verdicts,
          verdicts,
          hex32,
          fc.constantFrom(1, 2, 4, 5, 7, 15),
          fc.nat(3),
        )
        .map(([kind, v0, v1, unknown, n, at]) => {
          const run: Json = qnaRun('bad-qna', {
            rubricVotes: [
              { criterionId: CRITERIA[0], votes: votes(v0) },
              { criterionId: CRITERIA[1], votes: votes(v1) },
            ],
          });
          const majorityYes = (v: string[]) => v.filter((x) => x === 'YES').length >= 2;
          let mentions: Attack['mentions'] = ['bad-qna'];
          if (kind === 'missing') {
            run.rubricVotes.splice(1, 1);
            mentions = ['bad-qna', CRITERIA[1], 'has no votes'];
          }
          if (kind === 'unknown') {
            run.rubricVotes.push({ criterionId: unknown, votes: votes(v0) });
            mentions = ['bad-qna', unknown, 'not in the task'];
          }
          if (kind === 'count') {
            run.rubricVotes[0].votes = votes(Array(n).fill('NO'));
            mentions = ['bad-qna', CRITERIA[0], 'number of votes'];
          }
          if (kind === 'contradict') {
            run.resolved = !(majorityYes(v0) && !majorityYes(v1));
            mentions = ['bad-qna', 'resolved', 'contradicts'];
          }
          if (kind === 'repeated') {
            run.rubricVotes.push(run.rubricVotes[0]);
            mentions = ['bad-qna', CRITERIA[0], 'more than once'];
          }
          if (kind === 'not-qna') {
            run.taskId = 'sw-2';
            mentions = ['bad-qna', 'without a rubric'];
          }
          return batch(`votes ${kind}`, run, at, 422, mentions);
        }),
      30,
    ));

  it('verdicts other than YES and NO', () =>
    storm(
      target,
      fc.tuple(fc.constantFrom('yes', 'Yes', 'MAYBE', '', 'Y', true, 1, null), fc.nat(3)).map(([verdict, at]) => {
        const run: Json = qnaRun('bad');
        run.rubricVotes[0].votes[1].verdict = verdict;
        return batch('bad verdict', run, at, 400, [`runs/${where(at)}/rubricVotes/0/votes/1/verdict`]);
      }),
      8,
    ));

  it('stored run ids resent with different content (409)', () =>
    storm(
      target,
      fc
        .tuple(fc.boolean(), fc.constantFrom('resolved', 'tokens', 'attemptNo', 'minerHotkey', 'reason'), fc.nat(3))
        .map(([qna, change, at]) => {
          const run: Json = structuredClone(qna ? target.storedQnaRun : target.storedMinerRun);
          if (change === 'reason' && qna) run.rubricVotes[0].votes[0].reason = 'changed';
          else if (change === 'resolved' && !qna) run.resolved = false;
          else if (change === 'tokens') run.tokens = { input: 1, output: 2 };
          else if (change === 'minerHotkey') run.minerHotkey = 'hk-e';
          else run.attemptNo = 7;
          return batch(`conflicting ${change}`, run, at, 409, [run.runId, 'different content']);
        }),
      12,
    ));

  it('batches of the wrong shape', () =>
    storm(
      target,
      fc
        .constantFrom<[unknown, string]>(
          [{ runs: [] }, 'runs'],
          [{}, 'runs'],
          [{ runs: {} }, 'runs'],
          [{ runs: 'x' }, 'runs'],
          [[], 'body'],
          ['"runs"', 'body'],
          ['null', 'body'],
          ['5', 'body'],
          [{ runs: [null] }, 'runs/0'],
          [{ runs: [[]] }, 'runs/0'],
          [{ run: [validRun('x')] }, 'run'],
        )
        .map(([body, mention]): Attack => ({
          name: 'batch shape',
          method: 'POST',
          url,
          body,
          token: target.validatorKey,
          status: 400,
          mentions: [mention],
        })),
      12,
    ));

  it('DELETE of unknown runs, bad run ids and unknown competitions', () =>
    storm(
      target,
      fc.tuple(fc.constantFrom('unknown', 'bad', 'competition'), safeId, badId).map(([kind, id, bad]): Attack => {
        if (kind === 'unknown')
          return {
            name: 'delete unknown run',
            method: 'DELETE',
            url: `${url}/gone-${id}`,
            status: 404,
            mentions: [`run gone-${id}`],
          };
        if (kind === 'bad')
          return {
            name: 'delete bad id',
            method: 'DELETE',
            url: `${url}/${enc(bad)}`,
            status: 400,
            mentions: ['params/runId'],
          };
        return {
          name: 'delete in unknown competition',
          method: 'DELETE',
          url: `/v1/competitions/ghost-${id}/runs/stored-1`,
          status: 404,
          mentions: [`ghost-${id}`],
        };
      }),
      16,
    ));
});
