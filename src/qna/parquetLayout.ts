// Footer checks run before hyparquet decodes any page. A Parquet footer carries no checksum,
// and hyparquet believes what it says; these catch the inconsistencies a damaged footer
// shows, which would otherwise crash the process or silently drop rows.
import { parquetSchema, type FileMetaData, type SchemaTree } from 'hyparquet';

/** Throws an Error naming the first inconsistency; returns the number of rows the file holds. */
export function checkParquetLayout(metadata: FileMetaData): number {
  const leaves: SchemaTree[] = [];
  const collect = (node: SchemaTree) => {
    if (node.children.length === 0) leaves.push(node);
    node.children.forEach(collect);
  };
  parquetSchema(metadata).children.forEach(collect);
  const leafNames = leaves.map((leaf) => leaf.path.join('.'));
  if (new Set(leafNames).size !== leafNames.length) throw new Error('the schema repeats a column name');
  const expected = [...leafNames].sort().join('\n');
  // A flat column stores one value (or null) per row, so its value count must be the row count.
  const flat = new Set(
    leaves.filter((l) => l.path.length === 1 && l.element.repetition_type !== 'REPEATED').map((l) => l.path[0]),
  );

  let rows = 0n;
  for (const [index, group] of metadata.row_groups.entries()) {
    const groupRows = group.num_rows;
    if (typeof groupRows !== 'bigint' || groupRows < 0n) throw new Error(`row group ${index} has no valid row count`);
    // hyparquet 1.31.5 starts reading each column chunk as it walks the group and throws on a
    // chunk whose column the schema lacks; chunks already started are never awaited, and one
    // that fails escapes as an unhandled rejection, which ends a Node process.
    const chunks = group.columns.map((chunk) => chunk.meta_data?.path_in_schema.join('.') ?? '');
    if (chunks.sort().join('\n') !== expected)
      throw new Error(`row group ${index}: column chunks do not match the schema`);
    for (const chunk of group.columns) {
      const path = chunk.meta_data?.path_in_schema ?? [];
      if (path.length === 1 && flat.has(path[0]) && chunk.meta_data?.num_values !== groupRows) {
        throw new Error(
          `row group ${index}: column ${path[0]} holds ${chunk.meta_data?.num_values} values for ${groupRows} rows`,
        );
      }
    }
    rows += groupRows;
  }
  if (rows !== metadata.num_rows) throw new Error(`row groups hold ${rows} rows, the footer says ${metadata.num_rows}`);
  return Number(rows);
}
