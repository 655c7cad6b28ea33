// The read token of a server that requires one (SCORING_READS_REQUIRE_TOKEN=true). It is kept for
// this tab only (sessionStorage: gone when the tab closes, never shared with other tabs), sent as
// an Authorization header on every read, and never put in a URL, where it would reach history,
// logs and Referer headers.
const KEY = 'swe-scoring.readToken';

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: the token lives only until the page reloads
  }
}

let inMemory: string | null = null;

export function readToken(): string | null {
  return storage()?.getItem(KEY) ?? inMemory;
}

export function saveToken(token: string): void {
  inMemory = token;
  storage()?.setItem(KEY, token);
}

export function forgetToken(): void {
  inMemory = null;
  storage()?.removeItem(KEY);
}

/** The Authorization header for the token held, if any. */
export function authorization(): Record<string, string> {
  const token = readToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}
