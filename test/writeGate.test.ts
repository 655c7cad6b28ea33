// The write gate (src/services/writeGate.ts): writes run together, an import's commit runs alone,
// a waiting commit goes before later writes, and a failure lets the gate go.
import { describe, expect, it } from 'vitest';
import { writeGate } from '../src/services/writeGate.js';

/** A promise and its resolver, to hold a holder of the gate open. */
function latch() {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return { done, open };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('write gate', () => {
  it('runs a write at once when no import commits, and writes alongside each other', async () => {
    const gate = writeGate();
    const log: string[] = [];
    const first = latch();
    const a = gate.write(async () => {
      log.push('a starts');
      await first.done;
    });
    const b = gate.write(() => log.push('b runs'));
    expect(log).toEqual(['a starts', 'b runs']); // neither waited, not even a tick
    first.open();
    await Promise.all([a, b]);
  });

  it('starts a commit after the writes already running, and holds later writes until it ends', async () => {
    const gate = writeGate();
    const log: string[] = [];
    const write = latch();
    const commit = latch();
    const running = gate.write(async () => {
      await write.done;
      log.push('running write ends');
    });
    const committing = gate.exclusive(async () => {
      log.push('commit starts');
      expect(gate.state()).toEqual({ importing: true, waiting: 1 });
      await commit.done;
      log.push('commit ends');
    });
    const later = gate.write(() => log.push('later write runs'));
    await tick();
    expect(log).toEqual([]);
    expect(gate.state()).toEqual({ importing: false, waiting: 1 }); // the commit waits, before the later write
    write.open();
    await tick();
    expect(log).toEqual(['running write ends', 'commit starts']);
    commit.open();
    await Promise.all([running, committing, later]);
    expect(log).toEqual(['running write ends', 'commit starts', 'commit ends', 'later write runs']);
    expect(gate.state()).toEqual({ importing: false, waiting: 0 });
  });

  it('lets go when what it runs throws', async () => {
    const gate = writeGate();
    await expect(
      gate.exclusive(async () => {
        throw new Error('commit failed');
      }),
    ).rejects.toThrow('commit failed');
    await expect(
      gate.write(() => {
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    await expect(gate.exclusive(async () => 2)).resolves.toBe(2);
    expect(gate.state()).toEqual({ importing: false, waiting: 0 });
  });
});
