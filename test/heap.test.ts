// Which of production's start settings (src/heap.ts) a process lacks: flags from the command line
// or NODE_OPTIONS, in either of V8's spellings and with any value; the variable by name.
import { expect, it } from 'vitest';
import { missingStartSettings } from '../src/heap.js';

const ENV = 'MALLOC_MMAP_THRESHOLD_=131072';

it('names each setting not given', () => {
  expect(missingStartSettings([], {})).toEqual(['--max-semi-space-size=4', ENV]);
  expect(missingStartSettings(['--cpu-prof'], { NODE_OPTIONS: '--inspect' })).toEqual(['--max-semi-space-size=4', ENV]);
});

it('takes a flag from the command line or NODE_OPTIONS, spelt either way, with any value', () => {
  const env = { MALLOC_MMAP_THRESHOLD_: '131072' };
  expect(missingStartSettings(['--max-semi-space-size=4'], env)).toEqual([]);
  expect(missingStartSettings(['--max_semi_space_size=8'], env)).toEqual([]);
  expect(missingStartSettings([], { ...env, NODE_OPTIONS: '--enable-source-maps  --max-semi-space-size=2' })).toEqual(
    [],
  );
  // Another flag that only starts alike is not it.
  expect(missingStartSettings(['--max-semi-space-size-extra=4'], env)).toEqual(['--max-semi-space-size=4']);
});

it('takes the variable with any value, and only by its exact name', () => {
  expect(missingStartSettings(['--max-semi-space-size=4'], { MALLOC_MMAP_THRESHOLD_: '65536' })).toEqual([]);
  expect(missingStartSettings(['--max-semi-space-size=4'], { MALLOC_MMAP_THRESHOLD: '131072' })).toEqual([ENV]);
});
