// Hostile requests drawn from the OpenAPI document itself: every operation it lists is sent, with
// the credentials it takes, mutated bodies (every field of a valid body given the wrong JSON type,
// left out, beside an unknown one, at the edges of the numbers, as huge, empty or odd unicode text),
// mutated path parameters and mutated query strings, against a competition holding tasks and runs.
// Each answer must be below 500; a 4xx must be a problem+json naming where the fault is; a refused
// request must leave the database as it was; and every run acknowledged along the way must read back.
// Seeded (test/support/prng.ts): a failure replays exactly.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin } from '../support/app.js';
import { prng, type Rng } from '../support/prng.js';
import type { Json } from '../support/json.js';
import { encodeSs58 } from '../../src/signatures/ss58.js';
import { COMPETITION, QNA_TASK, TASKS, setupCompetition } from './fixture.js';
import { hostileTarget, qnaRun, validRun, type Target } from './hostileKit.js';

const SEED = 0x0a9e4f11;
const doc = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
const OTHER = 'fz2';
const ss58 = (byte: number) => encodeSs58(new Uint8Array(32).fill(byte), 42);

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  $ref?: string;
  [k: string]: unknown;
}
interface Operation {
  method: string;
  path: string;
  id: string;
  params: { in: string; name: string; schema: Schema }[];
  contentType?: string;
  bodySchema?: Schema;
  security: string[];
}

const resolve = (s: Schema | undefined): Schema => {
  let out = s ?? {};
  while (out.$ref) out = doc.components.schemas[out.$ref.split('/').pop()!] as Schema;
  return out;
};
/** The branch of a union that fits `value`: the object one for an object, and so on. */
function branch(s: Schema, value: unknown): Schema {
  const r = resolve(s);
  const options = r.anyOf ?? r.oneOf;
  if (!options) return r;
  const all = options.map(resolve);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const kind = (value as Record<string, unknown>).kind;
    return (
      all.find((o) => o.properties?.kind?.const === kind && kind !== undefined) ??
      all.find((o) => o.type === 'object') ??
      r
    );
  }
  if (Array.isArray(value)) return all.find((o) => o.type === 'array') ?? r;
  return all.find((o) => o.type !== 'null') ?? r;
}
const typeOf = (s: Schema): string => {
  const r = resolve(s);
  if (r.anyOf ?? r.oneOf) return typeOf(branch(r, undefined));
  return Array.isArray(r.type) ? r.type[0]! : (r.type ?? 'any');
};
const nullable = (s: Schema): boolean => {
  const r = resolve(s);
  return (r.anyOf ?? r.oneOf ?? []).some((o) => resolve(o).type === 'null');
};

const operations: Operation[] = [];
for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>))
  for (const [method, op] of Object.entries(methods)) {
    if (!['get', 'put', 'post', 'delete'].includes(method)) continue;
    const content = (op.requestBody?.content ?? {}) as Record<string, { schema: Schema }>;
    const contentType = Object.keys(content)[0];
    operations.push({
      method: method.toUpperCase(),
      path,
      id: op.operationId as string,
      params: (op.parameters ?? []).filter((p: Json) => p.in !== 'header'),
      contentType,
      bodySchema: contentType ? content[contentType]!.schema : undefined,
      security: (op.security ?? []).flatMap((s: Json) => Object.keys(s)),
    });
  }

/** Raw JSON text put in place of a string marker after serialising (-0, 1e400, NaN, a raw `__proto__`). */
const RAW = (text: string) => `\u0000RAW${text}\u0000`;
const serialise = (body: unknown) =>
  JSON.stringify(body).replace(/"\\u0000RAW(.*?)\\u0000"/g, (_, text: string) => JSON.parse(`"${text}"`) as string);

