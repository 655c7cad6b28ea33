// A batch taken as sent stores its runs' votes as the JSON text they were sent in
// (src/services/votesText.ts), and each run keeps its own votes whatever its text holds: keys in
// strings, brackets, escapes, a key spelled with an escape, a key sent twice.
import fc from 'fast-check';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { admin, seedCompetition, testApp, TEST_ENGINE, type TestApp } from '../support/app.js';
import { votesTexts } from '../../src/services/votesText.js';

const [P1, P2] = ['a', 'b'].map((d) => d.repeat(32)) as [string, string];
const qna = {
  prompt: 'How does the scheduler hand work to the graceful handler?',
  referenceAnswer: 'Through iterateSteps.',
  repositoryUrl: 'grafana/k6',
  repositoryBaseCommit: 'e'.repeat(40),
  language: 'go',
  category: 'Root-cause analysis',
  dockerImage: 'img:1',
  rubric: [P1, P2].map((id, i) => ({ id, type: 'positive', title: `1.${i + 1}: criterion`, importance: 'must have' })),
};

let t: TestApp;
let key: string;
beforeEach(async () => {
  t = await testApp();
  key = (await seedCompetition(t, 'c')).validatorKey;
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'q', type: 'swe_atlas_qna', qna }] },
  });
});
afterEach(async () => t.close());

/** Votes on both criteria, `yes` YES of 5 each (the competition's judgeVotes), each vote's reason `reason`. */
const votes = (yes: number, reason: string) =>
  [P1, P2].map((criterionId) => ({
    criterionId,
    votes: [0, 1, 2, 3, 4].map((i) => ({ verdict: i < yes ? 'YES' : 'NO', reason })),
  }));
/** A miner run's JSON text, its votes' text `votesText` after the key as written in `votesKey`. */
const runText = (runId: string, votesText: string, votesKey = '"rubricVotes"') =>
  `{"runId":"${runId}","taskId":"q","kind":"miner","minerHotkey":"m1",${votesKey}:${votesText}}`;
const post = (runs: string[]) =>
  t.call({
    method: 'POST',
    url: '/v1/competitions/c/runs',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: `{"runs":[${runs.join(',')}]}`,
  });
const votesOf = async (runId: string) =>
  (await t.call({ method: 'GET', url: `/v1/competitions/c/runs/${runId}`, headers: admin })).body.rubricVotes.map(
    ({ position: _position, ...v }: { position: number }) => v,
  );
const stored = (runId: string) =>
  t.db.$client.prepare('SELECT rubric_votes FROM runs WHERE run_id = ?').pluck().get(runId) as string;

it.runIf(TEST_ENGINE === 'sqlite')('stores the votes of a batch taken as sent as the text sent', async () => {
  const text = JSON.stringify(votes(5, 'fine'), null, 2);
  const res = await post([runText('r', text), runText('s', JSON.stringify(votes(2, 'x')))]);
  expect(res.body).toEqual({ accepted: 2, duplicates: 0 });
  expect(stored('r')).toBe(text);
  expect(await votesOf('r')).toEqual(votes(5, 'fine'));
  // A resend of the same batch is a duplicate.
  expect((await post([runText('r', text)])).body).toEqual({ accepted: 0, duplicates: 1 });
});

it('keeps each run its own votes whatever their text holds', async () => {
  const tricky = [
    '"rubricVotes": [',
    'a ] and a [ and ]] [[',
    'back\\slash\\',
    '"quoted" "rubricVotes":[{"criterionId":"x"}]',
  ];
  const runs = tricky.map((reason, i) => ({ id: `t${i}`, votes: votes(i % 2 ? 5 : 2, reason) }));
  const res = await post(runs.map((r) => runText(r.id, JSON.stringify(r.votes))));
  expect(res.body).toEqual({ accepted: runs.length, duplicates: 0 });
  for (const r of runs) expect(await votesOf(r.id)).toEqual(r.votes);
});

it('keeps each run its own votes when a key is written with an escape and another sent twice', async () => {
  // JSON.parse keeps the last of two same keys; the escaped key is `rubricVotes` all the same. Read
  // key by key from the text, the first run's two would have given both runs the wrong votes.
  const twice = `${JSON.stringify(votes(0, 'first'))},"rubricVotes":${JSON.stringify(votes(5, 'second'))}`;
  const res = await post([
    runText('twice', twice),
    runText('escaped', JSON.stringify(votes(2, 'escaped')), '"rubric\\u0056otes"'),
  ]);
  expect(res.body).toEqual({ accepted: 2, duplicates: 0 });
  expect(await votesOf('twice')).toEqual(votes(5, 'second'));
  expect(await votesOf('escaped')).toEqual(votes(2, 'escaped'));
  // A key sent twice alone: three keys for two voted runs.
  const again = await post([runText('twice-2', twice), runText('plain', JSON.stringify(votes(1, 'plain')))]);
  expect(again.body).toEqual({ accepted: 2, duplicates: 0 });
  expect(await votesOf('twice-2')).toEqual(votes(5, 'second'));
  expect(await votesOf('plain')).toEqual(votes(1, 'plain'));
});

it('finds votes in a text it cannot read so at once, in time linear in the text (no backtracking)', () => {
  // Deeper than a run's votes nest, or cut short: a backtracking pattern took seconds on 10 of these.
  const deepVotes = `[${'"ab",'.repeat(200_000)}[[1]]]`;
  expect(votesTexts(`{"runs":[{"rubricVotes":${deepVotes}}]}`, [{ rubricVotes: [] }])).toEqual([deepVotes]);
  const cut = `{"runs":[{"rubricVotes":[${' 1,'.repeat(200_000)}`;
  expect(votesTexts(cut, [{ rubricVotes: [] }])).toBeNull();
  // A value spelled like the key is passed over; each run's own array is found whole.
  const text = '{"runs":[{"taskId":"rubricVotes","rubricVotes" : [{"c":["a]","b"]}]},{"rubricVotes":[]}]}';
  expect(votesTexts(text, [{ rubricVotes: [] }, { rubricVotes: [] }])).toEqual(['[{"c":["a]","b"]}]', '[]']);
});

it("finds each run's votes whatever quotes, backslashes and brackets their strings hold", () => {
  const piece = fc.constantFrom(
    '"',
    '\\',
    '\\\\',
    '\\"',
    '[',
    ']',
    '{',
    '}',
    'a',
    ':',
    ',',
    '"rubricVotes":',
    '\n',
    'é',
  );
  const text = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
  const run = fc.option(
    fc.array(
      fc.record({ criterionId: text, votes: fc.array(fc.record({ verdict: text, reason: text }), { maxLength: 3 }) }),
      {
        maxLength: 3,
      },
    ),
    { nil: undefined },
  );
  fc.assert(
    fc.property(
      fc.array(fc.record({ runId: text, rubricVotes: run }, { requiredKeys: ['runId'] }), { maxLength: 4 }),
      fc.boolean(),
      (runs, spaced) => {
        const found = votesTexts(JSON.stringify({ runs }, null, spaced ? 1 : undefined), runs);
        if (runs.every((r) => r.rubricVotes === undefined)) {
          expect(found).toBeNull();
          return;
        }
        expect(found).not.toBeNull();
        for (const [i, r] of runs.entries()) {
          if (r.rubricVotes === undefined) expect(found![i]).toBeNull();
          else if (spaced) expect(JSON.parse(found![i]!)).toEqual(r.rubricVotes);
          else expect(found![i]).toBe(JSON.stringify(r.rubricVotes));
        }
      },
    ),
    { numRuns: 2000 },
  );
});
