// Hash routes, so every page has a shareable URL and the server needs no fallback route:
//   #/                                   competitions
//   #/c/{id}?stages=&sort=&dir=&q=       competition (leaderboard)
//   #/c/{id}/miners/{hotkey}?stages=     miner
//   #/c/{id}/tasks/{taskId}?stages=      task
//   #/c/{id}/weights?stages=             weights
//   #/c/{id}/validators?stages=          validators
//   #/c/{id}/coverage?stages=            coverage (task × miner heatmap)
//   #/c/{id}/weights/history             weights over time
//   #/c/{id}/criteria?stages=            criteria stability report
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'competitions' }
  | { page: 'competition' | 'weights' | 'validators' | 'coverage' | 'weightsHistory' | 'criteria'; id: string }
  | { page: 'miner'; id: string; hotkey: string }
  | { page: 'task'; id: string; taskId: string }
  | { page: 'notFound'; path: string };

export interface Location {
  route: Route;
  query: URLSearchParams;
}

/** A path segment decoded, or null when its percent-escapes are malformed (`%`, `%E0%A4%A`). */
function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function parse(hash: string): Location {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const decoded = path.split('/').filter(Boolean).map(decode);
  const query = new URLSearchParams(search);
  let route: Route = { page: 'notFound', path };
  // A segment that does not decode names nothing: decodeURIComponent's throw would blank the app.
  // Nor does '.' or '..', which the server refuses as an id: fetch resolves them away, so
  // #/c/../validators would ask GET /v1/validators, carrying the read token.
  if (decoded.some((p) => p === null || p === '.' || p === '..')) return { route, query };
  const parts = decoded as string[];
  const [c, id, kind, key] = parts;
  if (parts.length === 0) route = { page: 'competitions' };
  else if (c === 'c' && id !== undefined) {
    if (parts.length === 2) route = { page: 'competition', id };
    else if (
      parts.length === 3 &&
      (kind === 'weights' || kind === 'validators' || kind === 'coverage' || kind === 'criteria')
    )
      route = { page: kind, id };
    else if (parts.length === 4 && kind === 'weights' && key === 'history') route = { page: 'weightsHistory', id };
    else if (parts.length === 4 && kind === 'miners') route = { page: 'miner', id, hotkey: key! };
    else if (parts.length === 4 && kind === 'tasks') route = { page: 'task', id, taskId: key! };
  }
  return { route, query };
}

/** The href of a page; `query` entries that are empty are left out. */
export function href(parts: string[], query: Record<string, string | null | undefined> = {}): string {
  const path = parts.map(encodeURIComponent).join('/');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return `#/${path}${s ? `?${s}` : ''}`;
}

/** Changes the query of the current page in place (no new history entry): sort, search. */
export function replaceQuery(changes: Record<string, string | null>): void {
  const { query } = parse(location.hash);
  for (const [k, v] of Object.entries(changes)) {
    if (v) query.set(k, v);
    else query.delete(k);
  }
  const [path = ''] = location.hash.split('?');
  const s = query.toString();
  history.replaceState(history.state, '', `${path || '#/'}${s ? `?${s}` : ''}`);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(() => parse(location.hash));
  useEffect(() => {
    const onChange = () => setLoc(parse(location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return loc;
}
