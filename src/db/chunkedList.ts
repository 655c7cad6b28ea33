// The list of a competition's (task, miner) entries the in-memory pairs (./pairMirror.ts) hand to
// the scoring core, kept in chunks so that a write copies what it changes, not the list.
//
// A list handed out is never changed (the scoring state and the kept input hold it as it was);
// the mirror used to copy the whole list before its first change after handing it out: 83,000
// pointers (660 KB) at the reference competition and 307,000 (2.6 MB) at 4x, made on every write
// and kept until the next, most of what a cold read after a one-run write allocated. Here the
// versions share every chunk but the ones changed since: a one-run write copies one chunk and the
// array of chunks.
import type { EntryList } from '../scoring/types.js';

const SHIFT = 10;
/** Entries a chunk holds (the last one of a list may hold fewer). */
export const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

/** Walks the chunks in order: as fast as a loop over an array (a generator is about four times slower). */
class ChunkIterator<T> implements Iterator<T> {
  private c = 0;
  private i = 0;
  constructor(private readonly chunks: readonly (readonly T[])[]) {}

  next(): IteratorResult<T> {
    let chunk = this.chunks[this.c];
    while (chunk !== undefined && this.i >= chunk.length) {
      chunk = this.chunks[++this.c];
      this.i = 0;
    }
    return chunk === undefined ? { done: true, value: undefined } : { done: false, value: chunk[this.i++]! };
  }

  [Symbol.iterator](): Iterator<T> {
    return this;
  }
}

/** One version of the list, never changed: what the mirror hands out. */
export class ChunkedList<T> implements EntryList<T> {
  constructor(
    private readonly chunks: readonly (readonly T[])[],
    readonly length: number,
  ) {}

  at(index: number): T | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    return this.chunks[index >>> SHIFT]![index & MASK];
  }

  [Symbol.iterator](): Iterator<T> {
    return new ChunkIterator(this.chunks);
  }

  /** Serialized as the array it stands for. */
  toJSON(): T[] {
    return [...this];
  }
}

/**
 * The mirror's own list, changed in place: a chunk that a version handed out holds is copied
 * before its first change after the handing out, and the array of chunks with it.
 */
export class ChunkedBuffer<T> {
  private chunks: T[][] = [];
  /** Per chunk, the version in which this buffer made it its own (copied or created it). */
  private madeIn: number[] = [];
  /** Counts the versions handed out; chunks made in an earlier one are shared. */
  private version = 0;
  private chunksShared = false;
  length = 0;

  get(index: number): T | undefined {
    return index >= 0 && index < this.length ? this.chunks[index >>> SHIFT]![index & MASK] : undefined;
  }

  set(index: number, value: T): void {
    if (!(index >= 0 && index < this.length)) throw new RangeError(`index ${index} outside 0..${this.length - 1}`);
    this.own(index >>> SHIFT)[index & MASK] = value;
  }

  push(value: T): void {
    const c = this.length >>> SHIFT;
    if (c === this.chunks.length) {
      this.ownChunks();
      this.chunks.push([]);
      this.madeIn.push(this.version);
    }
    this.own(c).push(value);
    this.length++;
  }

  /** This version of the list; later changes to the buffer leave it as it is. */
  view(): ChunkedList<T> {
    const list = new ChunkedList<T>(this.chunks, this.length);
    this.version++;
    this.chunksShared = true;
    return list;
  }

  private ownChunks(): void {
    if (!this.chunksShared) return;
    this.chunks = this.chunks.slice();
    this.chunksShared = false;
  }

  private own(c: number): T[] {
    if (this.madeIn[c] !== this.version) {
      this.ownChunks();
      this.chunks[c] = this.chunks[c]!.slice();
      this.madeIn[c] = this.version;
    }
    return this.chunks[c]!;
  }
}
