import type { Checkpointer } from "../checkpoint/checkpointer.js";

/**
 * How long a run's claim on its thread lasts without renewal (see `Checkpointer.claimThread`).
 * A live run renews it every third of that (every 10 s); a run whose process died frees
 * its thread at most this long after its last renewal: until then the thread reads as
 * `"busy"` and other runs get `ThreadBusyError`; from then on it shows the status of its
 * latest checkpoint again (the store compares the claim's expiry with its own clock on
 * every read, so nothing has to sweep expired claims).
 */
export const CLAIM_TTL_MS = 30_000;

/** A claim a live run in this process holds. */
interface HeldClaim {
  checkpointer: Checkpointer;
  threadId: string;
  runId: string;
  renewedAt: number;
  /** Told when a renewal fails (another run took the thread): the run must stop. */
  lost: (error: unknown) => void;
}

const held = new Set<HeldClaim>();
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * Keep a run's claim alive until the returned function is called. All claims of the
 * process share one timer, started with the first and stopped once none is held: most
 * runs end long before a renewal is due, and then cost a set insertion, not a timer.
 */
export function keepClaimAlive(claim: Omit<HeldClaim, "renewedAt">): () => void {
  const entry: HeldClaim = { ...claim, renewedAt: Date.now() };
  held.add(entry);
  if (!timer) {
    timer = setInterval(renewDue, CLAIM_TTL_MS / 6);
    // A claim never keeps the process alive: if it ends, the claim simply expires.
    timer.unref();
  }
  return () => {
    held.delete(entry);
  };
}

function renewDue(): void {
  if (held.size === 0) {
    clearInterval(timer);
    timer = undefined;
    return;
  }
  const now = Date.now();
  for (const claim of held) {
    if (now - claim.renewedAt < CLAIM_TTL_MS / 3) continue;
    claim.renewedAt = now;
    claim.checkpointer
      .renewThreadClaim(claim.threadId, claim.runId, CLAIM_TTL_MS)
      .catch((error: unknown) => claim.lost(error));
  }
}
