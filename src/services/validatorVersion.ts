// A competition's minValidatorVersion (SPEC 13): run writes from a validator whose last heartbeat
// named an older version, or that sent none, are refused with a 426 naming the version required.
// The admin's writes are not a validator's and pass.
import { lt } from 'semver';
import type { CompetitionSettings } from '../db/competitions.js';
import type { Store } from '../db/contract.js';
import { upgradeRequired } from '../errors.js';
import type { Principal } from './principal.js';

/** Why a validator at `version` (null: no heartbeat) may not write where `required` is asked; null when it may. */
export function outdated(required: string, version: string | null): string | null {
  if (version === null) return 'it has sent no heartbeat naming its version';
  return lt(version, required) ? `its last heartbeat named version ${version}` : null;
}

/**
 * Throws the 426 when `who` is a validator older than the competition asks for. `competition`: its
 * settings when the caller read them already in the same transaction (null: it does not exist).
 */
export async function requireValidatorVersion(
  db: Store,
  competitionId: string,
  who: Principal,
  competition?: CompetitionSettings | null,
): Promise<void> {
  if (who.kind !== 'validator') return;
  const settings = competition === undefined ? await db.competitions.get(competitionId) : competition;
  const required = settings?.minValidatorVersion ?? null;
  if (required === null) return;
  const why = outdated(required, (await db.validators.get(who.id))?.version ?? null);
  if (why === null) return;
  throw upgradeRequired(
    `competition ${competitionId} takes writes from validators at version ${required} or later, and ${why}: ` +
      `upgrade, then send POST /v1/validators/heartbeat with the new version`,
    [{ path: 'validator/version', message: `must be ${required} or later` }],
  );
}
