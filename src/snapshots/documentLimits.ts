// The size of an input document as its first line announces it: the miners it lists and the task
// and run lines it says follow (parseDocument holds the document to those counts). Read before the
// document is parsed, so one past a limit is refused for the price of its first line.

export interface DocumentLimits {
  miners: number;
  tasks: number;
  runs: number;
}

export interface OverLimit {
  limit: keyof DocumentLimits;
  /** What the document announces. */
  count: number;
  max: number;
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The first limit the document's first line passes, or null: none passed, or the line is not
 * the shape that announces its size (parseDocument then names what is wrong with it).
 */
export function documentOverLimit(text: string, limits: DocumentLimits): OverLimit | null {
  const end = text.indexOf('\n');
  let first: unknown;
  try {
    first = JSON.parse(end === -1 ? text : text.slice(0, end));
  } catch {
    return null;
  }
  const c = (first as { competition?: { miners?: unknown; counts?: { tasks?: unknown; runs?: unknown } } } | null)
    ?.competition;
  if (typeof c !== 'object' || c === null) return null;
  const announced: Record<keyof DocumentLimits, number | null> = {
    miners: Array.isArray(c.miners) ? c.miners.length : null,
    tasks: count(c.counts?.tasks),
    runs: count(c.counts?.runs),
  };
  for (const limit of ['miners', 'tasks', 'runs'] as const) {
    const n = announced[limit];
    if (n !== null && n > limits[limit]) return { limit, count: n, max: limits[limit] };
  }
  return null;
}