const HUGE = 'x'.repeat(3 << 20);
const oddStrings = [
  '',
  ' ',
  HUGE,
  'a'.repeat(129),
  '\ud800',
  'x\udfffy',
  'nul\u0000byte',
  '\u202eevil',
  '\u200f\u2066rtl\u2069',
  '😀'.repeat(40),
  'e\u0301',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  'a/b',
  "x' OR '1'='1",
  'NaN',
  '-0',
  '1e308',
];
const numbers = [-1, 0, RAW('-0'), 2 ** 53, 2 ** 53 - 1, 1e308, -1e308, 0.5, RAW('1e400'), RAW('NaN'), RAW('Infinity')];
const nanLike = ['NaN', 'Infinity', '-Infinity', '-0', '0x10', '1e3', '', ' 1'];
const wrongTypes: Record<string, unknown[]> = {
  string: [1, true, null, [], {}, ['x']],
  number: ['1', true, null, [1], {}],
  integer: ['1', true, null, [1], {}, 1.5],
  boolean: ['true', 1, 0, null, [], {}],
  array: [{}, 'x', 1, null, { 0: 'x' }],
  object: [[], 'x', 1, null, true, [{}]],
  any: [],
};

interface Mutation {
  name: string;
  /** Where the fault is, as the problem should name it: `body/runs/0/taskId`, `params/competitionId`. */
  at: string;
  /** A value the contract refuses: a 2xx answer is a defect. */
  refused: boolean;
  /** The path parameter's value, as sent (percent-encoded). */
  value?: string;
  method?: string;
  url?: string;
  body?: string | Buffer;
  contentType?: string;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
function setAt(root: unknown, keys: (string | number)[], value: unknown, remove = false): unknown {
  const copy = clone(root);
  if (keys.length === 0) return value;
  let node = copy as Record<string | number, unknown>;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  const last = keys[keys.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/** Every mutation of a valid JSON body, field by field, following its schema. */
function bodyMutations(rng: Rng, base: unknown, schema: Schema): Mutation[] {
  const out: Mutation[] = [];
  const push = (name: string, keys: (string | number)[], body: unknown, refused: boolean, at = keys, value?: string) =>
    out.push({ name, at: ['body', ...at].join('/'), refused, body: serialise(body), value });
  const sample = <T>(items: readonly T[], n: number) => {
    const copy = items.slice();
    const picked: T[] = [];
    while (picked.length < n && copy.length > 0) picked.push(copy.splice(rng.below(copy.length), 1)[0]!);
    return picked;
  };
  const walk = (value: unknown, s: Schema, keys: (string | number)[]) => {
    const r = branch(s, value);
    const type = typeOf(r);
    const where = keys.join('/') || '(the body)';
    // The wrong JSON type.
    for (const w of sample(wrongTypes[type] ?? [], 3))
      if (!(w === null && nullable(s))) push(`${where} as ${JSON.stringify(w)}`, keys, setAt(base, keys, w), true);
    if (type === 'number' || type === 'integer')
      for (const n of sample(numbers, 5)) {
        // NaN and Infinity are not JSON: the body is refused as such, at its line and column.
        const notJson = n === RAW('NaN') || n === RAW('Infinity');
        push(
          `${where} = ${String(n).split('\u0000').join('').replace('RAW', '')}`,
          keys,
          setAt(base, keys, n),
          notJson,
          notJson ? [] : keys,
        );
      }
    if (type === 'number' || type === 'integer')
      push(`${where} as a NaN-like string`, keys, setAt(base, keys, rng.pick(nanLike)), true);
    if (type === 'string')
      for (const str of sample(oddStrings, 5))
        push(`${where} = ${JSON.stringify(str.slice(0, 20))}`, keys, setAt(base, keys, str), false, keys, str);
    if (type === 'array' && Array.isArray(value)) {
      push(`${where} empty`, keys, setAt(base, keys, []), false);
      push(`${where} as its first item`, keys, setAt(base, keys, value[0]), true);
      value.forEach((item, i) => walk(item, r.items ?? {}, [...keys, i]));
    }
    if (type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
      const fields = r.properties ?? {};
      const closed = r.additionalProperties === false;
      push(`${where} with an unknown field`, keys, setAt(base, [...keys, 'zzUnknown'], 1), closed, [
        ...keys,
        'zzUnknown',
      ]);
      for (const poison of ['__proto__', 'constructor']) {
        const marker = `zz${poison}`;
        const body = serialise(setAt(base, [...keys, marker], { polluted: true })).replace(
          `"${marker}"`,
          `"${poison}"`,
        );
        const refused = poison === '__proto__' || closed;
        out.push({ name: `${where} with a ${poison} key`, at: ['body', ...keys, poison].join('/'), refused, body });
      }
      if (keys.length > 0) push(`${where} inside an array`, keys, setAt(base, keys, [value]), true);
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        if (r.required?.includes(key))
          push(`${where} without ${key}`, [...keys, key], setAt(base, [...keys, key], undefined, true), true);
        if (fields[key]) walk(child, fields[key], [...keys, key]);
      }
    }
  };
  walk(base, schema, []);
  for (const whole of ['[]', 'null', '"x"', '1', 'true'])
    out.push({ name: `the body as ${whole}`, at: 'body', refused: true, body: whole });
  return out;
}

const longId = 'a'.repeat(129);
const pathValues: [string, boolean][] = [
  ['', true],
  // '.', '..' and '%2E%2E' are left out: inject resolves them as a URL does (WHATWG), so the server
  // would see another path; hostile-transport and the e2e suites send them over a socket.
  ['a%2Fb', true],
  ['%2F', true],
  ['a%5Cb', true],
  [longId, true],
  ['a'.repeat(2000), true],
  ['a'.repeat(128), false],
  ['__proto__', false],
  ['constructor', false],
  ['toString', false],
  ['%00', true],
  ['a%20b', true],
  ['%E2%80%AE', true],
  ['%F0%9F%98%80', true],
  ['%ED%A0%80', true],
  ['%ZZ', true],
  ['-1', false],
  ['0', false],
  ['9007199254740993', false],
  ['1e308', false],
  ['NaN', false],
  ['no-such-thing', false],
];

function queryMutations(rng: Rng, op: Operation, baseQuery: Record<string, string>): Mutation[] {
  const out: Mutation[] = [];
  const qs = (pairs: [string, string | null][]) =>
    pairs.length === 0 ? '' : '?' + pairs.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&');
  const base = Object.entries(baseQuery).map(([k, v]) => [k, encodeURIComponent(v)] as [string, string]);
  const add = (name: string, at: string, pairs: [string, string | null][], refused: boolean) =>
    out.push({ name, at, refused, url: qs(pairs) });
  // Only /v1 routes refuse unknown parameters (src/plugins/strictQuery.ts): probes and scrapers add their own.
  const strict = op.path.startsWith('/v1/');
  add('an unknown key', 'querystring/zzUnknown', [...base, ['zzUnknown', '1']], strict);
  add('a __proto__ key', 'querystring/__proto__', [...base, ['__proto__', '1']], strict);
  add('a constructor[x] key', 'querystring/constructor', [...base, ['constructor[x]', '1']], strict);
  for (const p of op.params.filter((x) => x.in === 'query')) {
    const others = base.filter(([k]) => k !== p.name);
    const at = `querystring/${p.name}`;
    const value = baseQuery[p.name] ?? '1';
    add(`${p.name} twice`, at, [...others, [p.name, value], [p.name, value]], true);
    add(`${p.name}[]`, at, [...others, [`${p.name}[]`, value]], true);
    add(`${p.name}[0]`, at, [...others, [`${p.name}[0]`, value]], true);
    add(`${p.name} empty`, at, [...others, [p.name, '']], false);
    add(`${p.name} bare`, at, [...others, [p.name, null]], false);
    const values = ['-1', '0', '-0', '9007199254740992', '1e308', 'NaN', 'Infinity', '0x10', '%2C', '%ED%A0%80'];
    values.push('%00', '%E2%80%AE', 'x'.repeat(rng.pick([129, 300, 30000])), '%F0%9F%98%80', '__proto__');
    for (const v of values) add(`${p.name}=${v.slice(0, 20)}`, at, [...others, [p.name, v]], false);
  }
  return out;
}

let target: Target;
let count = 0;
/** Answers by status, for the log line: a fuzz that got only 401s would say so. */
const statuses: Record<number, number> = {};
const fixed: Record<string, string> = {};
const acknowledged = new Set<string>();
let seq = 0;

beforeAll(async () => {
  target = await hostileTarget();
  const call = (method: string, url: string, payload?: unknown, headers: Record<string, string> = admin) =>
    target.t.call({ method: method, url, headers, payload: payload as object });
  await setupCompetition((method, url, payload) => call(method, url, payload), OTHER);
  const must = async (res: Promise<{ status: number; body: Json }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`setup: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const validators = (await must(call('GET', '/v1/validators'))).validators as Json[];
  fixed.validator = validators.find((v) => v.name === 'hostile')!.id as string;
  fixed.sacrificial = (await must(call('POST', '/v1/validators', { name: 'sacrificial' }))).id as string;
  const asValidator = { authorization: `Bearer ${target.validatorKey}` };
  await must(call('POST', `/v1/competitions/${COMPETITION}/runs`, { runs: [validRun('fz-del')] }, asValidator));
  const judge = JSON.parse(readFileSync(new URL('../../fixtures/swe-atlas-qna/judge.json', import.meta.url), 'utf8'));
  fixed.digest = (await must(call('PUT', `/v1/competitions/${OTHER}/judge`, { ...judge, votes: 3 }))).digest as string;
  await must(call('POST', `/v1/competitions/${COMPETITION}/snapshots`, { note: 'fuzz' }));
  fixed.session = (await must(call('POST', `/v1/competitions/${COMPETITION}/tasks/imports`, { format: 'jsonl' })))
    .sessionId as string;
  fixed.doomedSession = (await must(call('POST', `/v1/competitions/${COMPETITION}/tasks/imports`, { format: 'jsonl' })))
    .sessionId as string;
  const input = await target.t.app.inject({ method: 'GET', url: `/v1/competitions/${COMPETITION}/snapshots/1/input` });
  if (input.statusCode !== 200) throw new Error(`snapshot input: ${input.statusCode}`);
  fixed.scoreInput = input.body;
  fixed.row = readFileSync(new URL('../../fixtures/swe-atlas-qna/tasks.jsonl', import.meta.url), 'utf8').split(
    '\n',
  )[0]!;
});
afterAll(async () => {
  console.log(
    `[hostile-openapi] ${operations.length} operations, ${count} requests, by status ${JSON.stringify(statuses)}`,
  );
  await target?.t.close();
});

const competitionSettings = { name: 'Reliability', judgeVotes: 3, burnRatio: 0.1, validators: null };

/** A valid request body for the operation, fresh ids each time. */
function validBody(op: Operation): unknown {
  const key = `${op.method} ${op.path}`;
  const n = ++seq;
  const qna = TASKS.find((t) => t.id === QNA_TASK)!;
  const bodies: Record<string, unknown> = {
    'PUT /v1/competitions/{competitionId}': {
      ...competitionSettings,
      tokenWeights: { input: 1, cachedInput: 0.1, output: 4 },
      finalStages: ['evaluation'],
    },
    'PUT /v1/competitions/{competitionId}/tasks': {
      tasks: [
        { id: `fz-t${n}`, type: 'swebench_verified', complexity: 'short', stage: 'evaluation', plannedRuns: 3 },
        { ...qna, id: `fz-q${n}` },
      ],
    },
    'POST /v1/validators': { name: `fz-${n}` },
    'POST /v1/validators/heartbeat': { version: '1.0.0', codeDigest: 'a'.repeat(64) },
    'PUT /v1/competitions/{competitionId}/validators/{validatorId}': { excluded: false, reason: 'fuzz' },
    'PUT /v1/competitions/{competitionId}/miners/{hotkey}': { excluded: false, reason: 'fuzz' },
    'POST /v1/competitions/{competitionId}/runs': {
      runs: [
        validRun(`fz-r${n}`, { attemptNo: 1, timeTakenSeconds: 1.5, agentSteps: 3 }),
        validRun(`fz-b${n}`, {
          kind: 'baseline',
          minerHotkey: undefined,
          tokens: { input: 5, cachedInput: 1, output: 2 },
        }),
        qnaRun(`fz-q${n}`),
      ],
    },
    'PUT /v1/competitions/{competitionId}/metagraph': {
      netuid: 1,
      block: 100 + n,
      neurons: [
        { uid: 0, hotkey: ss58(1), validator: true },
        { uid: 1, hotkey: ss58(2) },
      ],
      burnUid: 0,
      versionKey: 1,
      maxWeightLimit: 0.5,
      minAllowedWeights: 1,
    },
    'PUT /v1/competitions/{competitionId}/judge': {
      model: 'm',
      reasoningEffort: 'high',
      votes: 3,
      temperature: 0.5,
      promptTemplate: 'grade on {answer_date}',
      outputSchema: { type: 'object', properties: { verdict: { type: 'string' } } },
    },
    'POST /v1/competitions/{competitionId}/snapshots': { stages: ['evaluation'], note: 'fuzz' },
    'POST /v1/competitions/{competitionId}/tasks/imports': {
      format: 'jsonl',
      stage: 'evaluation',
      complexity: 'short',
    },
  };
  if (!(key in bodies)) throw new Error(`no valid body for ${key}`);
  return bodies[key];
}

/** Valid path parameters for the operation. */
function validParams(op: Operation): Record<string, string> {
  const deleting = op.method === 'DELETE';
  const settingsOfOther = /\/(judge|metagraph)$/.test(op.path);
  return {
    competitionId: settingsOfOther ? OTHER : COMPETITION,
    taskId: 'sw-1',
    hotkey: op.method === 'PUT' ? 'hk-c' : 'hk-a',
    runId: deleting ? 'fz-del' : 'stored-1',
    id: fixed.sacrificial!,
    validatorId: fixed.sacrificial!,
    digest: fixed.digest!,
    seq: '1',
    sessionId: deleting ? fixed.doomedSession! : fixed.session!,
    n: '0',
  };
}
const validQuery: Record<string, string> = {
  stages: 'evaluation',
  limit: '10',
  offset: '0',
  hotkeys: 'hk-a,hk-b',
  competition: COMPETITION,
  miner: 'hk-a',
  task: 'sw-1',
  kind: 'miner',
  missing: 'false',
  format: 'csv',
  stage: 'evaluation',
  complexity: 'short',
};

/** The route's own credentials: a validator's key where it takes one (runs, heartbeats, public reads), else the admin token. */
function credentials(op: Operation): string | undefined {
  if (op.security.length === 0) return undefined;
  return op.security.includes('validatorKey') ? target.validatorKey : ADMIN_TOKEN;
}

function fillPath(op: Operation, params: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? 'x');
}

/** Raw bodies for the operations that take files (NDJSON, Parquet, chunks). */
function fileMutations(op: Operation): Mutation[] {
  const valid = op.path === '/v1/score' ? fixed.scoreInput! : `${fixed.row}\n`;
  const bodies: [string, string | Buffer][] = [
    ['empty', ''],
    ['null line', 'null\n'],
    ['an array line', '[1]\n'],
    ['a number line', '1\n'],
    ['a __proto__ line', '{"__proto__": {"polluted": true}}\n'],
    ['a lone surrogate', '{"a": "\\ud800"}\n'],
    ['a NUL', '{"a": "\\u0000"}\n'],
    ['not UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a])],
    ['the first line doubled', valid.split('\n')[0] + '\n' + valid],
    ['the valid body cut short', valid.slice(0, Math.floor(valid.length / 2))],
    ['a huge line', `{"a": "${HUGE}"}\n`],
    ['an unknown field on the first line', valid.replace(/^\{/, '{"zzUnknown": 1, ')],
    ['random bytes', Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919) % 256))],
  ];
  const contentType = op.path.endsWith('/import') ? 'application/x-ndjson' : op.contentType;
  return bodies.map(([name, body]) => ({
    name: `${op.id} file ${name}`,
    at: 'file',
    refused: false,
    body,
    contentType,
  }));
}

/** The valid body sent with mutated parameters. */
function validPayload(op: Operation): { body?: string; contentType?: string } {
  if (!op.contentType) return {};
  if (op.contentType === 'application/json') return { body: JSON.stringify(validBody(op)) };
  if (op.path === '/v1/score') return { body: fixed.scoreInput!, contentType: op.contentType };
  return { body: `${fixed.row}\n`, contentType: op.path.endsWith('/import') ? 'application/x-ndjson' : op.contentType };
}

function mutationsFor(rng: Rng, op: Operation): Mutation[] {
  const out: Mutation[] = [];
  if (op.bodySchema && op.contentType === 'application/json')
    out.push(...bodyMutations(rng, validBody(op), op.bodySchema));
  else if (op.contentType) out.push(...fileMutations(op));
  else if (op.method !== 'POST')
    out.push({
      name: 'a body where none is taken',
      at: 'body',
      refused: true,
      body: '{"a":1}',
      contentType: 'application/json',
    });
  for (const p of op.params.filter((x) => x.in === 'path'))
    for (const [value, refused] of pathValues) {
      const params = { ...validParams(op), [p.name]: value };
      // Where a value is a valid id the route may answer anything below 500 but must not take it for another.
      out.push({
        name: `${p.name} = ${value.slice(0, 24)}`,
        at: `params/${p.name}`,
        refused,
        value,
        url: fillPath(op, params),
        ...validPayload(op),
      });
    }
  const query = Object.fromEntries(
    op.params
      .filter((p) => p.in === 'query' && validQuery[p.name] !== undefined)
      .map((p) => [p.name, validQuery[p.name]!]),
  );
  out.push(
    ...queryMutations(rng, op, query).map((m) => ({
      ...m,
      url: fillPath(op, validParams(op)) + m.url,
      ...validPayload(op),
    })),
  );
  return out;
}

interface Failure {
  op: string;
  name: string;
  problem: string;
}

/** Does the problem name where the fault is? */
function names(body: Json, at: string, value: string | undefined): boolean {
  const errors = (Array.isArray(body.errors) ? body.errors : []) as { path?: string; message?: string }[];
  const detail = String(body.detail ?? '');
  const parts = at.split('/');
  const leaf = parts[parts.length - 1]!;
  if (errors.some((e) => typeof e.path === 'string' && (e.path === at || e.path.startsWith(`${at}/`)))) return true;
  // An ancestor's path, with the field named in its message.
  if (errors.some((e) => typeof e.path === 'string' && at.startsWith(`${e.path}/`) && String(e.message).includes(leaf)))
    return true;
  if (detail.includes(at)) return true;
  // A file (an import, a chunk, an input document) is named by its line or as the file.
  if (at === 'file')
    return (
      errors.some((e) => /^(file|body|line \d+|row \d+)/.test(String(e.path))) ||
      /line \d+|row \d+|file|chunk/.test(detail)
    );
  // A value taken by the schema and refused further on (an unknown task, votes on a task without a
  // rubric) is named by its value: 'run r on task constructor: votes sent for a task without a rubric'.
  if (at.startsWith('body/') && value !== undefined && value.length >= 3 && detail.includes(value)) return true;
  if (at === 'body' && errors.some((e) => e.path === 'body'))
    return /line \d+, column \d+/.test(detail) || !/not valid JSON/.test(detail);
  if (at.startsWith('params/')) {
    // A 404 names the id it did not find.
    return value !== undefined && value !== '' && detail.includes(decodeURIComponentSafe(value));
  }
  return false;
}
const decodeURIComponentSafe = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

it('every operation of the OpenAPI document answers mutated requests below 500, naming the fault, storing nothing refused', async () => {
  const rng = prng(SEED);
  const t = target.t;
  const failures: Failure[] = [];
  const seen = new Set<string>();
  expect(operations.length).toBeGreaterThan(40);
  let state = await t.dump();
  for (const op of operations) {
    const mutations = mutationsFor(rng, op);
    for (const m of mutations) {
      const token = credentials(op);
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const url = m.url ?? fillPath(op, validParams(op));
      if (m.body !== undefined) headers['content-type'] = m.contentType ?? op.contentType ?? 'application/json';
      const events = op.path.endsWith('/events');
      const res = await t.app.inject({
        method: m.method ?? op.method,
        url,
        headers,
        payload: m.body,
        payloadAsStream: events,
      });
      count++;
      let text: string;
      if (events) {
        if (res.statusCode === 200) {
          res.stream().destroy();
          continue;
        }
        text = '';
        for await (const chunk of res.stream()) text += String(chunk);
      } else text = res.body;
      let body: Json = {};
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      const label = `${op.method} ${op.path}`;
      const fail = (why: string) => {
        const key = `${label} ${why}`;
        if (seen.has(`${key} ${m.name}`)) return;
        seen.add(`${key} ${m.name}`);
        failures.push({ op: label, name: `${m.name}: ${why}`, problem: `${res.statusCode} ${text.slice(0, 400)}` });
      };
      const status = res.statusCode;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 500) fail('a 5xx');
      else if (status >= 400) {
        if (!/^application\/problem\+json/.test(String(res.headers['content-type']))) fail('not problem+json');
        else if (typeof body.detail !== 'string' || body.status !== status) fail('a problem without detail or status');
        else if (status === 400 && !names(body, m.at, m.value)) fail(`does not name ${m.at}`);
        else if (
          !names(body, m.at, m.value) &&
          status !== 401 &&
          status !== 403 &&
          status !== 409 &&
          status !== 429 &&
          status !== 413 &&
          status !== 414 &&
          status !== 415
        )
          fail(`does not name ${m.at}`);
      } else if (m.refused && status < 300) fail(`accepted (${status})`);
      if (status >= 400) {
        const after = await t.dump();
        if (after !== state) {
          fail('a refused request changed the database');
          state = after;
        }
      } else {
        state = await t.dump();
        if (status < 300 && op.path === '/v1/competitions/{competitionId}/runs' && op.method === 'POST' && m.body) {
          for (const run of JSON.parse(String(m.body)).runs as Json[]) acknowledged.add(run.runId as string);
        }
        if (status < 300 && op.path === '/v1/competitions/{competitionId}/runs/{runId}' && op.method === 'DELETE')
          acknowledged.delete(decodeURIComponentSafe(url.split('/').pop()!.split('?')[0]!));
        if (status < 300 && op.path === '/v1/competitions/{competitionId}' && op.method === 'PUT') {
          await t.call({
            method: 'PUT',
            url: `/v1/competitions/${COMPETITION}`,
            headers: admin,
            payload: competitionSettings,
          });
          state = await t.dump();
        }
      }
    }
  }
  for (const runId of acknowledged) {
    const res = await t.call({ method: 'GET', url: `/v1/competitions/${COMPETITION}/runs/${runId}` });
    if (res.status !== 200)
      failures.push({ op: 'GET run', name: `acknowledged ${runId} lost`, problem: String(res.status) });
  }
  if (process.env.FUZZ_OUT) writeFileSync(process.env.FUZZ_OUT, JSON.stringify(failures, null, 1));
  expect(failures.map((f) => `${f.op} | ${f.name} | ${f.problem}`).join('\n')).toBe('');
}, 240_000);
