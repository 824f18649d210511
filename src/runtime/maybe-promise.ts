/** A value, or a promise of it: what the hot path returns so that sync work stays sync. */
export type MaybePromise<T> = T | Promise<T>;

/** Whether a node, router or store answered with a promise (anything with `then`). */
export const isThenable = <T>(value: MaybePromise<T> | unknown): value is PromiseLike<T> =>
  typeof (value as PromiseLike<T> | null)?.then === "function";
