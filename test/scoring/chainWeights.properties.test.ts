import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emitWeights, U16_MAX } from '../../src/scoring/emitWeights.js';
import { chainWeights } from '../../src/scoring/chainWeights.js';

const RUNS = { numRuns: 300 };

/** The SDK's `convert_weight_uids_and_vals_to_tensor`: each integer at its uid, divided by their sum. */
function readBack(uids: number[], weights: number[]): Map<number, number> {
  let sum = 0;
  for (const w of weights) sum += w;
  return new Map(uids.map((u, i) => [u, sum > 0 ? weights[i]! / sum : 0]));
}

const floatsArb = fc
  .uniqueArray(
    fc.record({
      uid: fc.integer({ min: 0, max: U16_MAX }),
      w: fc.oneof(
        fc.constant(0),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1e-9, max: 1e-3, noNaN: true }),
      ),
    }),
    { selector: (e) => e.uid, minLength: 1, maxLength: 300 },
  )
  .map((list) => new Map(list.map((e) => [e.uid, e.w])));

describe('weights on chain, properties (SPEC 11)', () => {
  it('read back as the SDK does, the integers give each float (normalised to sum 1) within (uids + 1) / 65535', () => {
    fc.assert(
      fc.property(floatsArb, (floats) => {
        let sum = 0;
        for (const w of floats.values()) sum += w;
        const { uids, weights } = emitWeights(floats);
        if (sum === 0) {
          expect(uids).toEqual([]);
          return;
        }
        const back = readBack(uids, weights);
        const bound = (floats.size + 1) / U16_MAX;
        for (const [uid, w] of floats) expect(Math.abs((back.get(uid) ?? 0) - w / sum)).toBeLessThanOrEqual(bound);
      }),
      RUNS,
    );
  });

  it('every integer is in 1..65535, uids strictly ascending, and the largest float gets 65535', () => {
    fc.assert(
      fc.property(floatsArb, (floats) => {
        const { uids, weights } = emitWeights(floats);
        for (let i = 1; i < uids.length; i++) expect(uids[i]!).toBeGreaterThan(uids[i - 1]!);
        for (const w of weights) expect(Number.isInteger(w) && w >= 1 && w <= U16_MAX).toBe(true);
        if (weights.length > 0) expect(Math.max(...weights)).toBe(U16_MAX);
      }),
      RUNS,
    );
  });

  it('the integer vector is a fixed point: the SDK converting it again (as set_weights does) gives it back', () => {
    fc.assert(
      fc.property(floatsArb, (floats) => {
        const once = emitWeights(floats);
        const again = emitWeights(new Map(once.uids.map((uid, i) => [uid, once.weights[i]!])));
        expect(again).toEqual(once);
      }),
      RUNS,
    );
  });

  it('the floats of chainWeights sum to the final weights plus the burn, whoever is registered', () => {
    const arb = fc.record({
      incs: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), {
        maxKeys: 20,
      }),
      registered: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
      burn: fc.double({ min: 0, max: 1, noNaN: true }),
      burnUid: fc.integer({ min: 0, max: 30 }),
    });
    fc.assert(
      fc.property(arb, ({ incs, registered, burn, burnUid }) => {
        const hotkeys = Object.keys(incs);
        const neurons = hotkeys.flatMap((hotkey, i) => (registered[i] ? [{ uid: i + 1, hotkey }] : []));
        const w = chainWeights(incs, burn, neurons, burnUid);
        let expected = burn;
        for (const h of hotkeys) expected += incs[h]!;
        let got = 0;
        for (const f of w.floats.values()) got += f;
        expect(Math.abs(got - expected)).toBeLessThanOrEqual(1e-9);
        expect(w.unregistered.map((u) => u.hotkey).sort()).toEqual(hotkeys.filter((_, i) => !registered[i]).sort());
      }),
      RUNS,
    );
  });
});
