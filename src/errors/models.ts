// The model layer's errors: a failed model call, a wrong setup, structured output that never fit.
import { brandError } from "./brand-error.js";

import { clauses } from "./sentences.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * A chat model call failed: the provider answered with an error (401, 429, 5xx…), could
 * not be reached, or sent something unusable such as tool-call arguments that are not
 * JSON. `status` is the HTTP status when there was one; `providerMessage` is the
 * provider's own explanation.
 *
 * @example
 * try { await model.invoke(messages) } catch (e) {
 *   if (e instanceof ModelError && e.status === 429) await backOff();
 * }
 */
export class ModelError extends StateweaverError {
  static {
    brandError(ModelError);
  }

  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly providerMessage: string | undefined;
  constructor(
    provider: string,
    model: string,
    message: string,
    options: { status?: number; providerMessage?: string; cause?: unknown } = {},
  ) {
    super("MODEL_ERROR", message, { cause: options.cause });
    this.provider = provider;
    this.model = model;
    this.status = options.status;
    this.providerMessage = options.providerMessage;
  }
}

/**
 * The model layer was set up wrongly: an unknown provider prefix, a missing API key, or a
 * tool that providers would reject. Thrown when the model or tool is created, not later.
 *
 * @example
 * initChatModel("gpt-5.4"); // ModelConfigError: … write it as "<provider>:<model>" …
 */
export class ModelConfigError extends StateweaverError {
  static {
    brandError(ModelConfigError);
  }

  constructor(message: string) {
    super("MODEL_CONFIG", message);
  }
}

/**
 * A model's structured output did not match the schema it was asked for, every time it was
 * asked (the first answer and each correction). `issues` are the last answer's problems;
 * `output` is that answer as the model wrote it.
 *
 * @example
 * try { await model.withStructuredOutput(Invoice).invoke(messages) } catch (e) {
 *   if (e instanceof StructuredOutputError) log(e.issues);
 * }
 */
export class StructuredOutputError extends StateweaverError {
  static {
    brandError(StructuredOutputError);
  }

  readonly attempts: number;
  readonly issues: string[];
  readonly output: string;
  constructor(schemaName: string, attempts: number, issues: string[], output: string) {
    super(
      "STRUCTURED_OUTPUT",
      `The model's answer did not match schema "${schemaName}" after ${attempts} ${attempts === 1 ? "try" : "tries"}: ${clauses(issues)} Describe the fields in the schema (.describe()), simplify it, or allow more corrections with { maxRetries }.`,
    );
    this.attempts = attempts;
    this.issues = issues;
    this.output = output;
  }
}
