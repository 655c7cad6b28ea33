// Path parameters and query strings validated once per distinct input (src/plugins/validation.ts):
// the same answer, frozen so no handler can change it for the next request; failures and bodies
// validated every time.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { cachingValidatorCompiler } from '../../src/plugins/validation.js';

const Query = z.strictObject({
  stages: z
    .string()
    .transform((s) => s.split(','))
    .optional(),
  limit: z.coerce.number().int().min(1).optional(),
});
const compile = (httpPart: string) =>
  cachingValidatorCompiler({ schema: Query, method: 'GET', url: '/x', httpPart }) as (data: unknown) => {
    value?: { stages?: string[]; limit?: number };
    error?: unknown;
  };

it('answers a query string seen before with the same frozen result', () => {
  const validate = compile('querystring');
  const first = validate({ stages: 'screener_1,evaluation', limit: '5' });
  expect(first.value).toEqual({ stages: ['screener_1', 'evaluation'], limit: 5 });
  expect(validate({ stages: 'screener_1,evaluation', limit: '5' })).toBe(first);
  expect(Object.isFrozen(first.value)).toBe(true);
  expect(Object.isFrozen(first.value!.stages)).toBe(true);
  expect(() => first.value!.stages!.push('x')).toThrow(TypeError);
});

it('validates a failing input every time, and keeps nothing for it', () => {
  const validate = compile('querystring');
  const bad = validate({ limit: '0' });
  expect(bad.error).toBeDefined();
  expect(validate({ limit: '0' })).not.toBe(bad);
  expect(validate({ limit: '0' }).error).toBeDefined();
});

it('never keeps bodies', () => {
  const validate = compile('body');
  const a = validate({ limit: '5' });
  expect(validate({ limit: '5' })).not.toBe(a);
  expect(Object.isFrozen(a.value)).toBe(false);
});

it('keeps distinct inputs apart, whatever NULs, arrays or key order they hold', () => {
  const Loose = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
  const validate = cachingValidatorCompiler({ schema: Loose, method: 'GET', url: '/x', httpPart: 'querystring' }) as (
    data: unknown,
  ) => { value?: unknown };
  // Inputs whose keys, written naively, would be one string: each must get its own answer.
  const inputs = [
    {},
    { a: 'b' },
    { a: 'b\0c' },
    { a: 'b\0c\0d' },
    { a: 'b', c: 'd' },
    { a: 'b', c: '' },
    { 'a\0b': '' },
    { a: ['b', 'c'] },
    { a: 'b,c' },
    { c: '', a: 'b' },
    { '\u0001{"a":"b"}': '' },
  ];
  for (const input of inputs) expect(validate(input).value, JSON.stringify(input)).toEqual(input);
  // And asked again, each the same kept answer.
  for (const input of inputs) expect(validate(input).value).toEqual(input);
});
