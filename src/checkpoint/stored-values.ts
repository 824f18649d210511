import type { Checkpoint } from "./checkpointer.js";
import { setOwn, stringifyStored } from "./serde.js";

/**
 * How a database store keeps channel values: each checkpoint names, per channel, the
 * version that holds its value (`ChannelVersions`: the id of the checkpoint that wrote it),
 * and a channel is stored again only when a checkpoint changed it. Small values (see
 * `isInline`) stay in the checkpoint's own row instead. A list that grew at its
 * end is stored as the items appended to its earlier version, so a conversation costs
 * what its messages weigh, not the square of it. Reading a checkpoint walks each
 * channel's chain back to a whole value (`assembleValues`).
 */

/** Channel name -> the version (id of the checkpoint that wrote it) holding its value. */
export type ChannelVersions = Record<string, string>;

/**
 * One stored version of a channel: the whole value (`prev` null), or the first `keep`
 * items of the list at version `prev` followed by the items in `payload`. `base` names
 * the whole value the chain starts from (null for a whole value): every link lies between
 * the two versions, so a store reads a chain with one range scan.
 */
export interface StoredValue {
  channel: string;
  version: string;
  prev: string | null;
  keep: number | null;
  base: string | null;
  /** JSON text: the value, or the appended items. */
  payload: string;
}

/** What a store remembers of the last checkpoint of a (thread, ns) it wrote or read. */
interface Known {
  id: string;
  versions: ChannelVersions;
  /** Channel -> the whole version its chain starts from. */
  bases: ChannelVersions;
  /** The channel values as they were (a shallow copy: later changes in place do not count). */
  values: Record<string, unknown>;
  /** For each list, its length then: a list that grew in place is still seen as grown. */
  lengths: Record<string, number>;
}

/** How many (thread, ns) pairs a store remembers; beyond it the oldest are forgotten. */
const KNOWN_LIMIT = 1000;

/**
 * The last checkpoint a store wrote or read per (thread, ns), to store the next one as
 * what changed. A checkpoint whose parent is not the one remembered is stored whole: the
 * cache makes values smaller, never different. Values are compared by reference — state
 * is replaced, not changed in place — as LangGraph's channel versions are.
 */
export class KnownValues {
  readonly #known = new Map<string, Known>();

  /**
   * Encode `checkpoint`'s values against what is known of its parent (`fromParent`: false
   * stores every channel whole). `kept` lists the earlier versions it relies on, as
   * parallel lists of channels and versions, for a store to check they still exist.
   */
  encode(
    checkpoint: Checkpoint,
    fromParent = true,
  ): {
    /** The checkpoint's values as its own row keeps them: small ones, `null` for the rest. */
    inline: Record<string, unknown>;
    versions: ChannelVersions;
    bases: ChannelVersions;
    stored: StoredValue[];
    kept: [string[], string[]];
  } {
    const parent =
      fromParent && checkpoint.parentId
        ? this.#known.get(keyOf(checkpoint.threadId, checkpoint.ns))
        : undefined;
    const base = parent && parent.id === checkpoint.parentId ? parent : undefined;
    const inline: Record<string, unknown> = {};
    const versions: ChannelVersions = {};
    const bases: ChannelVersions = Object.create(null);
    const stored: StoredValue[] = [];
    const kept: [string[], string[]] = [[], []];
    const { id, values } = checkpoint;
    for (const channel in values) {
      const value = values[channel];
      if (isInline(value)) {
        setOwn(inline, channel, value);
        continue;
      }
      setOwn(inline, channel, null);
      const was = base && Object.hasOwn(base.versions, channel) ? base : undefined;
      if (was) {
        const before = was.values[channel];
        const version = was.versions[channel]!;
        kept[0].push(channel);
        kept[1].push(version);
        const chainBase = was.bases[channel]!;
        if (before === value && !Array.isArray(value)) {
          setOwn(versions, channel, version);
          bases[channel] = chainBase;
          continue;
        }
        if (Array.isArray(value) && Array.isArray(before)) {
          const keep = sharedPrefix(before, was.lengths[channel]!, value);
          if (keep === value.length && keep === was.lengths[channel]) {
            setOwn(versions, channel, version);
            bases[channel] = chainBase;
            continue;
          }
          if (keep > 0) {
            setOwn(versions, channel, id);
            bases[channel] = chainBase;
            const payload = json(value.slice(keep), id);
            stored.push({ channel, version: id, prev: version, keep, base: chainBase, payload });
            continue;
          }
        }
        kept[0].pop();
        kept[1].pop();
      }
      setOwn(versions, channel, id);
      bases[channel] = id;
      stored.push({
        channel,
        version: id,
        prev: null,
        keep: null,
        base: null,
        payload: json(value, id),
      });
    }
    return { inline, versions, bases, stored, kept };
  }

