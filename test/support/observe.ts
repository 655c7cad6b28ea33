// What an operator reads of a server process: its JSON log lines and its /metrics samples.
import { get } from 'node:http';
import type { ServerProcess } from './serverProcess.js';

export interface LogLine {
  level: number;
  msg: string;
  refusal?: string;
  err?: { message: string };
  res?: { statusCode: number };
  [field: string]: unknown;
}

/** The JSON lines a server wrote so far. */
export const logLines = (s: ServerProcess): LogLine[] =>
  s
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/**
 * /metrics as an operator's scraper reads it: from an address of its own (127.0.0.2, on the loopback
 * like the test's clients), since a scrape counts against its address's rate limit as an anonymous
 * read does, and a test's clients may have spent 127.0.0.1's.
 */
function scrape(s: ServerProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(`${s.baseUrl}/metrics`, { localAddress: '127.0.0.2' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(text) : reject(new Error(`/metrics: ${res.statusCode} ${text}`)),
      );
    });
    req.on('error', reject);
  });
}

/** The value of one sample on /metrics (`name{labels}`), 0 when absent. */
export async function sample(s: ServerProcess, series: string): Promise<number> {
  const text = await scrape(s);
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
