import { describe, expect, it } from 'vitest';
import { inputDigest, parseDocument, serializeDocument, serializeLines } from '../../src/snapshots/inputDocument.js';
import { sample } from './sample.js';

const text = serializeDocument(sample);
const lines = text.slice(0, -1).split('\n');
const withLines = (edit: (l: string[]) => string[]) => `${edit([...lines]).join('\n')}\n`;

describe('input document', () => {
  it('is canonical NDJSON: competition, tasks by id, runs by runId, one line each, trailing newline', () => {
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe(
      '{"competition":{"burnRatio":0.25,"counts":{"runs":2,"tasks":2},"excluded":{"miners":["m2"],"validators":[]},' +
        '"finalStages":["screener_2","evaluation"],"id":"c","judgeVotes":5,"miners":["m1","m2"],' +
        '"tokenWeights":{"cachedInput":0.1,"input":1,"output":3}}}',
    );
    expect(lines.slice(1, 3).map((l) => JSON.parse(l).task.id)).toEqual(['t1', 't2']);
    expect(lines.slice(3).map((l) => JSON.parse(l).run.runId)).toEqual(['r1', 'r2']);
    expect([...serializeLines(sample)].join('\n') + '\n').toBe(text);
  });

  it('reads back to the same document, and writing it again gives the same bytes and digest', () => {
    const doc = parseDocument(text);
    expect(serializeDocument(doc)).toBe(text);
    expect(parseDocument(lines)).toEqual(doc);
    expect(inputDigest(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(inputDigest(Buffer.from(text))).toBe(inputDigest(text));
  });

  it.each([
    ['an empty document', () => '', /^line 1: missing competition line/],
    [
      'an even number of judge votes (no majority)',
      () => withLines((l) => [l[0]!.replace(/"judgeVotes":\d+/, '"judgeVotes":4'), ...l.slice(1)]),
      /^line 1: .*judgeVotes.*odd/,
    ],
    ['a document cut mid-line', () => text.slice(0, -10), /^line 5: the document must end with a newline/],
    [
      'a document cut at a line boundary',
      () => withLines((l) => l.slice(0, 4)),
      /^line 5: the document ends early .*1 of 2 runs/,
    ],
    [
      'a missing competition line',
      () => withLines((l) => l.slice(1)),
      /^line 1: expected the competition line, found a task line/,
    ],
    [
      'a second competition line',
      () => withLines((l) => [l[0]!, l[0]!, ...l.slice(1)]),
      /^line 2: a second competition line/,
    ],
    [
      'a run before the tasks',
      () => withLines((l) => [l[0]!, l[3]!, l[1]!, l[2]!, l[4]!]),
      /^line 2: a run line after 0 of 2 task lines/,
    ],
    [
      'a task line after runs',
      () => withLines((l) => [l[0]!, l[1]!, l[3]!, l[2]!, l[4]!]),
      /^line 3: a run line after 1 of 2 task lines/,
    ],
    [
      'tasks out of order',
      () => withLines((l) => [l[0]!, l[2]!, l[1]!, l[3]!, l[4]!]),
      /^line 3: task.id: "t1" after "t2"/,
    ],
    [
      'runs out of order',
      () => withLines((l) => [...l.slice(0, 3), l[4]!, l[3]!]),
      /^line 5: run.runId: "r1" after "r2"/,
    ],
    [
      'a duplicate runId',
      () => withLines((l) => [...l.slice(0, 4), l[3]!, l[4]!]).replace('"runs":2', '"runs":3'),
      /^line 5: run.runId: "r1" after "r1"/,
    ],
    [
      'an unknown task id',
      () => text.replace('"taskId":"t1","tokens":null', '"taskId":"t9","tokens":null'),
      /^line 4: run.taskId: unknown task "t9"/,
    ],
    [
      'a miner run without a hotkey',
      () => text.replace('"minerHotkey":"m1"', '"minerHotkey":null'),
      /^line 5: run.minerHotkey: required for a miner run/,
    ],
    [
      'a miner not listed',
      () => text.replace('"minerHotkey":"m1"', '"minerHotkey":"m7"'),
      /^line 5: run.minerHotkey: "m7" is not in competition.miners/,
    ],
    ['a bad field', () => text.replace('"stage":"evaluation"', '"stage":"final"'), /^line 3: task.stage: /],
    ['a missing field', () => text.replace('"resolved":true,', ''), /^line 5: run.resolved: /],
    ['an unknown field', () => text.replace('"resolved":true,', '"resolved":true,"extra":1,'), /^line 5: run: .*extra/],
    ['a negative token count', () => text.replace('"input":5', '"input":-5'), /^line 5: run.tokens.input: /],
    ['a line that is not JSON', () => withLines((l) => [l[0]!, '{"task":', ...l.slice(2)]), /^line 2: not valid JSON/],
    ['a byte-order mark', () => `\uFEFF${text}`, /^line 1: starts with a byte-order mark/],
    ['a web page saved in its place', () => '<!doctype html>\n<html></html>\n', /^line 1: not JSON but markup/],
    [
      "the server's error answer saved in its place",
      () => '{"type":"urn:swe-scoring:problem:not-found","title":"Not found","status":404,"detail":"no snapshot 9"}\n',
      /^line 1: this is the server's error answer \(404 Not found\), not an input document/,
    ],
    ['a line of null', () => 'null\n', /^line 1: expected an object with one key/],
    [
      'a line of another kind',
      () => withLines((l) => [l[0]!, '{"snapshot":{}}', ...l.slice(2)]),
      /^line 2: expected an object with one key/,
    ],
    [
      'unsorted miners',
      () => text.replace('"miners":["m1","m2"]', '"miners":["m2","m1"]'),
      /^line 1: competition.miners: must be ascending/,
    ],
    [
      'an excluded miner not listed',
      () => text.replace('"miners":["m2"]', '"miners":["m3"]'),
      /^line 1: competition.excluded.miners: "m3"/,
    ],
  ])('rejects %s, naming the line and field', (_name, make, message) => {
    expect(() => parseDocument(make())).toThrow(message);
  });
});
