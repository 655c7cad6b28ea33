// RFC 9457 problem details: every error the API returns has this one shape.

export interface ProblemField {
  path: string;
  message: string;
}

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail: string,
    readonly errors?: ProblemField[],
  ) {
    super(detail);
  }

  get type(): string {
    return `urn:swe-scoring:problem:${this.slug}`;
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { type: this.type, title: this.title, status: this.status, detail: this.detail };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const badRequest = (detail: string, errors?: ProblemField[]) =>
  new Problem(400, 'validation', 'Invalid request', detail, errors);
export const unauthorized = (detail: string) => new Problem(401, 'unauthorized', 'Unauthorized', detail);
export const forbidden = (detail: string) => new Problem(403, 'forbidden', 'Forbidden', detail);
export const notFound = (detail: string, errors?: ProblemField[]) => new Problem(404, 'not-found', 'Not found', detail, errors);
export const conflict = (detail: string, errors?: ProblemField[]) => new Problem(409, 'conflict', 'Conflict', detail, errors);
export const unprocessable = (detail: string, errors?: ProblemField[]) =>
  new Problem(422, 'unprocessable', 'Unprocessable content', detail, errors);

/** Lists at most a few items in a detail message, so a 5,000-run batch gives a readable line. */
export function listSome(items: readonly string[], max = 10): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
