/** Describe the unnamed portal: 'D', length 6, 'P' (a portal), its name "" and NUL. */
const DESCRIBE_PORTAL = [0x44, 0, 0, 0, 6, 0x50, 0];
/** Execute the unnamed portal, all rows: 'E', length 9, name "" and NUL, row limit 0. */
const EXECUTE_ALL = [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0];
/** Sync: 'S', length 4. */
const SYNC = [0x53, 0, 0, 0, 4];
/** What follows every Bind: the same bytes each time, so written once. */
const AFTER_BIND = Uint8Array.from([...DESCRIBE_PORTAL, ...EXECUTE_ALL, ...SYNC]);

/**
 * The PostgreSQL wire messages that run prepared statement `name` once with `values` as
 * text parameters (`null`: SQL NULL): Bind, Describe (portal), Execute, Sync, in one
 * buffer. Byte for byte what PGlite's `protocol.serialize` writes for
 * `bind({ statement: name, values })`, `describe({ type: "P" })`, `execute({})` and
 * `sync()`, in one allocation where that serializer makes a growing buffer and a copy per
 * message: on a checkpoint write (a kilobyte of parameters) that took tens of µs
 * (docs/benchmarks.md, "S6's write, accounted").
 *
 * @example
 * const message = executeMessage("stateweaver_put", ["t1", "", null]);
 * await db.execProtocol(message); // the statement was parsed under that name before
 */
export function executeMessage(name: string, values: ReadonlyArray<string | null>): Buffer {
  const count = values.length;
  // Bind: type, length, portal "" and its NUL, the name and its NUL, format codes (one per
  // parameter, all 0 = text), the parameter count, each parameter's length and bytes, and
  // no result format codes (all text).
  let bind = 1 + 4 + 1 + Buffer.byteLength(name) + 1 + 2 + 2 * count + 2 + 2;
  const lengths = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const value = values[i];
    const length = value === null || value === undefined ? -1 : Buffer.byteLength(value);
    lengths[i] = length;
    bind += 4 + Math.max(length, 0);
  }
  const out = Buffer.alloc(bind + AFTER_BIND.length);
  let at = out.writeUInt8(0x42, 0); // 'B'
  at = out.writeInt32BE(bind - 1, at);
  at = out.writeUInt8(0, at); // portal ""
  at += out.write(name, at);
  at = out.writeUInt8(0, at);
  at = out.writeUInt16BE(count, at);
  at += 2 * count; // the format codes, all 0 (Buffer.alloc zero-fills)
  at = out.writeUInt16BE(count, at);
  for (let i = 0; i < count; i++) {
    const length = lengths[i]!;
    at = out.writeInt32BE(length, at);
    if (length > 0) at += out.write(values[i]!, at);
  }
  at = out.writeInt16BE(0, at); // result format codes: none
  out.set(AFTER_BIND, at);
  return out;
}
