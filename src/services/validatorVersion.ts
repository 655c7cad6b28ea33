// Who may write runs to a competition, asked in one order wherever a validator writes (a batch
// before its body is read and again in its transaction, a deletion): a validator whose key was
// revoked meanwhile (401), then one not on the competition's allow-list (403), then one older
// than its minValidatorVersion (SPEC 13: its last heartbeat named an older version, or it sent
// none; a 426 naming the version required). The admin's writes are not a validator's and pass.
import { lt } from 'semver';
import type { CompetitionSettings } from '../db/competitions.js';
import type { Store } from '../db/contract.js';
import { unauthorized, upgradeRequired } from '../errors.js';
import { refuseUnlisted, type Principal } from './principal.js';

/** Why a validator at `version` (null: no heartbeat) may not write where `required` is asked; null when it may. */
export function outdated(required: string, version: string | null): string | null {
  if (version === null) return 'it has sent no heartbeat naming its version';
  return lt(version, required) ? `its last heartbeat named version ${version}` : null;
}

/**
 * Throws when `who` may not write runs to the competition: revoked (401), not on its allow-list
 * (403), or older than it asks (426), in that order, so a validator told to upgrade is never
 * refused for another reason after it did. `competition`: its settings when the caller read them
 * already in the same transaction (null: it does not exist, which the caller answers).
 */
export async function admitRunWriter(
  db: Store,
  competitionId: string,
  who: Principal,
  competition?: CompetitionSettings | null,
): Promise<void> {
  if (who.kind !== 'validator') return;
  const validator = await db.validators.get(who.id);
  if (!validator || validator.revokedAt !== null)
    throw unauthorized(`validator ${who.id}'s key was revoked; nothing is written with it`);
  const settings = competition === undefined ? await db.competitions.get(competitionId) : competition;
  if (!settings) return;
  refuseUnlisted(settings, who.id);
  const required = settings.minValidatorVersion;
  if (required === null) return;
  const why = outdated(required, validator.version);
  if (why === null) return;
  // A validator that never announced a version may be up to date: it is told to announce it.
  const todo =
    validator.version === null
      ? 'send POST /v1/validators/heartbeat {"version": …} with yours (upgrading first if older)'
      : 'upgrade, then send POST /v1/validators/heartbeat with the new version';
  throw upgradeRequired(
    `competition ${competitionId} takes writes from validators at version ${required} or later, and ${why}: ${todo}`,
    [{ path: 'validator/version', message: `must be ${required} or later` }],
  );
}
