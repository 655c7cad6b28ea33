// Weights on chain (SPEC 11, API 1.2): the metagraph PUT and GET, GET …/weights/chain, and
// snapshots that carry both. A hotkey deregisters and its uid goes to a new hotkey between two
// metagraph versions: the old miner's weight is burned to burnUid, the new hotkey gets nothing
// until it has runs; a snapshot before and after both verify from their inputs.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { verifySnapshot } from '../../src/snapshots/verifySnapshot.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { emitWeights } from '../../src/scoring/emitWeights.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

const hotkey = (n: number) => encodeSs58(new Uint8Array(32).fill(n));
const OWNER = hotkey(1);
const OLD = hotkey(2);
const WINNER = hotkey(3);
const NEW = hotkey(4);
const VALIDATOR = hotkey(5);
const IDLE = hotkey(6);

const TASKS = [
  { id: 'a', type: 'swebench_verified', complexity: 'short' },
  { id: 'b', type: 'swebench_verified', complexity: 'long' },
];

let t: TestApp;
beforeEach(async () => {
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'Chain', burnRatio: 0.1 });
  const tasks = await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: TASKS },
  });
  expect(tasks.status).toBe(200);
});
afterEach(async () => {
  await t.close();
});

let nextRun = 0;
async function runs(list: [task: string, miner: string | null, resolved: boolean][]) {
  const payload = {
    runs: list.map(([taskId, miner, resolved]) => ({
      runId: `r${nextRun++}`,
      taskId,
      resolved,
      tokens: { input: 1000, output: 100 },
      ...(miner ? { kind: 'miner', minerHotkey: miner } : { kind: 'baseline' }),
    })),
  };
  const res = await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload });
  expect(res.status).toBe(200);
}

const putMetagraph = (payload: Record<string, unknown>) =>
  t.call({ method: 'PUT', url: '/v1/competitions/c/metagraph', headers: admin, payload });
const chain = () => t.call({ method: 'GET', url: '/v1/competitions/c/weights/chain' });

const FIRST = {
  netuid: 7,
  block: 1000,
  neurons: [
    { uid: 0, hotkey: OWNER },
    { uid: 2, hotkey: OLD },
    { uid: 1, hotkey: WINNER },
    { uid: 3, hotkey: VALIDATOR, validator: true },
    { uid: 4, hotkey: IDLE },
  ],
  versionKey: 3,
};

