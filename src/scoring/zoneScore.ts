import { clamp } from './clamp.js';
import type { Pool, Zone } from './types.js';

/**
 * SPEC 4, the "case" columns. A hard task (x ≤ 1) is excluded when the miner never solved it,
 * maintain when it matches a lone baseline success, bonus otherwise. A standard task (x ≥ 2)
 * is penalty below the threshold t, maintain from t up to x, bonus above x.
 */
export function taskZone(x: number, y: number, t: number): Zone {
  if (x <= 1) return y <= 0 ? 'excluded' : x === 1 && y === 1 ? 'maintain' : 'bonus';
  return y < t ? 'penalty' : y <= x ? 'maintain' : 'bonus';
}

/** SPEC 4 pools: hard tasks feed the hard boost, standard tasks the main score. */
export function taskPool(zone: Zone, x: number): Pool {
  return zone === 'excluded' ? 'excluded' : x <= 1 ? 'hard_boost' : 'main';
}

/**
 * SPEC 4, the "score" columns. Maintain keeps the compression term r. Bonus adds the share of
 * the runs the miner solved beyond the baseline, clamped to [−2, 3]; n − x > 0 there because
 * n ≥ y > x or x = 0 < 1 ≤ n. Penalty falls linearly from −2 to −4 as y drops from t to 0.
 * An excluded task has no score.
 */
export function zoneScore(zone: Zone, x: number, y: number, n: number, t: number, r: number): number | null {
  switch (zone) {
    case 'maintain':
      return r;
    case 'bonus':
      return clamp(r + (y - x) / (n - x), -2, 3);
    case 'penalty':
      return clamp(-2 - 2 * (1 - y / t), -4, -2);
    default:
      return null;
  }
}
