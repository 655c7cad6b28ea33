// Validators: bearer-key or signing (hotkey) validators, their standing in each competition, and
// their agreement with each other (SPEC 10).
import type { Store } from '../db/contract.js';
import type { ValidatorRow } from '../db/validators.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { decodeSs58 } from '../signatures/ss58.js';
import type { AuditService } from './audit.js';
import { DEFAULT_SILENT_AFTER_MS, liveness } from './liveness.js';
import type { Principal } from './principal.js';
import { gatedTransaction, type WriteGate } from './writeGate.js';

export function validatorsService(
  store: Store,
  audit: AuditService,
  gate: WriteGate,
  silentAfterMs = DEFAULT_SILENT_AFTER_MS,
) {
  const view = (v: ValidatorRow, now = Date.now()) => ({
    id: v.id,
    name: v.name,
    hotkey: v.hotkey,
    createdAt: v.createdAt,
    revokedAt: v.revokedAt,
    ...liveness(v, silentAfterMs, now),
  });

  return {
    /** Creates a validator: with a hotkey it signs its requests, without one it gets a key shown only here. */
    create(input: { name: string; hotkey?: string }, who: Principal) {
      let signer: { hotkey: string; publicKey: string } | undefined;
      if (input.hotkey !== undefined) {
        const decoded = decodeSs58(input.hotkey);
        if (!decoded.ok)
          throw badRequest(`hotkey is not an ss58 address: ${decoded.message}`, [
            { path: 'body/hotkey', message: decoded.message },
          ]);
        signer = { hotkey: input.hotkey, publicKey: Buffer.from(decoded.publicKey).toString('hex') };
      }
      return store.transaction(async (tx) => {
        if (signer) {
          const holder = await tx.validators.byPublicKey(signer.publicKey);
          if (holder)
            throw conflict(`hotkey ${input.hotkey} already belongs to validator ${holder.id} (${holder.name})`, [
              { path: 'body/hotkey', message: 'already registered' },
            ]);
        }
        const { validator, apiKey } = await tx.validators.create(input.name, signer);
        await audit.record(tx, who, 'validator.create', null, validator.id, {
          name: input.name,
          hotkey: input.hotkey ?? null,
        });
        return apiKey ? { ...view(validator), apiKey } : view(validator);
      });
    },
    list: async () => {
      const now = Date.now();
      return (await store.validators.list()).map((v) => view(v, now));
    },
    /**
     * Records a validator's heartbeat: one row updated. Not audited and no write event: a heartbeat
     * changes no score, so no kept score or body is dropped for it.
     */
    async heartbeat(input: { version: string; codeDigest?: string }, who: Principal) {
      if (who.kind !== 'validator') throw forbidden('only a validator sends heartbeats; the admin token has none');
      const v = await store.validators.heartbeat(who.id, input.version, input.codeDigest ?? null);
      if (!v) throw notFound(`validator ${who.id} does not exist`);
      return { id: v.id, ...liveness(v, silentAfterMs, Date.now()), codeDigest: v.codeDigest };
    },
    /** Every validator's liveness now, by id. */
    async liveness() {
      const now = Date.now();
      return new Map((await store.validators.list()).map((v) => [v.id, liveness(v, silentAfterMs, now)]));
    },
    revoke(id: string, who: Principal) {
      return store.transaction(async (tx) => {
        const current = await tx.validators.get(id);
        if (!current) throw notFound(`validator ${id} does not exist`);
        // Revoking again changes nothing, and the log keeps the one revocation that did.
        if (current.revokedAt !== null) return view(current);
        await tx.validators.revoke(id);
        await audit.record(tx, who, 'validator.revoke', null, id, {});
        return view((await tx.validators.get(id))!);
      });
    },
    /** The active validator holding this bearer key, or null. */
    authenticate: (apiKey: string) => store.validators.authenticate(apiKey),
    /**
     * Sets a validator's runs aside in a competition (or brings them back): every aggregate is
     * rebuilt from the counted runs, so scores are exactly those of a competition without them.
     */
    async setStanding(
      competitionId: string,
      validatorId: string,
      input: { excluded: boolean; reason?: string },
      who: Principal,
    ) {
      // A change of standing recounts every run.
      const now = (await store.validators.standings(competitionId)).find((s) => s.validatorId === validatorId);
      const recounts = (now?.excluded ?? false) !== input.excluded;
      return gatedTransaction(
        store,
        gate,
        async (tx) => {
          const competition = await tx.competitions.get(competitionId);
          if (!competition) throw notFound(`competition ${competitionId} does not exist`);
          if (!(await tx.validators.get(validatorId))) throw notFound(`validator ${validatorId} does not exist`);
          const before = await tx.validators.setExcluded(
            competitionId,
            validatorId,
            input.excluded,
            input.reason ?? null,
          );
          if ((before?.excluded ?? false) !== input.excluded)
            await tx.aggregates.rebuild(competitionId, competition.tokenWeights);
          await audit.record(
            tx,
            who,
            input.excluded ? 'validator.exclude' : 'validator.include',
            competitionId,
            validatorId,
            {
              excluded: input.excluded,
              reason: input.reason ?? null,
              before: before ? { excluded: before.excluded, reason: before.reason } : null,
            },
          );
          return {
            created: before === null,
            standing: { competitionId, validatorId, excluded: input.excluded, reason: input.reason ?? null },
          };
        },
        { competitionId, recounts },
      );
    },
  };
}
