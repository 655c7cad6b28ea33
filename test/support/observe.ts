// What an operator reads of a server process: its JSON log lines and its /metrics samples.
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

/** The value of one sample on /metrics (`name{labels}`), 0 when absent. */
export async function sample(s: ServerProcess, series: string): Promise<number> {
  const text = await (await fetch(`${s.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
