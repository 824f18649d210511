// A SQL store's thread claims: a run holds its thread, renews the hold, and lets go.
import { ConcurrentUpdateError, InvalidConfigError, ThreadBusyError } from "../../errors/index.js";
import type { ThreadClaim, ThreadRelease } from "../checkpointer.js";
import { assertStoreId } from "../limits.js";
import { assertThreadMetadata } from "../thread-records.js";
import { busyOnLockConflict } from "./lock-conflict.js";
import type { StoreParts } from "./store-parts.js";

/** `Checkpointer.claimThread` in one statement; only a refusal reads why (busy, or moved on). */
export async function claimThread(
  parts: StoreParts,
  threadId: string,
  claim: ThreadClaim,
): Promise<void> {
  assertStoreId("threadId", threadId);
  if (claim.metadata !== undefined) assertThreadMetadata("claim.metadata", claim.metadata);
  const sql = parts.sql;
  const driver = await parts.ready();
  const { rows: claimed } = await (driver.queryPrepared ?? driver.query)(sql.claim, [
    threadId,
    claim.runId,
    claim.expectedLatestId,
    Math.ceil(claim.ttlMs),
    claim.metadata ? JSON.stringify(claim.metadata) : null,
  ]).catch(busyOnLockConflict(threadId));
  if (claimed.length === 1) return;
  // Failure path only: say why.
  const { rows } = await driver.query(sql.latestId, [threadId, ""]);
  const actual = (rows[0]?.latest_id as string | undefined) ?? null;
  if ((await driver.query(sql.liveClaim, [threadId])).rows.length > 0) {
    throw new ThreadBusyError(threadId, actual);
  }
  throw new ConcurrentUpdateError(threadId, "", claim.expectedLatestId, actual);
}

/** `Checkpointer.renewThreadClaim`: `ThreadBusyError` once the run no longer holds the thread. */
export async function renewThreadClaim(
  parts: StoreParts,
  threadId: string,
  runId: string,
  ttlMs: number,
): Promise<void> {
  assertStoreId("threadId", threadId);
  const driver = await parts.ready();
  const { rowCount } = await driver
    .query(parts.sql.renewClaim, [threadId, runId, Math.ceil(ttlMs)])
    .catch(busyOnLockConflict(threadId));
  if (rowCount !== 1) throw new ThreadBusyError(threadId, null);
}

/** `Checkpointer.releaseThread`: lets go of the run's claim, keeping its error on the record. */
export async function releaseThread(
  parts: StoreParts,
  threadId: string,
  runId: string,
  release?: ThreadRelease,
): Promise<void> {
  assertStoreId("threadId", threadId);
  const error = release?.error;
  const driver = await parts.ready();
  await (driver.queryPrepared ?? driver.query)(parts.sql.releaseClaim, [
    threadId,
    runId,
    error ? JSON.stringify({ name: String(error.name), message: String(error.message) }) : null,
  ]).catch(busyOnLockConflict(threadId));
}

/** A claim lifetime a store accepts: long enough to be renewed before it runs out. */
export function checkedClaimTtl(ms: number | undefined): number | undefined {
  if (ms === undefined) return undefined;
  if (!(Number.isFinite(ms) && ms >= 300)) {
    throw new InvalidConfigError(
      `claimTtlMs must be a number of milliseconds ≥ 300, got ${String(ms)}. Leave it out for the default (4 s).`,
    );
  }
  return ms;
}
