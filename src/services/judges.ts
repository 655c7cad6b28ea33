// Judge configurations (SPEC 12): the operator sets one per competition; every version is kept
// and audited, the latest is in force. Setting one recounts the competition's runs: only QnA runs
// graded under the configuration in force are scored (src/db/aggregates.ts).
import { createHash } from 'node:crypto';
import type { Store } from '../db/contract.js';
import type { JudgeRow } from '../db/judges.js';
import { notFound } from '../errors.js';
import { canonicalJson } from '../snapshots/canonicalJson.js';
import type { JudgeInput } from '../schemas/judge.js';
import type { AuditService } from './audit.js';
import type { Principal } from './principal.js';
import { noVersion, versionedView } from './versionedDocuments.js';
import { gatedTransaction, type WriteGate } from './writeGate.js';

/** SHA-256, lower-case hex, of the configuration's canonical JSON (RFC 8785). */
export const judgeDigest = (judge: JudgeInput) =>
  createHash('sha256').update(canonicalJson(judge), 'utf8').digest('hex');

const judgeView = (row: JudgeRow) => versionedView<JudgeInput>(row);

export function judgesService(store: Store, audit: AuditService, gate: WriteGate) {
  return {
    /**
     * Sets a new version, unless this one is in force already. Its `votes` becomes the competition's
     * `judgeVotes` (SPEC 12: they are one setting), audited as a competition update when it changes.
     */
    async put(competitionId: string, input: JudgeInput, who: Principal) {
      const judge: JudgeInput = {
        model: input.model,
        reasoningEffort: input.reasoningEffort,
        votes: input.votes,
        temperature: input.temperature,
        promptTemplate: input.promptTemplate,
        outputSchema: input.outputSchema,
      };
      const digest = judgeDigest(judge);
      // A configuration not in force recounts every QnA run (src/db/judges.ts).
      const recounts = (await store.judges.latest(competitionId))?.digest !== digest;
      return gatedTransaction(
        store,
        gate,
        async (tx) => {
          const competition = await tx.competitions.get(competitionId);
          if (!competition) throw notFound(`competition ${competitionId} does not exist`);
          if (judge.votes !== competition.judgeVotes) {
            const change = { name: competition.name, judgeVotes: judge.votes };
            await tx.competitions.upsert(competitionId, change);
            await audit.record(tx, who, 'competition.update', competitionId, competitionId, change);
          }
          // PUT is idempotent: the configuration in force sent again records no version, no audit
          // entry, and no recount of every run.
          const inForce = await tx.judges.latest(competitionId);
          if (inForce?.digest === digest) return judgeView(inForce);
          const row = await tx.judges.record(competitionId, canonicalJson(judge), digest, competition.tokenWeights);
          const { promptTemplate, outputSchema, ...rest } = judge;
          await audit.record(tx, who, 'judge.record', competitionId, competitionId, {
            ...rest,
            promptChars: promptTemplate.length,
            outputSchemaDigest: createHash('sha256').update(canonicalJson(outputSchema), 'utf8').digest('hex'),
            version: row.version,
            digest,
          });
          return judgeView(row);
        },
        { competitionId, recounts },
      );
    },

    /** The configuration in force, or the one with `digest`; not found when missing. */
    async get(competitionId: string, digest?: string) {
      const row =
        digest === undefined ? await store.judges.latest(competitionId) : await store.judges.get(competitionId, digest);
      if (row) return judgeView(row);
      return noVersion(
        store,
        competitionId,
        digest !== undefined
          ? `competition ${competitionId} never held judge configuration ${digest}`
          : `competition ${competitionId} has no judge configuration; PUT one to …/judge`,
      );
    },
  };
}
