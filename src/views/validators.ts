// The per-validator table of a competition (API.md 1.1, SPEC 10): activity and agreement.
import { agreement, resolveRate, type ValidatorPairRuns } from '../scoring/index.js';
import type { Stage } from '../scoring/types.js';
import type { Liveness } from '../services/liveness.js';

export interface ValidatorInfo {
  id: string;
  name: string;
  hotkey: string | null;
}

export type ValidatorsTable = ReturnType<typeof validatorsBody>;

/** The table with each validator's liveness now (SPEC 13); a validator with no record shows none. */
export function withLiveness(table: ValidatorsTable, live: ReadonlyMap<string, Liveness>) {
  const none: Liveness = { lastSeen: null, version: null, silent: true };
  return { ...table, validators: table.validators.map((v) => ({ ...v, ...(live.get(v.id) ?? none) })) };
}

export function validatorsBody(
  competitionId: string,
  stages: Stage[],
  rows: readonly ValidatorPairRuns[],
  known: ReadonlyMap<string, ValidatorInfo>,
  excluded: ReadonlySet<string>,
) {
  const agreements = agreement(rows, excluded);
  const activity = new Map<
    string,
    { runs: number; baselineRuns: number; resolved: number; miners: Set<string>; tasks: Set<string> }
  >();
  for (const r of rows) {
    let a = activity.get(r.validatorId);
    if (!a)
      activity.set(r.validatorId, (a = { runs: 0, baselineRuns: 0, resolved: 0, miners: new Set(), tasks: new Set() }));
    a.runs += r.runs;
    a.resolved += r.resolved;
    if (r.hotkey === null) a.baselineRuns += r.runs;
    else a.miners.add(r.hotkey);
    a.tasks.add(r.taskId);
  }
  const ids = [...new Set([...activity.keys(), ...excluded])].sort();
  const validators = ids.map((id) => {
    const a = activity.get(id);
    const info = known.get(id);
    return {
      id,
      name: info?.name ?? id,
      hotkey: info?.hotkey ?? null,
      excluded: excluded.has(id),
      runs: a?.runs ?? 0,
      baselineRuns: a?.baselineRuns ?? 0,
      minerRuns: (a?.runs ?? 0) - (a?.baselineRuns ?? 0),
      miners: a?.miners.size ?? 0,
      tasks: a?.tasks.size ?? 0,
      resolveRate: resolveRate(a?.resolved ?? 0, a?.runs ?? 0),
      agreement: agreements.get(id) ?? { sharedPairs: 0, resolveRateDelta: null, flagged: false },
    };
  });
  return { competitionId, stages, validators };
}
