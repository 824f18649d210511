// The errors of background runs: an unknown run, a graph without a run service, a run it cannot take.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * A run id that no run service here knows: never created, or ended and forgotten. Nothing
 * was changed.
 *
 * @example
 * try { await graph.runs.join("nope") } catch (e) { if (e instanceof RunNotFoundError) … }
 */
export class RunNotFoundError extends StateweaverError {
  static {
    brandError(RunNotFoundError);
  }

  readonly runId: string;
  constructor(runId: string) {
    super(
      "RUN_NOT_FOUND",
      `Run "${runId}" is not known here. Check the id (graph.runs.list(threadId) lists a thread's runs); runs of another database are not visible.`,
    );
    this.runId = runId;
  }
}

/**
 * `graph.runs` was used on a graph no run service hosts. Background runs need a queue that
 * keeps them: bind one with `graph.withRuns(runs)`, or host the graph with `stateweaver serve`.
 */
export class RunsNotBoundError extends StateweaverError {
  static {
    brandError(RunsNotBoundError);
  }

  constructor(graph: string) {
    super(
      "RUNS_NOT_BOUND",
      `Graph "${graph}" has no run service, so it cannot start background runs. Bind one: graph.withRuns(createRuns({ graphs: [graph] })) (see docs/scaling-out.md), or use invoke()/stream() to run in this call.`,
    );
  }
}

/**
 * A background run was asked for with something it cannot take (an unknown graph, a bad
 * strategy, input that is not JSON). Nothing was enqueued.
 */
export class InvalidRunError extends StateweaverError {
  static {
    brandError(InvalidRunError);
  }

  constructor(message: string) {
    super("INVALID_RUN", message);
  }
}

/**
 * Webhook settings (`createRuns({ webhooks })`, `"webhooks"` in stateweaver.json) are not
 * usable: a URL that is not http(s), an unknown event, a secret missing or its environment
 * variable unset, a retry bound out of range. Thrown before anything starts; the message
 * lists every problem by its path.
 */
export class WebhookConfigError extends StateweaverError {
  static {
    brandError(WebhookConfigError);
  }

  constructor(message: string) {
    super("WEBHOOK_CONFIG", message);
  }
}
