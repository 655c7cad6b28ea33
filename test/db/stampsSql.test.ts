// The stamps a PostgreSQL write sends with its COMMIT (src/db/pg/stamps.ts) are literal SQL: each
// identifier goes in once, quoted, whatever it holds (the store takes ids the API's patterns would
// refuse: the copy tool, older data), and nothing in one is read as a placeholder of another.
import { expect, it } from 'vitest';
import { pairKey } from '../../src/db/events.js';
import { stampsSql } from '../../src/db/pg/stamps.js';

const literal = (v: string) => `'${v.replaceAll("'", "''")}'`;

it('quotes every identifier once, holding $1, $2 or a quote as they are', () => {
  const sql = stampsSql(
    new Map([["c$1'", 7]]),
    [
      { competitionId: "c$1'", kind: 'pair', pair: pairKey('t$2', 'h$1') },
      { competitionId: "c$1'", kind: 'pair', pair: pairKey('t$3', "h'$4") },
    ],
    literal,
  );
  expect(sql).toContain(
    `SELECT 'c$1''', u.task_id, u.hotkey, 7 FROM unnest(ARRAY['t$2','t$3']::text[], ARRAY['h$1','h''$4']::text[])`,
  );
  expect(sql.match(/c\$1''/g)).toHaveLength(1);
});

it('restarts the stamps after a rebuild, and says nothing for a competition with no pair changed', () => {
  const sql = stampsSql(
    new Map([
      ['a', 3],
      ['b', 4],
    ]),
    [
      { competitionId: 'a', kind: 'pair', pair: pairKey('t', 'h') },
      { competitionId: 'a', kind: 'rebuild' },
      { competitionId: 'b', kind: 'settings' },
    ],
    literal,
  );
  expect(sql).toBe(`UPDATE competition_versions SET stamped_from = version + 1 WHERE competition_id = 'a'`);
});
