// Response bodies serialized from kept scores, once per scores and key. The leaderboard's
// neighbours every dashboard reads (weights, weights on chain) are kept as long as their scores;
// miner, task, validators and coverage bodies within a byte budget over every competition
// (../recentBodies.ts). A write drops them with their scores (./cache.ts `onDrop`).
import { jsonBody, type Body } from '../body.js';
import { recentBodies } from '../recentBodies.js';
import type { Maybe, Settled } from '../settled.js';
import { entryOf, type ScoreCache, type Scored } from './cache.js';

/**
 * Bytes of miner, task and validators bodies kept over every competition (../recentBodies.ts);
 * the leaderboard and weights, which every dashboard reads, are always kept.
 */
const KEPT_BODY_BYTES = 8 * 1024 * 1024;

export function keptBodies(cache: ScoreCache) {
  const recent = recentBodies<Settled<Body>>(KEPT_BODY_BYTES);
  cache.onDrop((competitionId) => recent.drop(competitionId));

  /** A body built once per scores; `kept: 'always'` for the few every dashboard reads, else within the byte budget. */
  return function cached(
    s: Scored,
    key: string,
    build: () => unknown,
    kept: 'always' | 'recent' = 'recent',
  ): Maybe<Body> {
    let body = s.bodies.get(key);
    if (body) recent.touch(body);
    else {
      const made = entryOf(
        Promise.resolve(build()).then((value) => jsonBody(value)),
        () => {
          if (s.bodies.get(key) === made) s.bodies.delete(key);
        },
      );
      s.bodies.set(key, (body = made));
      if (kept === 'recent')
        void made.promise.then(
          (b) => recent.add(s.competition.id, s.bodies, key, made, b),
          () => {},
        );
    }
    return body.get();
  };
}
