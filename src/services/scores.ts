// Computes a competition's scores from its aggregates and caches them until the next write to
// that competition. Every write path calls `invalidate` in the same tick as its commit, so a
// read after an acknowledged write never sees the old scores.
import type { Repos } from '../db/repos.js';
import { badRequest, notFound } from '../errors.js';
import { isStage, parseStages as parseStageList, scoreCompetition } from '../scoring/index.js';
import { STAGES, type CompetitionInput, type CompetitionScores, type MinerScore, type Stage, type TaskScore } from '../scoring/types.js';
import type { CompetitionSettings } from '../db/competitions.js';

export interface ScoredCompetition {
  competition: CompetitionSettings;
  /** Leaderboard and weights; every miner's `tasks` is empty (see `minerTasks`). */
  scores: CompetitionScores;
  /** One miner's task scores, by task id; null when the miner is not on the leaderboard. */
  minerTasks(hotkey: string): { miner: MinerScore; tasks: TaskScore[] } | null;
  /** Every miner's score on one task, by hotkey. */
  taskScores(taskId: string): TaskScore[];
  /** Serialized responses (UTF-8 bytes) keyed by route and argument; dropped with the entry. */
  responses: Map<string, Buffer>;
}

/** `screener_2,evaluation` to a stage list in canonical order, or the competition's default. */
export function parseStages(raw: string | undefined, fallback: Stage[]): Stage[] {
  const stages = parseStageList(raw, fallback);
  if (stages) return stages;
  const bad = (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '' && !isStage(s.toLowerCase()));
  throw badRequest(`unknown stage ${bad.join(', ')}; stages are ${STAGES.join(', ')}`, [
    { path: 'querystring/stages', message: `unknown stage ${bad.join(', ')}` },
  ]);
}

export function scoresService(repos: Repos, observe: (seconds: number) => void = () => {}) {
  // Per competition: its settings, read once, and the scores of each stage set asked for.
  const cache = new Map<string, { competition: CompetitionSettings; byStages: Map<string, ScoredCompetition> }>();

  function compute(competition: CompetitionSettings, stages: Stage[]): ScoredCompetition {
    const started = process.hrtime.bigint();
    const loaded = repos.scoringInput.load(competition.id, competition.tokenWeights);
    const input: CompetitionInput = { ...loaded, stages, burnRatio: competition.burnRatio };
    // The leaderboard keeps only per-miner sums; per-task scores are computed when a breakdown
    // is asked for, from the same input: a miner's task scores depend on its runs and the
    // tasks' baselines alone, never on other miners.
    const scores = scoreCompetition(input, { keepTasks: false });
    observe(Number(process.hrtime.bigint() - started) / 1e9);
    const byHotkey = new Map(scores.miners.map((m) => [m.hotkey, m]));
    return {
      competition,
      scores,
      minerTasks(hotkey) {
        const miner = byHotkey.get(hotkey);
        if (!miner) return null;
        const own = { ...input, minerTasks: input.minerTasks.filter((e) => e.hotkey === hotkey) };
        return { miner, tasks: scoreCompetition(own).miners.find((m) => m.hotkey === hotkey)?.tasks ?? [] };
      },
      taskScores(taskId) {
        const one = { ...input, tasks: input.tasks.filter((t) => t.id === taskId), minerTasks: input.minerTasks.filter((e) => e.taskId === taskId) };
        return scoreCompetition(one).miners.flatMap((m) => m.tasks);
      },
      responses: new Map(),
    };
  }

  return {
    /** Scores for a stage set (default the competition's final stages); 404 for no competition. */
    get(competitionId: string, rawStages: string | undefined): ScoredCompetition {
      let entry = cache.get(competitionId);
      if (!entry) {
        const competition = repos.competitions.get(competitionId);
        if (!competition) throw notFound(`competition ${competitionId} does not exist`);
        entry = { competition, byStages: new Map() };
        cache.set(competitionId, entry);
      }
      const stages = parseStages(rawStages, entry.competition.finalStages);
      const key = stages.join(',');
      let scored = entry.byStages.get(key);
      if (!scored) {
        scored = compute(entry.competition, stages);
        entry.byStages.set(key, scored);
      }
      return scored;
    },
    invalidate(competitionId: string): void {
      cache.delete(competitionId);
    },
  };
}

export type ScoresService = ReturnType<typeof scoresService>;
