import { ascending } from './ascending.js';
import { clamp } from './clamp.js';
import { contestScore } from './contestScore.js';
import { layers } from './layers.js';
import { COMPLEXITIES } from './types.js';
import type { Contestant, Layer, WeightsResult } from './types.js';
import { winners, type ContestEntry } from './winners.js';

/**
 * SPEC 6 incentive weights for the participating (non-excluded) miners.
 *
 * Groups present are those where some miner has a group score (choice: nobody can win a group
 * nobody has scored in). W(m) sums the shares of the elements m won, tied winners splitting
 * equally; INC(m) = W(m)/ΣW·(1 − burnRatio), so the weight of an element nobody competed for
 * is shared out, not burned. Burn weight is 1 − ΣINC, exactly 1 when nobody won.
 * Miners without a score take part in nothing and are left out of both weight maps.
 */
export function incentives(contestants: readonly Contestant[], burnRatio: number): WeightsResult {
  const field = contestants
    .filter((c) => c.normalizedScore !== null && Number.isFinite(c.normalizedScore))
    .sort((a, b) => ascending(a.hotkey, b.hotkey));
  const groups = COMPLEXITIES.filter((g) => field.some((c) => c.groupScores[g] !== undefined));
  const raw = new Map<string, number>();
  for (const c of field) raw.set(c.hotkey, 0);

  // One contest entry a miner, its score set for each element in turn, and one list of those that
  // compete: a new entry a miner and element was most of what a cold read allocated here.
  const slots: ContestEntry[] = field.map((c) => ({ hotkey: c.hotkey, score: 0 }));
  const entries: ContestEntry[] = [];
  const result: Layer[] = layers(groups).map((plan) => {
    const elements = plan.subsets.map((subset) => {
      entries.length = 0;
      for (let i = 0; i < field.length; i++) {
        const score = contestScore(field[i]!, subset);
        if (score === null || !Number.isFinite(score)) continue;
        const entry = slots[i]!;
        entry.score = score;
        entries.push(entry);
      }
      const won = winners(entries);
      const share = plan.elementWeight / won.winners.length;
      for (const hotkey of won.winners) raw.set(hotkey, (raw.get(hotkey) ?? 0) + share);
      return { subset, winners: won.winners, winningScore: won.winningScore };
    });
    const { subsetSize, layerWeight, elementWeight } = plan;
    return { subsetSize, layerWeight, elementWeight, elements };
  });

  // Map iteration follows insertion, i.e. hotkey order: every sum below is order-independent.
  let total = 0;
  raw.forEach((w) => (total += w));
  const ratio = Number.isFinite(burnRatio) ? clamp(burnRatio, 0, 1) : 0;
  // Objects without a prototype: a hotkey such as `__proto__` is a plain own key, and V8 keeps
  // such an object as a dictionary from its first key. Object.fromEntries of a thousand hotkeys
  // instead moves a literal through a thousand hidden classes: ten times the time of a cold read's
  // two maps at 1,024 miners.
  const rawWeights = Object.create(null) as Record<string, number>;
  const finalWeights = Object.create(null) as Record<string, number>;
  let paid = 0;
  raw.forEach((w, hotkey) => {
    const inc = total > 0 ? (w / total) * (1 - ratio) : 0;
    rawWeights[hotkey] = w;
    finalWeights[hotkey] = inc;
    paid += inc;
  });
  const burnWeight = total > 0 ? clamp(1 - paid, 0, 1) : 1;
  return { groups, layers: result, rawWeights, finalWeights, burnRatio: ratio, burnWeight };
}
