// Who makes a request, as the auth layer established it. Services take it as a plain value.
import { forbidden } from '../errors.js';

export type Principal = { kind: 'admin' } | { kind: 'validator'; id: string };

/** The validator id stored with a write: null for the admin. */
export const writerId = (p: Principal): string | null => (p.kind === 'validator' ? p.id : null);

/** Who reads a competition's answer keys (QnA reference answers, criterion ids and titles, the judge's reasons): the admin, or anyone once the competition reveals them. */
export const revealsAnswers = (competition: { revealAnswers: boolean }, who: Principal | null): boolean =>
  who?.kind === 'admin' || competition.revealAnswers;

/**
 * A validator not on the competition's allow-list writes nothing to it (a 403 naming the
 * competition); the admin, and every validator where the competition has no list, may.
 */
export function refuseUnlisted(
  competition: { id: string; allowedValidators: readonly string[] | null },
  validatorId: string | null,
): void {
  const list = competition.allowedValidators;
  if (validatorId === null || list === null || list.includes(validatorId)) return;
  throw forbidden(
    `validator ${validatorId} may not write to competition ${competition.id}: the competition takes writes only ` +
      'from the validators on its allow-list (PUT /v1/competitions/{competitionId} {validators}); ask its admin',
  );
}