async function snapshot() {
  const res = await t.app.inject({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  expect(res.statusCode).toBe(201);
  const seq = (JSON.parse(res.body) as { seq: number }).seq;
  const input = (await t.app.inject({ method: 'GET', url: `/v1/competitions/c/snapshots/${seq}/input` })).body;
  return { document: res.body, input };
}

async function verified(taken: { document: string; input: string }, previous?: { document: string }) {
  const publicKeyPem = (await t.call({ method: 'GET', url: '/v1/identity' })).body.publicKey as string;
  return verifySnapshot({
    snapshot: taken.document,
    input: taken.input,
    publicKeyPem,
    ...(previous ? { previousSnapshot: previous.document } : {}),
  });
}

describe('weights on chain', () => {
  it('a deregistered miner’s weight is burned; the hotkey that takes its uid gets nothing until it has runs; snapshots before and after verify', async () => {
    await runs([
      ['a', null, false],
      ['b', null, false],
      ['a', WINNER, true],
      ['b', OLD, true],
    ]);
    expect((await chain()).status).toBe(409);
    const before0 = await snapshot();

    const first = await putMetagraph(FIRST);
    expect(first.status).toBe(200);
    const weights = (await t.call({ method: 'GET', url: '/v1/competitions/c/weights' })).body;
    const { finalWeights, burnWeight } = weights as { finalWeights: Record<string, number>; burnWeight: number };
    expect(finalWeights[OLD]).toBeGreaterThan(0);
    expect(finalWeights[WINNER]).toBeGreaterThan(0);

    const one = (await chain()).body;
    expect(one).toMatchObject({ netuid: 7, block: 1000, versionKey: 3, burnUid: 0, unregistered: [], limits: null });
    expect(one.floats).toEqual({ 0: burnWeight, 1: finalWeights[WINNER], 2: finalWeights[OLD] });
    expect({ uids: one.uids, weights: one.weights }).toEqual(
      emitWeights(
        new Map([
          [0, burnWeight],
          [1, finalWeights[WINNER]!],
          [2, finalWeights[OLD]!],
        ]),
      ),
    );
    expect(one.awaitingRuns).toEqual([{ uid: 4, hotkey: IDLE }]);
    expect(one.metagraphDigest).toBe(first.body.digest);
    const before = await snapshot();

    // OLD deregisters; NEW takes uid 2.
    const second = await putMetagraph({
      ...FIRST,
      block: 2000,
      neurons: FIRST.neurons.map((n) => (n.hotkey === OLD ? { uid: 2, hotkey: NEW } : n)),
    });
    expect(second.body.version).toBe(2);
    const two = (await chain()).body;
    expect(two.unregistered).toEqual([{ hotkey: OLD, weight: finalWeights[OLD] }]);
    expect(two.floats).toEqual({ 0: burnWeight + finalWeights[OLD]!, 1: finalWeights[WINNER] });
    expect(two.uids).toEqual([0, 1]);
    expect(two.awaitingRuns).toEqual([
      { uid: 2, hotkey: NEW },
      { uid: 4, hotkey: IDLE },
    ]);
    const after = await snapshot();

    for (const [taken, previous] of [
      [before0, undefined],
      [before, before0],
      [after, before],
    ] as const) {
      const result = await verified(taken, previous);
      expect(result.checks.filter((c) => c.ok === false)).toEqual([]);
    }
    expect((await verified(before0)).checks.find((c) => c.name === 'onChain')?.ok).toBeNull();
    expect((await verified(after)).checks.find((c) => c.name === 'onChain')?.ok).toBe(true);
    expect(JSON.parse(after.document)).toMatchObject({ chain: two, metagraphDigest: second.body.digest });
    expect(after.input.split('\n')[0]).toContain('"metagraph":');

    // NEW's first win puts it at uid 2.
    await runs([['b', NEW, true]]);
    const three = (await chain()).body;
    expect(three.uids).toContain(2);
    expect(three.floats[2]).toBeGreaterThan(0);
  });

  it('verify names the first uid whose integer differs', async () => {
    await runs([
      ['a', null, false],
      ['a', WINNER, true],
    ]);
    await putMetagraph(FIRST);
    const taken = await snapshot();
    const doc = JSON.parse(taken.document) as { chain: { weights: number[] } };
    doc.chain.weights[1] = 1;
    const result = await verified({ document: JSON.stringify(doc), input: taken.input });
    expect(result.checks.find((c) => c.name === 'onChain')?.message).toMatch(
      /^uid 1: weight 1 in the snapshot, 65535 rescored/,
    );
  });

  it('a competition that does not exist: 404 for the metagraph, its PUT and the weights on chain', async () => {
    const put = await t.call({ method: 'PUT', url: '/v1/competitions/nope/metagraph', headers: admin, payload: FIRST });
    expect(put.status).toBe(404);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/nope/metagraph' })).status).toBe(404);
    expect((await t.call({ method: 'GET', url: '/v1/competitions/nope/weights/chain' })).status).toBe(404);
  });

  it('GET metagraph gives the one in force with its digest over canonical JSON; every change is audited', async () => {
    expect((await t.call({ method: 'GET', url: '/v1/competitions/c/metagraph' })).status).toBe(404);
    await putMetagraph(FIRST);
    const got = (await t.call({ method: 'GET', url: '/v1/competitions/c/metagraph' })).body;
    const { competitionId: _c, version, recordedAt: _r, digest, ...metagraph } = got;
    expect(version).toBe(1);
    expect(metagraph.neurons.map((n: { uid: number }) => n.uid)).toEqual([0, 1, 2, 3, 4]);
    expect(metagraph).toMatchObject({ burnUid: 0, maxWeightLimit: null, minAllowedWeights: null });
    expect(digest).toBe(createHash('sha256').update(canonicalJson(metagraph)).digest('hex'));
    // The one in force sent again (PUT is idempotent) records no version and no audit entry.
    expect((await putMetagraph(FIRST)).body).toMatchObject({ version: 1, digest });
    const audit = (await t.call({ method: 'GET', url: '/v1/audit?competition=c', headers: admin })).body;
    const actions = audit.entries.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === 'metagraph.record')).toHaveLength(1);
  });

  it.each([
    [
      'a uid twice',
      [
        { uid: 1, hotkey: OWNER },
        { uid: 1, hotkey: OLD },
      ],
      'body/neurons/1/uid',
    ],
    [
      'a hotkey twice',
      [
        { uid: 1, hotkey: OWNER },
        { uid: 2, hotkey: OWNER },
      ],
      'body/neurons/1/hotkey',
    ],
    [
      'a broken checksum',
      [
        { uid: 1, hotkey: OWNER },
        { uid: 2, hotkey: `${OLD.slice(0, -1)}${OLD.endsWith('a') ? 'b' : 'a'}` },
      ],
      'body/neurons/1/hotkey',
    ],
    ['a uid past 65535', [{ uid: 65536, hotkey: OWNER }], 'body/neurons/0/uid'],
    // Another network's format (Polkadot's prefix 0, Kusama's 2): it would match no miner's runs.
    [
      'an address of another network',
      [
        { uid: 1, hotkey: OWNER },
        { uid: 2, hotkey: encodeSs58(new Uint8Array(32).fill(77), 0) },
      ],
      'body/neurons/1/hotkey',
    ],
    [
      'one key twice, in two networks’ formats',
      [
        { uid: 1, hotkey: hotkey(78) },
        { uid: 2, hotkey: encodeSs58(new Uint8Array(32).fill(78), 2) },
      ],
      'body/neurons/1/hotkey',
    ],
  ])('%s: 400 naming the neuron by index, nothing stored', async (_name, neurons, path) => {
    const res = await putMetagraph({ netuid: 1, block: 1, neurons });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await t.count('metagraphs')).toBe(0);
  });

  it('the limits are reported when recorded, never applied', async () => {
    await runs([
      ['a', null, false],
      ['a', WINNER, true],
    ]);
    await putMetagraph({ ...FIRST, maxWeightLimit: 0.5, minAllowedWeights: 8 });
    const body = (await chain()).body;
    expect(body.limits).toEqual({ maxWeightLimitMet: false, minAllowedWeightsMet: false });
    expect(body.uids).toEqual([0, 1]);
  });

  it('served like every score read: strong ETag, 304, a new ETag once a metagraph is recorded', async () => {
    await runs([
      ['a', null, false],
      ['a', WINNER, true],
    ]);
    await putMetagraph(FIRST);
    const first = await chain();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/v1/competitions/c/weights/chain',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    await putMetagraph({ ...FIRST, block: 1001 });
    const changed = await chain();
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.body.block).toBe(1001);
  });
});
