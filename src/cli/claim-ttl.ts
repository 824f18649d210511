import { ServerConfigError } from "../server/index.js";

/**
 * `STATEWEAVER_CLAIM_TTL_MS`: how long a run's claim on its thread lasts without renewal
 * (see `Checkpointer.claimTtlMs`), for the stores `serve` and `worker` open. Unset: the
 * default (4 s).
 */
export function claimTtlFromEnv(env: NodeJS.ProcessEnv): { claimTtlMs?: number } {
  const raw = env.STATEWEAVER_CLAIM_TTL_MS;
  if (!raw) return {};
  const claimTtlMs = Number(raw);
  if (!(Number.isFinite(claimTtlMs) && claimTtlMs >= 300)) {
    throw new ServerConfigError(
      `STATEWEAVER_CLAIM_TTL_MS must be a number of milliseconds ≥ 300, got "${raw}". Leave it unset for the default (4000).`,
    );
  }
  return { claimTtlMs };
}
