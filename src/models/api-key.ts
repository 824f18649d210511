import { ModelConfigError } from "../errors/index.js";

/**
 * The API key from the `apiKey` option, else from the provider's environment variable.
 * Checked when the model is created so a missing key fails at startup, not mid-run.
 *
 * @example
 * const apiKey = resolveApiKey("openai", options.apiKey, "OPENAI_API_KEY");
 */
export function resolveApiKey(
  provider: string,
  option: string | undefined,
  envVar: string,
): string {
  if (option) return option;
  // Read through globalThis so the module also loads where `process` does not exist.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  const fromEnv = env?.[envVar];
  if (fromEnv) return fromEnv;
  throw new ModelConfigError(
    `No API key for ${provider}: set the ${envVar} environment variable, or pass { apiKey } (or an already configured { client }) when creating the model.`,
  );
}
