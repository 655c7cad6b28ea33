// A small fetch client for a server process: one JSON request, the body parsed when it is JSON.
import type { Json } from './json.js';

export interface HttpResult {
  status: number;
  body: Json;
  contentType: string;
}

/** One request; a network error (server killed) rejects. */
export async function http(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, contentType: res.headers.get('content-type') ?? '' };
}
