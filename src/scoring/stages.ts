import { STAGES } from './types.js';
import type { Stage } from './types.js';

/** SPEC 8: a competition's final stages unless it sets its own (screener 1 only gates entry). */
export const DEFAULT_FINAL_STAGES: readonly Stage[] = Object.freeze(['screener_2', 'evaluation']);

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && (STAGES as readonly string[]).includes(value);
}

/**
 * A stage set in canonical form: trimmed, lower-cased, deduplicated, in the fixed order
 * screener_1, screener_2, evaluation, so equal sets compare and cache equal. Null when any
 * entry is not a stage, for the caller to reject rather than silently drop.
 */
export function normalizeStages(values: readonly string[]): Stage[] | null {
  const wanted = new Set<string>();
  for (const value of values) {
    const stage = value.trim().toLowerCase();
    if (!isStage(stage)) return null;
    wanted.add(stage);
  }
  return STAGES.filter((s) => wanted.has(s));
}

/**
 * Reads a `?stages=a,b` value (SPEC 8): absent or blank means `fallback`, the competition's
 * final stages. Empty items between commas are ignored; an unknown stage gives null.
 */
export function parseStages(
  query: string | null | undefined,
  fallback: readonly Stage[] = DEFAULT_FINAL_STAGES,
): Stage[] | null {
  const items = (query ?? '').split(',').filter((s) => s.trim() !== '');
  return normalizeStages(items.length > 0 ? items : fallback);
}

/** SPEC 8: only tasks in the chosen stages enter sections 3 to 6. */
export function tasksInStages<T extends { stage: Stage }>(tasks: readonly T[], stages: readonly Stage[]): T[] {
  const chosen = new Set<Stage>(stages);
  return tasks.filter((task) => chosen.has(task.stage));
}
