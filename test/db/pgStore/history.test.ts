// Competitions, tasks, QnA rubrics, runs, exclusions, deletions, weights and snapshots: a scripted history read back on both engines.
// Both engines through their real migrations (test/support/enginePair.ts).
import { describe, expect, it } from 'vitest';
import { testPostgres } from '../../support/postgres.js';
import { both, compareAll, enginePairs, qnaTask, run, sweTask } from '../../support/enginePair.js';

const server = await testPostgres('test/db/pgStore/history.test.ts');
it.runIf(server.mustFail)('a PostgreSQL server answers', () => expect.fail(server.notice));
const MAX = Number.MAX_SAFE_INTEGER;

describe.runIf(server.available)('PostgreSQL store: a scripted history, the same answers as SQLite', () => {
  const freshPair = enginePairs('pg_store_history');

  it('a scripted history: competitions, tasks, QnA rubrics, runs, exclusions, deletions, weights, snapshots', async () => {
    const p = await freshPair();
    const c = 'c1';
    await both(p, 'competitions.upsert', c, { name: 'One' });
    await both(p, 'competitions.upsert', 'c2', {
      name: 'Two',
      tokenWeights: { input: 2, cachedInput: 0.5, output: 1 },
      burnRatio: 0.25,
      judgeVotes: 3,
      finalStages: ['evaluation'],
      revealAnswers: true,
    });
    await both(p, 'competitions.upsert', c, { name: 'One again', burnRatio: 0.1 });
    // 'T-b' sorts before 'a-...' in byte order, after it in most locales' collations.
    await both(p, 'tasks.upsertMany', c, [
      sweTask('t-a', 'screener_1'),
      sweTask('T-b'),
      qnaTask('q.1', 1),
      sweTask('t-a', 'screener_2'),
      qnaTask('q:2', 2, 2),
    ]);
    await both(p, 'tasks.upsertMany', c, [sweTask('t-a', 'screener_2'), { ...qnaTask('q.1', 1), keepContent: true }]);
    await both(p, 'tasks.upsertMany', c, [
      { ...qnaTask('q:2', 9, 4), stage: 'screener_2' },
      { ...qnaTask('q.1', 5), qna: null, rubric: [], keepContent: true },
    ]);
    await both(p, 'tasks.upsertMany', 'c2', [sweTask('z'), qnaTask('a', 3)]);
    await compareAll(p, [c, 'c2']);

    await both(p, 'validators.setExcluded', c, 'val-x', true, 'bad');
    await both(p, 'validators.setExcluded', c, 'val-x', true, 'still bad');
    const excluded = new Set(['val-x']);
    const w = p.sq.competitions.get(c)!.tokenWeights;
    const batch1 = [
      run(c, { runId: 'r-1', taskId: 't-a' }),
      run(c, { runId: 'R-2', taskId: 't-a', hotkey: 'HK-0', resolved: true }),
      run(c, { runId: 'r-3', taskId: 'T-b', hotkey: null, resolved: true }),
      run(c, { runId: 'r-4', taskId: 'T-b', hotkey: null, resolved: false, tokens: null }),
      run(c, { runId: 'r-5', taskId: 'q.1', criteria: 3, validatorId: 'val-b', resolved: true }),
      run(c, { runId: 'r-6', taskId: 'q.1', criteria: 3, validatorId: 'val-x', hotkey: 'hk-only-excluded' }),
      run(c, { runId: 'r-7', taskId: 'q:2', criteria: 2, validatorId: null, hotkey: 'hk-2' }),
      run(c, { runId: 'r-8', taskId: 't-a', tokens: { input: 5, cachedInput: null, output: 0 } }),
      run(c, { runId: 'r-9', taskId: 't-a', tokens: { input: 0, cachedInput: 0, output: 0 }, hotkey: 'hk-2' }),
      run(c, { runId: 'r-10', taskId: 'T-b', hotkey: null, tokens: { input: MAX - 1, cachedInput: 1, output: 3 } }),
    ];
    await both(p, 'runs.insertMany', batch1, w, excluded);
    await compareAll(p, [c]);

    // A resend: the stored ones are found and only the new ones go in, as the ingest does; a new
    // run first, one between stored ones, and one after them.
    const batch2 = [
      run(c, { runId: 'r-12', taskId: 't-a', hotkey: 'hk-4' }),
      batch1[0]!,
      run(c, { runId: 'r-11', taskId: 'q.1', criteria: 3, hotkey: 'hk-2' }),
      ...batch1.slice(1, 3),
      run(c, { runId: 'r-13', taskId: 'T-b', hotkey: null, resolved: true }),
    ];
    await both(
      p,
      'runs.existing',
      c,
      batch2.map((r) => r.runId),
    );
    await both(p, 'runs.insertNew', batch2, w, excluded);
    await compareAll(p, [c]);
    await both(p, 'runs.insertNew', batch2, w, excluded);
    const stored = (id: string) => p.sq.runs.get(c, id)!;
    await both(p, 'runs.delete', stored('r-1'), w, excluded);
    await both(p, 'runs.delete', stored('r-6'), w, excluded);
    await both(p, 'runs.delete', stored('r-5'), w, excluded);
    await both(p, 'runs.insertMany', [run(c, { runId: 'r-1', taskId: 't-a', hotkey: 'hk-3' })], w, excluded);
    await compareAll(p, [c]);

    await both(p, 'miners.setExcluded', c, 'hk-2', true, 'cheat');
    await both(p, 'miners.setExcluded', c, 'hk-new', false, null);
    await both(p, 'audit.append', {
      actor: { kind: 'admin', id: null },
      action: 'miner.include',
      competitionId: c,
      target: 'hk-new',
      summary: { z: 1, a: [true, null], s: 'x"y' },
    });
    await both(p, 'audit.append', {
      actor: { kind: 'validator', id: 'val-a' },
      action: 'run.delete',
      competitionId: null,
      target: 'r-1',
      summary: {},
    });
    // New weights: the aggregates are rebuilt; then a validator excluded and one included again.
    await both(p, 'competitions.upsert', c, {
      name: 'One',
      tokenWeights: { input: 0.7, cachedInput: 0, output: 2.9 },
    });
    await both(p, 'validators.setExcluded', c, 'val-a', true, null);
    await both(p, 'validators.setExcluded', c, 'val-x', false, null);
    const w2 = p.sq.competitions.get(c)!.tokenWeights;
    await both(p, 'aggregates.rebuild', c, w2);
    await compareAll(p, [c]);

    const snapshot = (seq: number) => ({
      competitionId: c,
      seq,
      takenAt: `2026-01-0${seq}T00:00:00.000Z`,
      runSeq: p.sq.snapshots.runSeq(),
      document: `{"seq":${seq},"é":"\\u0000"}`,
      inputHead: '{"competition":1}\n',
      hash: `h${seq}`,
    });
    await both(p, 'snapshots.insert', snapshot(1));
    await both(p, 'snapshots.insert', snapshot(2));
    await both(p, 'snapshots.insert', snapshot(2));
    await both(p, 'nonces.remember', 'pk1', 'u1', 1000);
    await both(p, 'nonces.remember', 'pk1', 'u1', 1000);
    await both(p, 'nonces.remember', 'pk1', 'u2', 3000);
    await both(p, 'nonces.prune', 2000);
    await both(p, 'nonces.remember', 'pk1', 'u1', 5000);

    // A rubric change on a task with runs is SQLite's 409, and changes nothing on either engine.
    await both(p, 'tasks.upsertMany', c, [qnaTask('fresh', 1), { ...qnaTask('q.1', 1, 2) }]);
    await compareAll(p, [c, 'c2']);
  });
});
