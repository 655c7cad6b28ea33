// Arrays sent as statement parameters (src/db/pg/arrayLiteral.ts): whatever the elements, the
// array PostgreSQL reads is the one sent, through the real query path (runQuery) on a real server,
// and what pg's own encoding would have sent means the same.
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, jsonArrayLiteral } from '../../src/db/pg/arrayLiteral.js';
import { runQuery } from '../../src/db/pg/context.js';
import { testPostgres } from '../support/postgres.js';

const server = await testPostgres('test/db/pgArrayLiteral.test.ts');

it.runIf(server.mustFail)('a PostgreSQL server answers (CI=true)', () => expect.fail(server.notice));

describe('arrayLiteral', () => {
  it('quotes strings (escaping only backslashes and double quotes), leaves numbers and booleans bare, NULL for null', () => {
    expect(arrayLiteral(['a', 'NULL', '', 'x"y', 'b\\c', null, undefined])).toBe(
      '{"a","NULL","","x\\"y","b\\\\c",NULL,NULL}',
    );
    expect(arrayLiteral([1, -2.5, 1e21, true, false, 9007199254740991n])).toBe(
      '{1,-2.5,1e+21,true,false,9007199254740991}',
    );
    expect(arrayLiteral([])).toBe('{}');
  });

  it('joins an array of plain strings, or of numbers and booleans, into the literal element by element', () => {
    expect(arrayLiteral(['a', 'b c', ''])).toBe('{"a","b c",""}');
    expect(arrayLiteral([1, -0, 2.5, 1e21, true, 3n])).toBe('{1,0,2.5,1e+21,true,3}');
    // Without a null, the same literal as with one (the element-by-element path), less its NULL.
    const element = fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.boolean(), fc.bigInt());
    fc.assert(
      fc.property(fc.array(element, { minLength: 1 }), fc.array(fc.string(), { minLength: 1 }), (mixed, texts) => {
        for (const values of [mixed, texts]) {
          expect(arrayLiteral(values)).toBe((arrayLiteral([...values, null]) as string).replace(/,NULL}$/, '}'));
        }
      }),
    );
  });

  it("leaves to pg an array holding anything else (pg's own encoding then applies)", () => {
    for (const odd of [[{ a: 1 }], [[1, 2]], [new Date(0)], [Buffer.from('x')]]) expect(arrayLiteral(odd)).toBe(odd);
  });
});

/** JSON values whose strings hold what JSON.stringify escapes: quotes, backslashes, controls, lone surrogates. */
const awkward = fc.string({
  unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\ud800', '\udfff', 'é', '😀', 'a', ',', '{'),
});
const jsonValues = fc.array(fc.option(fc.oneof(fc.jsonValue({ stringUnit: 'binary' }), fc.array(awkward), awkward)));
const jsonTexts = (values: unknown[]) => values.map((v) => (v === null || v === undefined ? null : JSON.stringify(v)));

describe('jsonArrayLiteral', () => {
  it("is arrayLiteral of the values' JSON texts, whatever their strings hold", () => {
    expect(jsonArrayLiteral([{ a: 'x"y\\z\n' }, null, undefined, []])).toBe(
      '{"{\\"a\\":\\"x\\\\\\"y\\\\\\\\z\\\\n\\"}",NULL,NULL,"[]"}',
    );
    fc.assert(
      fc.property(jsonValues, (values) => {
        expect(jsonArrayLiteral(values)).toBe(arrayLiteral(jsonTexts(values)));
      }),
    );
  });
});

describe.runIf(server.available)('arrays as parameters, on a real server', () => {
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({
      connectionString: process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      max: 1,
    });
  });
  afterAll(async () => pool?.end());

  const roundTrip = async (cast: string, values: unknown[]) => {
    const { rows } = await runQuery(pool, `SELECT $1::${cast} AS a`, [values], undefined);
    return (rows[0] as { a: unknown[] }).a;
  };

  it('text[]: any string comes back as sent, "NULL" and null apart', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: fc.constantFrom('\\', '"', ',', '{', '}', ' ', "'", 'N', 'U', 'L', '\n', '\t') }),
      fc.constantFrom('NULL', 'null', '', ' ', '"', '\\', '{}', 'a,b'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text.filter((s) => !s.includes('\0')))), async (values) => {
        expect(await roundTrip('text[]', values)).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('int8[], float8[] and bool[]: numbers and booleans come back as sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.maxSafeInteger())),
        fc.array(fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }))),
        fc.array(fc.option(fc.boolean())),
        async (ints, floats, bools) => {
          // pg reads int8[] elements as text.
          expect((await roundTrip('int8[]', ints)).map((x) => (x === null ? null : Number(x)))).toEqual(ints);
          // -0 reads back as 0 in float8's text form either way.
          expect((await roundTrip('float8[]', floats)).map((x) => (x === 0 ? 0 : x))).toEqual(
            floats.map((x) => (x === 0 ? 0 : x)),
          );
          expect(await roundTrip('bool[]', bools)).toEqual(bools);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('JSON text with quotes and escapes (the rubric votes column) comes back byte for byte', async () => {
    const votes = [JSON.stringify({ c1: [true, false, true], note: 'a "quoted" \\ path\\to' }), null, '[]'];
    expect(await roundTrip('text[]', votes)).toEqual(votes);
  });

  it("jsonArrayLiteral: PostgreSQL reads each value's JSON text, byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(jsonValues, async (values) => {
        const { rows } = await runQuery(pool, 'SELECT $1::text[] AS a', [jsonArrayLiteral(values)], undefined);
        expect((rows[0] as { a: unknown[] }).a).toEqual(jsonTexts(values));
      }),
      { numRuns: 200 },
    );
  });
});
