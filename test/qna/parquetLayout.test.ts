// Footer inconsistencies are refused before any page is decoded (see parquetLayout.ts).
import { parquetMetadata, type FileMetaData } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { checkParquetLayout } from '../../src/qna/parquetLayout.js';
import { parquetBytes } from './fixtures.js';

const realMetadata = (): FileMetaData => parquetMetadata(parquetBytes().buffer as ArrayBuffer);
const firstGroup = (metadata: FileMetaData) => metadata.row_groups[0]!;

describe('checkParquetLayout', () => {
  it('accepts the real file and returns its row count', () => {
    expect(checkParquetLayout(realMetadata())).toBe(124);
  });

  it.each<[string, (m: FileMetaData) => void, RegExp]>([
    [
      'a column chunk the schema does not name',
      (m) => (firstGroup(m).columns[4]!.meta_data!.path_in_schema = ['repository_xase_commit']),
      /do not match the schema/,
    ],
    ['a column chunk missing', (m) => firstGroup(m).columns.pop(), /do not match the schema/],
    [
      'a row group with fewer rows than its columns hold values',
      (m) => (firstGroup(m).num_rows = 116n),
      /holds 124 values for 116 rows/,
    ],
    ['a row group with a negative row count', (m) => (firstGroup(m).num_rows = -18n), /no valid row count/],
    ['a file row count that is not the sum of its groups', (m) => (m.num_rows = 200n), /the footer says 200/],
    ['a schema that repeats a column name', (m) => (m.schema[2]!.name = 'task_id'), /repeats a column name/],
  ])('refuses %s', (_name, damage, message) => {
    const metadata = realMetadata();
    damage(metadata);
    expect(() => checkParquetLayout(metadata)).toThrow(message);
  });
});
