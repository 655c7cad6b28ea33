// The stage set of a score read, kept in the URL as `stages=screener_2,evaluation`; absent means
// the competition's final stages.
import type { Stage } from './api.js';

export const STAGES: Stage[] = ['screener_1', 'screener_2', 'evaluation'];

export function parseStages(param: string | null): Stage[] | null {
  if (!param) return null;
  const picked = STAGES.filter((s) => param.split(',').includes(s));
  return picked.length > 0 ? picked : null;
}

/** The URL value for a set: null when it is the default one. */
export function stagesParam(stages: Stage[], finals: Stage[]): string | null {
  const same = stages.length === finals.length && stages.every((s) => finals.includes(s));
  return same ? null : STAGES.filter((s) => stages.includes(s)).join(',');
}