  /**
   * Remember a checkpoint the store wrote or read, with its versions and their chains'
   * bases (none: a row from before channel versions).
   */
  remember(
    checkpoint: Checkpoint,
    versions: ChannelVersions | undefined,
    bases: ChannelVersions | undefined,
  ): void {
    const key = keyOf(checkpoint.threadId, checkpoint.ns);
    this.#known.delete(key);
    if (!versions || !bases) return;
    // No prototype: a channel may be called "__proto__".
    const values: Record<string, unknown> = Object.create(null);
    const lengths: Record<string, number> = Object.create(null);
    for (const channel in checkpoint.values) {
      const value = checkpoint.values[channel];
      values[channel] = value;
      if (Array.isArray(value)) lengths[channel] = value.length;
    }
    this.#known.set(key, { id: checkpoint.id, versions, bases, values, lengths });
    if (this.#known.size > KNOWN_LIMIT) {
      this.#known.delete(this.#known.keys().next().value as string);
    }
  }

  /** Forget a thread (deleted, pruned or overwritten): its next checkpoint is stored whole. */
  forget(threadId: string): void {
    const prefix = `${threadId}\u0000`;
    for (const key of [...this.#known.keys()]) if (key.startsWith(prefix)) this.#known.delete(key);
  }
}

/**
 * Channel values from stored versions. `rows` holds every version the chains need, in any
 * order; `missing` says which one was not found (a damaged store), for the caller's error.
 * Lists met twice (several checkpoints of one history page) are assembled once.
 */
export class ValueAssembly {
  readonly #rows = new Map<string, StoredValue>();
  readonly #done = new Map<string, unknown>();

  constructor(
    rows: Iterable<StoredValue>,
    readonly parse: (row: StoredValue) => unknown,
  ) {
    for (const row of rows) this.#rows.set(`${row.channel}\u0000${row.version}`, row);
  }

  /** Whether every chain the versions name is here, link by link (nothing is parsed). */
  complete(versions: ChannelVersions): boolean {
    for (const channel in versions) {
      for (let at: string | null = versions[channel]!; at !== null; ) {
        const key = `${channel}\u0000${at}`;
        if (this.#done.has(key)) break;
        const row = this.#rows.get(key);
        if (!row) return false;
        at = row.prev;
      }
    }
    return true;
  }

  /** How many items a channel's version kept from the one before; null for a whole value. */
  keepAt(channel: string, version: string): number | null {
    return this.#rows.get(`${channel}\u0000${version}`)?.keep ?? null;
  }

  /** The whole version each channel's chain starts from (for `KnownValues.remember`). */
  bases(versions: ChannelVersions): ChannelVersions {
    const bases: ChannelVersions = Object.create(null);
    for (const channel in versions) {
      const version = versions[channel]!;
      bases[channel] = this.#rows.get(`${channel}\u0000${version}`)?.base ?? version;
    }
    return bases;
  }

  /** The values a checkpoint's versions name; throws `missing(channel, version)`'s error. */
  values(
    versions: ChannelVersions,
    missing: (channel: string, version: string) => Error,
  ): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const channel in versions) {
      setOwn(values, channel, this.#value(channel, versions[channel]!, missing));
    }
    return values;
  }

  #value(
    channel: string,
    version: string,
    missing: (channel: string, version: string) => Error,
  ): unknown {
    // Walk back to a whole value or one already assembled, then forward: no recursion, so
    // a chain of any length reads.
    const chain: StoredValue[] = [];
    let at: string | null = version;
    let value: unknown;
    for (;;) {
      const key = `${channel}\u0000${at}`;
      if (this.#done.has(key)) {
        value = this.#done.get(key);
        break;
      }
      const row = this.#rows.get(key);
      if (!row) throw missing(channel, at!);
      chain.push(row);
      if (row.prev === null) {
        value = undefined;
        break;
      }
      at = row.prev;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const row = chain[i]!;
      const parsed = this.parse(row);
      if (row.prev === null) value = parsed;
      else {
        if (!Array.isArray(value) || !Array.isArray(parsed)) throw missing(channel, row.version);
        value = value.slice(0, row.keep ?? 0).concat(parsed);
      }
      this.#done.set(`${channel}\u0000${row.version}`, value);
    }
    return value;
  }
}

/**
 * Where stored checkpoint metadata names the writes kept by reference (`compactWrites`):
 * `[node, channel]` pairs. Never seen outside a store: reading puts the writes back.
 */
const APPENDED_WRITES = "__appendedWrites";

/**
 * A checkpoint's metadata as a store keeps it beside its values: in `writes`, a node's write
 * to a list channel that is exactly the items this checkpoint appended to it (the same
 * items, as reducers append them) is left out, since the channel's stored version holds
 * them already; a conversation's messages are not stored twice. `expandWrites` puts them
 * back. Returns `metadata` itself when nothing is left out.
 */
export function compactWrites(
  checkpoint: Checkpoint,
  stored: readonly StoredValue[],
): Checkpoint["metadata"] {
  const { metadata, values, id } = checkpoint;
  const writes = metadata.writes;
  if (!writes) return metadata;
  let compact: Record<string, unknown> | undefined;
  const refs: Array<[string, string]> = [];
  for (const v of stored) {
    if (v.prev === null || v.version !== id) continue;
    const appended = values[v.channel] as unknown[];
    for (const node in writes) {
      const update = (compact ?? writes)[node];
      if (typeof update !== "object" || update === null || Array.isArray(update)) continue;
      const write = (update as Record<string, unknown>)[v.channel];
      if (!Object.hasOwn(update, v.channel) || !sameItems(write, appended, v.keep!)) continue;
      const rest: Record<string, unknown> = {};
      for (const key in update) {
        if (key !== v.channel) setOwn(rest, key, (update as Record<string, unknown>)[key]);
      }
      compact ??= { ...writes };
      setOwn(compact, node, rest);
      refs.push([node, v.channel]);
    }
  }
  return compact ? { ...metadata, writes: compact, [APPENDED_WRITES]: refs } : metadata;
}

/**
 * Put back the writes `compactWrites` left out of a checkpoint read with its values;
 * `keepAt(channel)` is how many items the channel's version at this checkpoint kept from
 * the one before (the rest it appended). False if one cannot be put back (a damaged store).
 */
export function expandWrites(
  checkpoint: Checkpoint,
  keepAt: (channel: string) => number | null,
): boolean {
  const metadata = checkpoint.metadata as Record<string, unknown>;
  const refs = metadata[APPENDED_WRITES];
  if (refs === undefined) return true;
  delete metadata[APPENDED_WRITES];
  const writes = metadata.writes as Record<string, Record<string, unknown>> | null | undefined;
  if (!Array.isArray(refs) || !writes) return false;
  for (const [node, channel] of refs as Array<[string, string]>) {
    const value = checkpoint.values[channel];
    const keep = keepAt(channel);
    const update = Object.hasOwn(writes, node) ? writes[node] : undefined;
    if (!Array.isArray(value) || keep === null || typeof update !== "object") return false;
    setOwn(update, channel, value.slice(keep));
  }
  return true;
}

/** Whether `write` is a list of exactly the items of `list` from index `keep` on. */
function sameItems(write: unknown, list: unknown[], keep: number): boolean {
  if (!Array.isArray(write) || write.length !== list.length - keep) return false;
  for (let i = 0; i < write.length; i++) if (write[i] !== list[keep + i]) return false;
  return true;
}

/**
 * Small values — numbers, booleans, null, short strings — stay in the checkpoint's own row,
 * written each time (as LangGraph's savers keep primitives in the checkpoint): a row of
 * their own would cost more than it saves. Lists and objects go by version.
 */
export const INLINE_STRING_LIMIT = 256;

function isInline(value: unknown): boolean {
  switch (typeof value) {
    case "number":
    case "boolean":
      return true;
    case "string":
      return value.length <= INLINE_STRING_LIMIT;
    default:
      return value === null;
  }
}

/** How many leading items of `after` are the first `length` items of `before`, by reference. */
function sharedPrefix(before: unknown[], length: number, after: unknown[]): number {
  const n = Math.min(length, before.length, after.length);
  let i = 0;
  while (i < n && before[i] === after[i]) i++;
  return i;
}

const json = (value: unknown, id: string) => stringifyStored(value, `checkpoint ${id} values`);

const keyOf = (threadId: string, ns: string) => `${threadId}\u0000${ns}`;
