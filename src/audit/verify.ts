// Walking the hash chain: the first entry that does not follow from the one before it.
import { InvalidAuditRequestError } from "../errors/index.js";
import { entryHash, GENESIS_HASH } from "./chain.js";
import type { AuditEntry } from "./entry.js";

/**
 * What is wrong at the first broken link:
 * - `changed`: the entry's fields no longer hash to its `hash` (edited after it was written);
 * - `missing`: sequence numbers jump: the entries in between were removed;
 * - `unlinked`: the entry hashes right, but its `prevHash` is not the hash of the entry
 *   before it: that one was replaced or rehashed, or entries were reordered;
 * - `head_missing`: the chain holds together, but the head the caller recorded earlier
 *   (`expectHead`) is not in it: entries were cut off its end, or it was rewritten from
 *   some entry on with new hashes. `seq` is then the one after the log's last entry.
 */
export type AuditBreak = "changed" | "missing" | "unlinked" | "head_missing";

/**
 * What `verify()` checks besides the chain itself.
 *
 * @example
 * const options: AuditVerifyOptions = { expectHead: "9f86d081884c7d65…" }; // 64 hex digits
 */
export interface AuditVerifyOptions {
  /**
   * The `head.hash` of an earlier `verify()`, kept where whoever can write the log cannot:
   * the check fails (`head_missing`) unless an entry with this hash is still in the chain.
   * The chain alone cannot tell a log cut short, or rewritten whole, from an intact one.
   */
  expectHead?: string;
}

const HASH = /^[0-9a-f]{64}$/;

/** The recorded head as the log writes hashes (lower-case hex), or a typed refusal. */
function checkExpectHead(expectHead: string | undefined): string | undefined {
  if (expectHead === undefined) return undefined;
  const hash = expectHead.trim().toLowerCase();
  if (!HASH.test(hash)) {
    throw new InvalidAuditRequestError(
      `The expected head must be an entry's hash as verify reports it (head.hash: 64 hex digits); got ${JSON.stringify(expectHead)}.`,
    );
  }
  return hash;
}

/**
 * The result of `verify()`: how many entries were checked, the last good one (`head`: keep
 * it elsewhere, and a later check can tell the log was not cut short), and the first broken
 * link with a sentence saying what is wrong.
 *
 * @example
 * const report: AuditVerification = { ok: false, entries: 2, head: { seq: 2, hash: "…" },
 *   broken: { seq: 3, problem: "changed", message: "Entry 3 was changed after it was written: …" } };
 */
export interface AuditVerification {
  ok: boolean;
  /** Entries checked and found good (all of them when `ok`). */
  entries: number;
  /** The last good entry, or null for an empty log (or one broken at its first entry). */
  head: { seq: number; hash: string } | null;
  broken?: { seq: number; problem: AuditBreak; message: string };
}

/**
 * Checks the chain, entry by entry in `seq` order: numbers count from 1 without gaps, each
 * entry's `prevHash` is the previous entry's hash, and each hash is its fields' hash.
 * Stops at the first broken link. With `expectHead`, an intact chain must also still hold
 * the entry with that hash (a refusal, `InvalidAuditRequestError`, if it is not a hash).
 *
 * @example
 * const report = await verifyChain(log.entries(), { expectHead: recorded.hash });
 * if (!report.ok) console.error(report.broken!.message);
 */
export async function verifyChain(
  entries: AsyncIterable<AuditEntry>,
  options: AuditVerifyOptions = {},
): Promise<AuditVerification> {
  const expectHead = checkExpectHead(options.expectHead);
  let seen = expectHead === undefined;
  let head: AuditVerification["head"] = null;
  let checked = 0;
  const broken = (seq: number, problem: AuditBreak, message: string): AuditVerification => ({
    ok: false,
    entries: checked,
    head,
    broken: { seq, problem, message },
  });
  for await (const entry of entries) {
    const expected: number = (head?.seq ?? 0) + 1;
    if (entry.seq !== expected) {
      return broken(
        expected,
        "missing",
        entry.seq > expected
          ? `Entries ${expected}${entry.seq - 1 > expected ? `–${entry.seq - 1}` : ""} are missing: the log jumps from ${expected - 1} to ${entry.seq}. They were removed after they were written.`
          : `Entry ${entry.seq} comes after entry ${expected - 1}: the log's order was changed.`,
      );
    }
    const { hash, ...fields } = entry;
    if (entryHash(fields) !== hash) {
      return broken(
        entry.seq,
        "changed",
        `Entry ${entry.seq} (${entry.kind} on thread "${entry.threadId}") was changed after it was written: its fields no longer hash to the hash it was written with.`,
      );
    }
    const previous = head?.hash ?? GENESIS_HASH;
    if (entry.prevHash !== previous) {
      return broken(
        entry.seq,
        "unlinked",
        `Entry ${entry.seq} does not follow entry ${expected - 1}: its prevHash is not the hash of the entry before it, which was replaced, rehashed or moved.`,
      );
    }
    head = { seq: entry.seq, hash };
    seen ||= hash === expectHead;
    checked++;
  }
  if (!seen) {
    const end = head
      ? `the log ends at entry ${head.seq} (hash ${head.hash})`
      : "the log has no entries";
    return broken(
      (head?.seq ?? 0) + 1,
      "head_missing",
      `The head you recorded (hash ${expectHead}) is not in the log, and ${end}: entries after it were cut off, or the log was rewritten from some entry on with new hashes.`,
    );
  }
  return { ok: true, entries: checked, head };
}
