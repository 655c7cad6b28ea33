import { describe, expect, it } from 'vitest';
import { layers } from '../../src/scoring/layers.js';

const shape = (groups: string[]) =>
  layers(groups).map((l) => ({ size: l.subsetSize, subsets: l.subsets.map((s) => s.join('+')) }));

describe('layers (SPEC 6)', () => {
  it('three groups: one triple, three pairs, three singles, in the order short, medium, long', () => {
    expect(shape(['short', 'medium', 'long'])).toEqual([
      { size: 3, subsets: ['short+medium+long'] },
      { size: 2, subsets: ['short+medium', 'short+long', 'medium+long'] },
      { size: 1, subsets: ['short', 'medium', 'long'] },
    ]);
  });

  it('three groups give layer weights 0.25, 0.45, 0.30 and element weights 0.25, 0.15, 0.10', () => {
    const [triple, pairs, singles] = layers(['short', 'medium', 'long']);
    expect(triple?.layerWeight).toBeCloseTo(0.25, 12);
    expect(pairs?.layerWeight).toBeCloseTo(0.45, 12);
    expect(singles?.layerWeight).toBeCloseTo(0.3, 12);
    expect(triple?.elementWeight).toBeCloseTo(0.25, 12);
    expect(pairs?.elementWeight).toBeCloseTo(0.15, 12);
    expect(singles?.elementWeight).toBeCloseTo(0.1, 12);
  });

  it('two groups renormalize to layer weights 0.6 and 0.4 (0.45/0.75, 0.30/0.75)', () => {
    const [pair, singles] = layers(['short', 'long']);
    expect(shape(['short', 'long'])).toEqual([
      { size: 2, subsets: ['short+long'] },
      { size: 1, subsets: ['short', 'long'] },
    ]);
    expect(pair?.layerWeight).toBeCloseTo(0.6, 12);
    expect(pair?.elementWeight).toBeCloseTo(0.6, 12);
    expect(singles?.layerWeight).toBeCloseTo(0.4, 12);
    expect(singles?.elementWeight).toBeCloseTo(0.2, 12);
  });

  it('one group is one element worth everything', () => {
    expect(layers(['medium'])).toEqual([{ subsetSize: 1, layerWeight: 1, elementWeight: 1, subsets: [['medium']] }]);
  });

  it('no group present gives the single `overall` element (SPEC 6 choice)', () => {
    expect(layers([])).toEqual([{ subsetSize: 1, layerWeight: 1, elementWeight: 1, subsets: [['overall']] }]);
  });

  it('element weights of every layer set sum to 1', () => {
    for (const groups of [['short'], ['short', 'medium'], ['short', 'medium', 'long']]) {
      const total = layers(groups).reduce((sum, l) => sum + l.elementWeight * l.subsets.length, 0);
      expect(total).toBeCloseTo(1, 12);
    }
  });
});
