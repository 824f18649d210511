import type { Checkpointer } from "../checkpoint/checkpointer.js";
import { isTransientDatabaseError } from "../checkpoint/database-faults.js";

/**
 * How long a run's claim on its thread lasts without renewal when its checkpointer does
 * not say (`Checkpointer.claimTtlMs`; see `Checkpointer.claimThread`). A live run renews
 * it every third of that; a run whose process died frees its thread at most this long
 * after its last renewal: until then the thread reads as `"busy"` and other runs get
 * `ThreadBusyError`; from then on it shows the status of its latest checkpoint again (the
 * store compares the claim's expiry with its own clock on every read, so nothing has to
 * sweep expired claims). 4 s keeps a crashed holder's thread resumable within 5 s.
 */
export const DEFAULT_CLAIM_TTL_MS = 4_000;

/** The claim lifetime runs on `checkpointer` use. */
export function claimTtlOf(checkpointer: Checkpointer): number {
  return checkpointer.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
}

/** A claim a live run in this process holds. */
interface HeldClaim {
  checkpointer: Checkpointer;
  threadId: string;
  runId: string;
  ttlMs: number;
  renewedAt: number;
  /** Told when a renewal fails (another run took the thread): the run must stop. */
  lost: (error: unknown) => void;
}

const held = new Set<HeldClaim>();
let timer: ReturnType<typeof setInterval> | undefined;
/** The timer's period: a sixth of the shortest lifetime held when it started. */
let period = Number.POSITIVE_INFINITY;

/**
 * Keep a run's claim alive until the returned function is called. All claims of the
 * process share one timer, started with the first and stopped once none is held: most
 * runs end long before a renewal is due, and then cost a set insertion, not a timer.
 * A renewal that meets a passing database fault (a dropped connection, a restart) is
 * tried again at the next tick rather than failing the run: the claim may run out
 * meanwhile, and then the renewal takes it again unless another run took the thread.
 */
export function keepClaimAlive(claim: Omit<HeldClaim, "renewedAt">): () => void {
  // Spelled out: in Node 20's V8, a spread followed by a key the source lacks makes a new
  // hidden class on every call (~2 µs); see copyOwn in checkpoint/serde.ts.
  const entry: HeldClaim = {
    checkpointer: claim.checkpointer,
    threadId: claim.threadId,
    runId: claim.runId,
    ttlMs: claim.ttlMs,
    lost: claim.lost,
    renewedAt: Date.now(),
  };
  held.add(entry);
  const wanted = Math.max(50, claim.ttlMs / 6);
  if (timer && wanted < period) {
    clearInterval(timer);
    timer = undefined;
  }
  if (!timer) {
    period = wanted;
    timer = setInterval(renewDue, period);
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
    period = Number.POSITIVE_INFINITY;
    return;
  }
  const now = Date.now();
  for (const claim of held) {
    if (now - claim.renewedAt < claim.ttlMs / 3) continue;
    claim.renewedAt = now;
    claim.checkpointer
      .renewThreadClaim(claim.threadId, claim.runId, claim.ttlMs)
      .catch((error: unknown) => {
        if (!held.has(claim)) return;
        // Due again at the next tick.
        if (isTransientDatabaseError(error)) claim.renewedAt = 0;
        else claim.lost(error);
      });
  }
}
