// `swe-scoring weights` against a listening app: the live weights on chain, a snapshot's, and the
// Python literal of set_weights' arguments, each the server's body; refusals exit 1 or 2.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { weightsCommand } from '../../src/cli/commands/weights.js';
import { CliError } from '../../src/cli/command.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { admin, seedCompetition, testApp, type TestApp } from '../support/app.js';

let t: TestApp;
let url: string;
const WINNER = encodeSs58(new Uint8Array(32).fill(3));
const OWNER = encodeSs58(new Uint8Array(32).fill(1));

beforeAll(async () => {
  t = await testApp();
  await seedCompetition(t, 'c', { name: 'Chain', burnRatio: 0.25 });
  await t.call({
    method: 'PUT',
    url: '/v1/competitions/c/tasks',
    headers: admin,
    payload: { tasks: [{ id: 'a', type: 'swebench_verified' }] },
  });
  const runs = [
    { runId: 'b', taskId: 'a', kind: 'baseline', resolved: false, tokens: { input: 10, output: 1 } },
    { runId: 'm', taskId: 'a', kind: 'miner', minerHotkey: WINNER, resolved: true, tokens: { input: 10, output: 1 } },
  ];
  await t.call({ method: 'POST', url: '/v1/competitions/c/runs', headers: admin, payload: { runs } });
  const metagraph = {
    netuid: 9,
    block: 5,
    versionKey: 2,
    neurons: [
      { uid: 0, hotkey: OWNER },
      { uid: 3, hotkey: WINNER },
    ],
  };
  await t.call({ method: 'PUT', url: '/v1/competitions/c/metagraph', headers: admin, payload: metagraph });
  await t.call({ method: 'POST', url: '/v1/competitions/c/snapshots', headers: admin, payload: {} });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

async function weights(args: string[]): Promise<string> {
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  try {
    expect(await weightsCommand.run(args)).toBe(0);
  } finally {
    spy.mockRestore();
  }
  return out.join('');
}

describe('swe-scoring weights', () => {
  it('prints the live body of GET …/weights/chain', async () => {
    const live = (await t.call({ method: 'GET', url: '/v1/competitions/c/weights/chain' })).body;
    expect(JSON.parse(await weights(['--url', url, '--competition', 'c']))).toEqual(live);
    expect(live).toMatchObject({ uids: [0, 3], weights: [21845, 65535], versionKey: 2 });
  });

  it('prints a snapshot’s weights on chain', async () => {
    const snapshot = (await t.call({ method: 'GET', url: '/v1/competitions/c/snapshots/1' })).body;
    expect(JSON.parse(await weights(['--url', url, '--competition', 'c', '--snapshot', '1']))).toEqual(snapshot.chain);
    expect(JSON.parse(await weights(['--url', `${url}/`, '--competition', 'c', '--snapshot', 'latest']))).toEqual(
      snapshot.chain,
    );
  });

  it('--format python: a dict literal of set_weights’ keyword arguments', async () => {
    const text = await weights(['--url', url, '--competition', 'c', '--format', 'python']);
    expect(text).toMatch(/^# live: competition c, stages /);
    expect(text.split('\n').slice(1).join('\n')).toBe(
      "{\n    'netuid': 9,\n    'uids': [0, 3],\n    'weights': [21845, 65535],\n    'version_key': 2,\n}\n",
    );
    // The snapshot read as `latest` is named by its number, so the output says which one it was.
    const latest = await weights(['--url', url, '--competition', 'c', '--snapshot', 'latest', '--format', 'python']);
    expect(latest).toMatch(/^# snapshot 1: competition c, stages /);
  });

  it('a refusal exits 1 with the server’s detail; wrong usage exits 2', async () => {
    const missing = weightsCommand.run(['--url', url, '--competition', 'nope']);
    await expect(missing).rejects.toThrow(/^404: competition nope does not exist/);
    await expect(weightsCommand.run(['--url', url])).rejects.toMatchObject({ exitCode: 2 });
    // No snapshot 0: wrong usage (2), as `abc` is, not the server's 400 (1).
    for (const seq of ['0', 'abc', '01'])
      await expect(weightsCommand.run(['--url', url, '--competition', 'c', '--snapshot', seq])).rejects.toMatchObject({
        exitCode: 2,
      });
    await expect(weightsCommand.run(['--url', url, '--competition', 'c', '--format', 'yaml'])).rejects.toBeInstanceOf(
      CliError,
    );
  });
});
