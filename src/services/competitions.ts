// Competition settings. A competition read shows settings, counts and the baseline's resolve rate
// straight from the aggregates: it never computes scores.
import type { Store } from '../db/contract.js';
import { sameTokenWeights, type CompetitionSettings, type CompetitionUpsert } from '../db/competitions.js';
import { conflict, listSome, notFound, unprocessable, type ErrorField } from '../errors.js';
import type { JudgeInput } from '../schemas/judge.js';
import { resolveRate } from '../scoring/index.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';
import { gatedTransaction, type WriteGate } from './writeGate.js';

export function competitionsService(store: Store, audit: AuditService, gate: WriteGate) {
  /** The competition as read; its validator allow-list (`validators`) for the admin only. */
  async function view(c: CompetitionSettings, who: Principal | null, db: Store = store) {
    const { allowedValidators, ...settings } = c;
    const baseline = await db.competitions.baselineTotals(c.id, c.finalStages);
    return {
      ...settings,
      ...(who?.kind === 'admin' ? { validators: allowedValidators } : {}),
      counts: await db.competitions.counts(c.id),
      baseline: { ...baseline, resolveRate: resolveRate(baseline.resolved, baseline.runs) },
    };
  }

  async function get(id: string, who: Principal | null) {
    const c = await store.competitions.get(id);
    if (!c) throw notFound(`competition ${id} does not exist`);
    return view(c, who);
  }

  /** Each validator of an allow-list must exist: a mistyped id would lock its validator out unseen. */
  async function checkAllowList(tx: Store, validators: readonly string[] | null | undefined) {
    if (!validators) return;
    const unknown: string[] = [];
    const errors: ErrorField[] = [];
    for (const [i, v] of validators.entries()) {
      if (await tx.validators.get(v)) continue;
      unknown.push(v);
      errors.push({ path: `body/validators/${i}`, message: `no validator ${v}` });
    }
    if (unknown.length > 0)
      throw unprocessable(
        `the allow-list names validators that do not exist: ${listSome(unknown)}; ` +
          'create them first (POST /v1/validators) or leave them out',
        errors,
      );
  }

  /**
   * The competition's judgeVotes is the `votes` of the judge configuration in force (SPEC 12): a PUT
   * that would part them is a 409 saying how to change both (the judge's PUT sets judgeVotes).
   */
  async function refusePartedVotes(tx: Store, id: string, judgeVotes: number) {
    const inForce = await tx.judges.latest(id);
    if (!inForce) return;
    const { votes } = JSON.parse(inForce.document) as JudgeInput;
    if (votes === judgeVotes) return;
    const message =
      `judgeVotes ${judgeVotes} is not the votes (${votes}) of the judge configuration in force, ${inForce.digest}: ` +
      `judgeVotes is that configuration's votes (SPEC 12). To change both, PUT /v1/competitions/${id}/judge ` +
      `with votes ${judgeVotes} (judgeVotes follows it); or send judgeVotes ${votes}, or leave it out`;
    throw conflict(message, [{ path: 'body/judgeVotes', message }]);
  }

  return {
    get,
    list: async (who: Principal | null) => Promise.all((await store.competitions.list()).map((c) => view(c, who))),
    /** Creates or updates; fields left out keep their stored value (or the default on creation). */
    async put(id: string, input: CompetitionUpsert, who: Principal) {
      // New token weights recount every run (src/db/aggregates.ts).
      const before = input.tokenWeights && (await store.competitions.get(id));
      const recounts = !!before && !sameTokenWeights(before.tokenWeights, input.tokenWeights!);
      return gatedTransaction(
        store,
        gate,
        async (tx) => {
          await checkAllowList(tx, input.validators);
          if (input.judgeVotes !== undefined) await refusePartedVotes(tx, id, input.judgeVotes);
          const { competition, created } = await tx.competitions.upsert(id, input);
          await audit.record(tx, who, created ? 'competition.create' : 'competition.update', id, id, { ...input });
          return { created, competition: await view(competition, who, tx) };
        },
        { competitionId: id, recounts },
      );
    },
    /** The competition's settings; not found when it does not exist. */
    async require(id: string): Promise<CompetitionSettings> {
      const c = await store.competitions.get(id);
      if (!c) throw notFound(`competition ${id} does not exist`);
      return c;
    },
  };
}
