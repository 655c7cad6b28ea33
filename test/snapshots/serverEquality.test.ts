// Offline scoring reproduces the server bit for bit: the same competition posted over HTTP and
// written as an input document gives the same leaderboard and weights, as parsed JSON and as
// canonical bytes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testApp } from '../support/app.js';
import { canonicalJson } from '../../src/snapshots/canonicalJson.js';
import { parseDocument, serializeDocument } from '../../src/snapshots/inputDocument.js';
import { scoreDocument } from '../../src/snapshots/scoreDocument.js';
import type { InputDocument } from '../../src/snapshots/inputSchemas.js';
import { postCompetition, randomCompetition, type RandomCompetition } from './randomCompetition.js';

const C = '/v1/competitions/c';

/** The input document written from the same data, without reading the server's storage. */
function document(c: RandomCompetition): InputDocument {
  const gone = new Set(c.deleted);
  const miners = new Set([...c.runs.flatMap((r) => (r.minerHotkey ? [r.minerHotkey] : [])), ...c.excluded, ...c.idle]);
  return {
    competition: {
      id: 'c',
      tokenWeights: c.laterWeights ?? c.weights,
      burnRatio: c.burnRatio,
      judgeVotes: 5,
      finalStages: c.finalStages ?? ['screener_2', 'evaluation'],
      miners: [...miners],
      excluded: { miners: c.excluded, validators: [] },
    },
    tasks: c.tasks.map((x) => ({ ...x, type: 'swebench_verified' })),
    runs: c.runs
      .filter((r) => !gone.has(r.runId))
      .map((r) => ({
        ...r,
        tokens: r.tokens && {
          input: r.tokens.input,
          cachedInput: r.tokens.cachedInput ?? null,
          output: r.tokens.output,
        },
        validatorId: null,
      })),
  };
}

describe('offline scoring reproduces the server', () => {
  it('leaderboard and weights, bit for bit, on random competitions', async () => {
    await fc.assert(
      fc.asyncProperty(randomCompetition, async (c) => {
        const t = await testApp();
        try {
          await postCompetition(t, c);
          const query = c.askStages ? `?stages=${c.askStages.join(',')}` : '';
          // The live read adds `total` (API 1.1) to the snapshot's leaderboard shape.
          const { total, ...live } = JSON.parse((await t.app.inject({ url: `${C}/leaderboard${query}` })).body) as {
            total: number;
            miners: unknown[];
          };
          expect(total).toBe(live.miners.length);
          const server = {
            leaderboard: live as unknown,
            weights: JSON.parse((await t.app.inject({ url: `${C}/weights${query}` })).body) as unknown,
          };
          const offline = scoreDocument(parseDocument(serializeDocument(document(c))), c.askStages ?? undefined);
          expect(offline).toEqual(server);
          expect(canonicalJson(offline)).toBe(canonicalJson(server));
        } finally {
          await t.close();
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
