// The server against an independent reading of SPEC 2-6, 10, 11 and 13 (./specOracle.ts,
// ./specOracleCheck.ts) on small random competitions built to hit the edges: tasks with no baseline
// or only failed ones, groups nobody scores in, twin miners (exact ties), null and zero token
// counts, plannedRuns, two validators, a metagraph with unregistered miners and a miner at burnUid.
// After every write (runs, deletions, excluded miners and validators, re-tagged tasks, a new burn
// ratio, new token weights, a new metagraph) the leaderboard, weights, chain vector, coverage and
// agreement of two stage sets are compared with the oracle's, through the real app; at the end a
// snapshot verifies. ORACLE_SEEDS=300 runs more seeds.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';
import { prng } from '../support/prng.js';
import { check, randomTask, randomTokens, type State, type Stored } from './specOracleCheck.js';

const hk = (n: number) => encodeSs58(new Uint8Array(32).fill(n));

let t: TestApp;
afterEach(async () => t?.close());

async function competition(seed: number) {
  const rng = prng(seed);
  t = await testApp();
  const burnRatio = rng.pick([0, 0, 0.1, 0.5]);
  const { validatorKey } = await seedCompetition(t, 'c', { name: 'Oracle', burnRatio });
  const second = await t.call({ method: 'POST', url: '/v1/validators', headers: admin, payload: { name: 'v2' } });
  const keys = [validatorKey, second.body.apiKey as string];
  const ids = [
    (await t.call({ method: 'GET', url: '/v1/validators', headers: admin })).body.validators.find(
      (v: { name: string }) => v.name === 'validator',
    ).id as string,
    second.body.id as string,
  ];
  const state: State = {
    runs: [],
    tasks: Array.from({ length: rng.int(3, 8) }, (_, i) => randomTask(rng, `t${i}`)),
    excluded: new Set(),
    offValidators: new Set(),
    burnRatio,
    w: { input: 1, cachedInput: 0.1, output: 3 },
    mg: { neurons: [], burnUid: 0 },
    validatorIds: ids,
  };
  const { tasks, runs } = state;
  const putTasks = async () =>
    expect(
      (
        await t.call({
          method: 'PUT',
          url: '/v1/competitions/c/tasks',
          headers: admin,
          payload: { tasks: tasks.map((x) => ({ ...x, type: 'swebench_verified' })) },
        })
      ).status,
    ).toBe(200);
  await putTasks();
  const miners = Array.from({ length: rng.int(3, 7) }, (_, i) => hk(10 + i));
  let next = 0;
  const batch = (): Stored[] => {
    const out: Stored[] = [];
    const twin = rng.chance(0.4) ? miners.slice(0, 2) : null;
    const by = () => (rng.chance(0.3) ? 1 : 0);
    for (const task of tasks) {
      if (!rng.chance(0.15))
        for (let i = rng.int(0, 5); i > 0; i--)
          out.push({
            runId: `r${next++}`,
            by: by(),
            taskId: task.id,
            hotkey: null,
            resolved: rng.chance(0.6),
            tokens: randomTokens(rng),
          });
      for (const m of miners) {
        if (twin && m === twin[1]) continue;
        for (let i = rng.int(0, 4); i > 0; i--) {
          const run = {
            runId: `r${next++}`,
            by: by(),
            taskId: task.id,
            hotkey: m,
            resolved: rng.chance(0.6),
            tokens: randomTokens(rng),
          };
          out.push(run);
          // The twin runs exactly as its model, through the same validator: their scores tie.
          if (twin && m === twin[0]) out.push({ ...run, runId: `r${next++}`, hotkey: twin[1]! });
        }
      }
    }
    return out;
  };
  const post = async (list: Stored[]) => {
    for (const v of [0, 1]) {
      const mine = list.filter((r) => r.by === v);
      if (mine.length === 0) continue;
      const payload = {
        runs: mine.map((r) => ({
          runId: r.runId,
          taskId: r.taskId,
          resolved: r.resolved,
          tokens: r.tokens,
          ...(r.hotkey ? { kind: 'miner', minerHotkey: r.hotkey } : { kind: 'baseline' }),
        })),
      };
      const headers = { authorization: `Bearer ${keys[v]}` };
      const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers, payload });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    runs.push(...list);
  };
  const putMetagraph = async () => {
    const registered = [...miners, hk(30)].filter(() => rng.chance(0.7));
    const neurons = registered.map((hotkey, i) => ({ uid: 3 * i + rng.int(0, 2), hotkey }));
    const burnUid = rng.chance(0.3) && neurons.length > 0 ? neurons[0]!.uid : 40;
    const mg = await t.call({
      method: 'PUT',
      url: '/v1/competitions/c/metagraph',
      headers: admin,
      payload: {
        netuid: 1,
        block: 1 + next,
        neurons: [...neurons, { uid: 50, hotkey: hk(99), validator: true }],
        burnUid,
      },
    });
    expect(mg.status, JSON.stringify(mg.body)).toBe(200);
    state.mg = { neurons, burnUid };
  };
  await post(batch());
  await putMetagraph();
  await check(t, `seed ${seed} start`, state);

  for (let step = 0; step < 10; step++) {
    const op = rng.int(0, 8);
    let label = `seed ${seed} step ${step}`;
    if (op === 0 && runs.length > 0) {
      const [gone] = runs.splice(rng.below(runs.length), 1);
      label += ` delete ${gone!.runId}`;
      expect(
        (await t.call({ method: 'DELETE', url: `/v1/competitions/c/runs/${gone!.runId}`, headers: admin })).status,
      ).toBe(200);
    } else if (op === 1) {
      const m = rng.pick(miners);
      const on = !state.excluded.has(m);
      label += ` ${on ? 'exclude' : 'include'} ${m}`;
      if (on) state.excluded.add(m);
      else state.excluded.delete(m);
      const res = await t.call({
        method: 'PUT',
        url: `/v1/competitions/c/miners/${m}`,
        headers: admin,
        payload: { excluded: on },
      });
      expect([200, 201]).toContain(res.status);
    } else if (op === 2) {
      const i = rng.below(tasks.length);
      tasks[i] = randomTask(rng, tasks[i]!.id);
      label += ` retag ${JSON.stringify(tasks[i])}`;
      await putTasks();
    } else if (op === 3) {
      state.burnRatio = rng.pick([0, 0.25, 1]);
      label += ` burnRatio ${state.burnRatio}`;
      expect(
        (
          await t.call({
            method: 'PUT',
            url: '/v1/competitions/c',
            headers: admin,
            payload: { name: 'Oracle', burnRatio: state.burnRatio },
          })
        ).status,
      ).toBe(200);
    } else if (op === 4) {
      const v = rng.below(2);
      const on = !state.offValidators.has(v);
      label += ` ${on ? 'exclude' : 'include'} validator ${v}`;
      if (on) state.offValidators.add(v);
      else state.offValidators.delete(v);
      const res = await t.call({
        method: 'PUT',
        url: `/v1/competitions/c/validators/${ids[v]}`,
        headers: admin,
        payload: { excluded: on },
      });
      expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
    } else if (op === 5) {
      state.w = rng.pick([
        { input: 1, cachedInput: 0.1, output: 3 },
        { input: 0, cachedInput: 0, output: 1 },
        { input: 2, cachedInput: 0, output: 0 },
        { input: 0, cachedInput: 0, output: 0 },
      ]);
      label += ` tokenWeights ${JSON.stringify(state.w)}`;
      const res = await t.call({
        method: 'PUT',
        url: '/v1/competitions/c',
        headers: admin,
        payload: { name: 'Oracle', tokenWeights: state.w },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } else if (op === 6) {
      label += ' new metagraph';
      await putMetagraph();
    } else {
      label += ' more runs';
      await post(batch().slice(0, rng.int(1, 12)));
    }
    await check(t, label, state);
  }
  // What was read live, a snapshot proves offline: its input rescored gives its bodies exactly.
  const taken = await t.app.inject({
    method: 'POST',
    url: '/v1/competitions/c/snapshots',
    headers: admin,
    payload: {},
  });
  expect(taken.statusCode).toBe(201);
  const seq = (JSON.parse(taken.body) as { seq: number }).seq;
  const input = (await t.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${seq}/input` })).body;
  const publicKeyPem = (await t.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
  const result = verifySnapshot({ snapshot: taken.body, input, publicKeyPem });
  expect(
    result.checks.filter((c) => c.ok === false),
    `seed ${seed} snapshot`,
  ).toEqual([]);
  const snap = JSON.parse(taken.body) as { chain: { uids: number[] }; weights: { burnWeight: number } };
  const live = (await t.call({ method: 'GET', url: '/v1/competitions/c/weights/chain' })).body;
  expect(snap.chain.uids).toEqual(live.uids);
}

describe('the server against an independent reading of SPEC', () => {
  for (let seed = 1; seed <= Number(process.env.ORACLE_SEEDS ?? 12); seed++)
    it(`random competition, seed ${seed}`, () => competition(seed), 60_000);
});
