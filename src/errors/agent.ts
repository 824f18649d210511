// An agent's errors: a wrong setup, and an interrupt that is not a tool review.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * An agent was set up wrongly: a review policy without `allowedDecisions`, an unknown
 * decision type, two tools or middleware with one name, an `interruptOn` entry for a tool
 * the agent does not have. Thrown by `createAgent`/`defineAgent`/`humanInTheLoop`, before
 * anything runs.
 *
 * @example
 * humanInTheLoop({ interruptOn: { send_email: { description: "Check it" } } });
 * // AgentConfigError: … give it allowedDecisions, e.g. ["approve", "reject"] …
 */
export class AgentConfigError extends StateweaverError {
  static {
    brandError(AgentConfigError);
  }

  constructor(message: string) {
    super("AGENT_CONFIG", message);
  }
}

/**
 * `HITL.fromInterrupt` was given an interrupt that is not a tool review (a static
 * breakpoint, or a node's own `interrupt(value)`). Check with `HITL.isReview` first.
 *
 * @example
 * if (HITL.isReview(r.interrupt)) render(HITL.fromInterrupt(r.interrupt));
 */
export class NotAReviewError extends StateweaverError {
  static {
    brandError(NotAReviewError);
  }

  constructor(message: string) {
    super("NOT_A_REVIEW", message);
  }
}
