// An input document carrying a metagraph (SPEC 11): scoring it gives the weights on chain too; a
// document without one reads and scores as before; a metagraph that repeats a uid or a hotkey, or
// names a hotkey whose ss58 checksum fails, is refused naming the line and the neuron.
import { describe, expect, it } from 'vitest';
import { parseDocument, serializeDocument } from '../../src/snapshots/inputDocument.js';
import type { InputDocument } from '../../src/snapshots/inputSchemas.js';
import { metagraphDigest, normalizeMetagraph } from '../../src/snapshots/metagraph.js';
import { scoreDocument } from '../../src/snapshots/scoreDocument.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { sample } from './sample.js';

const OWNER = encodeSs58(new Uint8Array(32).fill(1));
const M1 = encodeSs58(new Uint8Array(32).fill(2));
const metagraph = normalizeMetagraph({
  netuid: 3,
  block: 10,
  neurons: [
    { uid: 5, hotkey: M1 },
    { uid: 0, hotkey: OWNER },
  ],
});
const withMiner = (doc: InputDocument, from: string, to: string): InputDocument => ({
  competition: { ...doc.competition, miners: doc.competition.miners.map((m) => (m === from ? to : m)) },
  tasks: doc.tasks,
  runs: doc.runs.map((r) => (r.minerHotkey === from ? { ...r, minerHotkey: to } : r)),
});

describe('input documents with a metagraph', () => {
  it('scoring gives the weights on chain under the metagraph it carries', () => {
    const doc = withMiner(sample, 'm1', M1);
    doc.competition.metagraph = metagraph;
    const text = serializeDocument(doc);
    expect(text.split('\n')[0]).toContain('"metagraph":{');
    const { chain, weights } = scoreDocument(parseDocument(text));
    expect(chain).toMatchObject({ netuid: 3, block: 10, burnUid: 0, metagraphDigest: metagraphDigest(metagraph) });
    expect(chain?.floats).toEqual({ 0: weights.burnWeight, 5: weights.finalWeights[M1] });
    expect(chain?.uids).toEqual([0, 5]);
  });

  it('a document without a metagraph has no metagraph member and scores no weights on chain', () => {
    const text = serializeDocument(sample);
    expect(text).not.toContain('metagraph');
    expect(scoreDocument(parseDocument(text))).not.toHaveProperty('chain');
  });

  it.each([
    [
      'a uid twice',
      [
        { uid: 1, hotkey: OWNER, validator: false },
        { uid: 1, hotkey: M1, validator: false },
      ],
      'neurons.1.uid',
    ],
    [
      'a hotkey twice',
      [
        { uid: 1, hotkey: OWNER, validator: false },
        { uid: 2, hotkey: OWNER, validator: false },
      ],
      'neurons.1.hotkey',
    ],
    [
      'a bad checksum',
      [{ uid: 1, hotkey: `${OWNER.slice(0, -1)}${OWNER.endsWith('a') ? 'b' : 'a'}`, validator: false }],
      'neurons.0.hotkey',
    ],
  ])('%s: refused on line 1, naming the neuron', (_name, neurons, field) => {
    const doc: InputDocument = {
      ...sample,
      competition: { ...sample.competition, metagraph: { ...metagraph, neurons } },
    };
    expect(() => parseDocument(serializeDocument(doc))).toThrow(`line 1: competition.metagraph.${field}: `);
  });
});
