// A little data in a real server process, through its HTTP routes: a competition, three tasks, a
// validator and `runs` runs, each acknowledged. For suites about the files and processes around
// the data (backups, locks, signals) rather than the scores.
import { SERVER_ADMIN_TOKEN, type ServerProcess } from './serverProcess.js';

async function send(server: ServerProcess, method: string, path: string, body: unknown, token = SERVER_ADMIN_TOKEN) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Seeds competition `competition` with `runs` acknowledged runs; resolves once the last is acknowledged. */
export async function seedRuns(server: ServerProcess, competition: string, runs: number): Promise<void> {
  const c = `/v1/competitions/${competition}`;
  await send(server, 'PUT', c, { name: competition });
  const tasks = ['t0', 't1', 't2'].map((id) => ({ id, type: 'swebench_verified', complexity: 'short' }));
  await send(server, 'PUT', `${c}/tasks`, { tasks });
  const key = (await send(server, 'POST', '/v1/validators', { name: `${competition}-validator` })).apiKey as string;
  for (let i = 0; i < runs; i++) {
    const run = { runId: `r${i}`, taskId: tasks[i % 3]!.id, kind: 'baseline', resolved: i % 2 === 0 };
    await send(server, 'POST', `${c}/runs`, { runs: [{ ...run, tokens: { input: 100 + i, output: 10 } }] }, key);
  }
}
