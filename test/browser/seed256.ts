// The reference competition's field of 256 miners (bench/generate.ts), on fewer tasks so that it
// seeds over HTTP in a few seconds: the competition page's size depends on the miners, not on
// how many tasks they ran.
import { buildCompetition, generateRuns, sweTaskInputs, type Run } from '../../bench/generate.js';
import type { TestServer } from './server.js';

export const REFERENCE = 'reference';

export async function seed256(server: TestServer): Promise<void> {
  const c = buildCompetition(
    { miners: 256, tasksPerGroup: 8, qnaPerGroup: 0, runsPerSide: 3, warmSeconds: 0, coldRounds: 0 },
    20261130,
  );
  const base = `/v1/competitions/${REFERENCE}`;
  await server.send('PUT', base, { name: 'Reference field: 256 miners', burnRatio: 0.1 });
  await server.send('PUT', `${base}/tasks`, { tasks: sweTaskInputs(c) });
  let batch: Run[] = [];
  const flush = async () => {
    if (batch.length) await server.send('POST', `${base}/runs`, { runs: batch });
    batch = [];
  };
  for (const run of generateRuns(c)) {
    batch.push(run);
    if (batch.length === 5000) await flush();
  }
  await flush();
  for (const hotkey of c.excluded)
    await server.send('PUT', `${base}/miners/${hotkey}`, { excluded: true, reason: 'test' });
}
