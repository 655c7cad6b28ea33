// Who makes a request, as the auth layer established it. Services take it as a plain value.
export type Principal = { kind: 'admin' } | { kind: 'validator'; id: string };

/** The validator id stored with a write: null for the admin. */
export const writerId = (p: Principal): string | null => (p.kind === 'validator' ? p.id : null);

/** Who reads a competition's answer keys (QnA reference answers, criterion ids and titles, the judge's reasons): the admin, or anyone once the competition reveals them. */
export const revealsAnswers = (competition: { revealAnswers: boolean }, who: Principal | null): boolean =>
  who?.kind === 'admin' || competition.revealAnswers;
