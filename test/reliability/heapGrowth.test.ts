// The heap growth setting (src/heap.ts) takes effect in the running process: the same allocation
// pattern (a growing live set, much short-lived garbage) ends with a smaller heap when it is set.
// Guards against a Node or V8 upgrade that would ignore the flag set after start.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const HEAP = fileURLToPath(new URL('../../src/heap.ts', import.meta.url));

/** The process's largest heap (MB) over the run, with the growth percent applied first. */
async function heapAfterChurn(percent: number): Promise<number> {
  const script = `
    const { limitHeapGrowth } = await import(${JSON.stringify(HEAP)});
    limitHeapGrowth(${percent});
    const live = [];
    let peak = 0;
    for (let i = 0; i < 300000; i++) live.push({ a: 'x' + i, b: i * 1.5 });
    for (let r = 0; r < 120; r++) {
      const garbage = [];
      for (let i = 0; i < 100000; i++) garbage.push({ a: 'y' + i, b: [i, i + 1] });
      if (r % 5 === 0) live.push(JSON.parse(JSON.stringify(garbage.slice(0, 40000))).length);
      peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    console.log(peak / 1e6);`;
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    script,
  ]);
  return Number(stdout.trim());
}

it('a growth percent holds the heap nearer its live data than V8 left to itself', async () => {
  const own = await heapAfterChurn(0);
  const limited = await heapAfterChurn(25);
  console.log(`[heap] largest heap: ${own.toFixed(0)} MB left to V8, ${limited.toFixed(0)} MB at 25%`);
  expect(limited).toBeLessThan(own * 0.8);
});
