// Who makes a request, as the auth layer established it. Services take it as a plain value.
export type Principal = { kind: 'admin' } | { kind: 'validator'; id: string };

/** The validator id stored with a write: null for the admin. */
export const writerId = (p: Principal): string | null => (p.kind === 'validator' ? p.id : null);
