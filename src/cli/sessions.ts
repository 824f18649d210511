// `stateweaver sessions revoke`: end signed-in inbox sessions from the store, without a server.
import { type RevocationSubject, sessionRevocationsFor } from "../server/index.js";
import { storeOf } from "./store-of.js";

const USAGE = `Usage: stateweaver sessions revoke (--user <identity> | --everyone)

  --user <identity>   refuse every inbox session of that user signed in until now
  --everyone          refuse every inbox session signed in until now

Signing in again works (as far as the auth file lets them). The store is the one serve uses:
DATABASE_URL (and STATEWEAVER_TABLE_PREFIX), else PGlite in STATEWEAVER_DATA_DIR (./.stateweaver;
stop serve first there, a PGlite directory has one owner). Exit codes: 0 revoked, 1 error.
`;

interface SessionsIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** What the arguments ask to revoke, or the reason they cannot be taken. */
function subjectOf(
  argv: readonly string[],
): Exclude<RevocationSubject, { session: string }> | string {
  const [action, ...rest] = argv;
  if (action !== "revoke") {
    return action === undefined ? USAGE : `Unknown sessions command "${action}".\n\n${USAGE}`;
  }
  const everyone = rest.includes("--everyone");
  const at = rest.indexOf("--user");
  const identity = at < 0 ? undefined : rest[at + 1];
  if (at >= 0 && (identity === undefined || identity.startsWith("--"))) {
    return `--user needs an identity.\n\n${USAGE}`;
  }
  if (everyone === (identity !== undefined)) {
    return `Give either --user <identity> or --everyone.\n\n${USAGE}`;
  }
  return identity !== undefined ? { identity } : { everyone: true };
}

/**
 * `stateweaver sessions revoke --user ana` (or `--everyone`): the same revocation as
 * `POST /auth/revoke`, written to the store every server of the deployment reads, for when
 * no admin can reach the API. Returns the exit code.
 *
 * @example
 * const code = await sessionsCommand(["revoke", "--user", "ana"], { stdout: process.stdout, stderr: process.stderr, env: process.env });
 */
export async function sessionsCommand(argv: readonly string[], io: SessionsIo): Promise<number> {
  const subject = subjectOf(argv);
  if (typeof subject === "string") {
    io.stderr.write(subject);
    return 1;
  }
  const checkpointer = storeOf(io.env);
  try {
    const at = Date.now();
    await sessionRevocationsFor(checkpointer).revoke(subject, at);
    const whose = "identity" in subject ? `${subject.identity}'s` : "everyone's";
    io.stdout.write(
      `Revoked ${whose} inbox sessions signed in until ${new Date(at).toISOString()}.\n`,
    );
    return 0;
  } finally {
    await checkpointer.close?.();
  }
}
