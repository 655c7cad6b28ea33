// Values that may still be computing. A warm read finds everything it needs computed already;
// reading it through promises cost several microtask turns per request, so a cache entry keeps
// its value once it has one and a read chains through `chain` below: at once when it can, by
// promise when it must wait. Either way the same functions run, in the same order.

export type Maybe<T> = T | Promise<T>;

/** A promise that keeps its value once fulfilled. */
export class Settled<T> {
  #value: { v: T } | undefined;
  constructor(readonly promise: Promise<T>) {
    promise.then(
      (v) => {
        this.#value = { v };
      },
      () => {}, // its readers see the rejection through `promise`
    );
  }

  /** The value once fulfilled, else the promise. */
  get(): Maybe<T> {
    return this.#value ? this.#value.v : this.promise;
  }
}

/** `f(x)` now when `x` is a value, else once `x` is fulfilled. */
export function chain<T, U>(x: Maybe<T>, f: (t: T) => Maybe<U>): Maybe<U> {
  return x instanceof Promise ? x.then(f) : f(x);
}
