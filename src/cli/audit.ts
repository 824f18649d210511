// `stateweaver audit export | verify`: the audit log of the store `serve` uses, read without a server.
import { AUDIT_EXPORT_FORMATS, auditLogFor, exportLines } from "../audit/index.js";
import { ServerConfigError } from "../server/index.js";
import { storeOf } from "./store-of.js";

/** What `audit` exits with, for scripts: 0 all good, 1 could not check (see stderr), 2 broken. */
export const AUDIT_EXIT = { ok: 0, error: 1, broken: 2 } as const;

const USAGE = `Usage: stateweaver audit <export | verify>

  export [--since <ISO time>] [--format jsonl]   the entries since then, one JSON object a line
  verify [--json] [--expect-head <hash>]         walk the hash chain; exit 2 at the first broken link,
                                                 or if the head recorded earlier is no longer in it

The store is the one serve uses: DATABASE_URL (and STATEWEAVER_TABLE_PREFIX), else PGlite in
STATEWEAVER_DATA_DIR (./.stateweaver). Exit codes: 0 ok, 1 error, 2 the chain is broken.
`;

interface AuditIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

function flagOf(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  if (at < 0) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith("--")) {
    throw new ServerConfigError(`--${name} needs a value.\n\n${USAGE}`);
  }
  return value;
}

/**
 * `stateweaver audit export --since <iso> --format jsonl` writes the entries to stdout;
 * `stateweaver audit verify [--expect-head <hash>]` checks the chain (and that the head
 * recorded earlier is still in it) and says where it breaks. Returns the exit code
 * (`AUDIT_EXIT`).
 *
 * @example
 * const code = await auditCommand(["verify"], { stdout: process.stdout, stderr: process.stderr, env: process.env });
 */
export async function auditCommand(argv: readonly string[], io: AuditIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== "export" && action !== "verify") {
    io.stderr.write(
      action === undefined ? USAGE : `Unknown audit command "${action}".\n\n${USAGE}`,
    );
    return AUDIT_EXIT.error;
  }
  const format = flagOf(rest, "format") ?? "jsonl";
  if (!(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new ServerConfigError(
      `--format must be one of ${AUDIT_EXPORT_FORMATS.join(", ")}, got "${format}".`,
    );
  }
  const since = flagOf(rest, "since");
  const expectHead = flagOf(rest, "expect-head");
  const checkpointer = storeOf(io.env);
  try {
    const log = auditLogFor(checkpointer);
    if (action === "export") {
      const query = since === undefined ? {} : { since };
      for await (const line of exportLines(log, query)) {
        if (!io.stdout.write(line)) await new Promise((r) => io.stdout.once("drain", r));
      }
      return AUDIT_EXIT.ok;
    }
    const report = await log.verify(expectHead === undefined ? {} : { expectHead });
    if (rest.includes("--json")) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
    } else if (report.ok) {
      io.stdout.write(
        report.head
          ? `The audit log is intact: ${report.entries} entries, the last #${report.head.seq} with hash ${report.head.hash}.\n`
          : "The audit log is intact: it has no entries yet.\n",
      );
    } else if (report.broken!.problem === "head_missing") {
      const intact =
        report.entries === 0
          ? ""
          : report.entries === 1
            ? " Its one entry is intact."
            : ` Its ${report.entries} entries are intact.`;
      io.stdout.write(
        `The audit log is not the one you recorded: ${report.broken!.message}${intact}\n`,
      );
    } else {
      const good = report.head
        ? `${report.entries === 1 ? "The entry before it is" : `The ${report.entries} entries before it are`} intact (the last, #${report.head.seq}, hash ${report.head.hash}).`
        : "No entry before it could be trusted.";
      io.stdout.write(
        `The audit log is broken at entry ${report.broken!.seq}: ${report.broken!.message} ${good}\n`,
      );
    }
    return report.ok ? AUDIT_EXIT.ok : AUDIT_EXIT.broken;
  } finally {
    await checkpointer.close?.();
  }
}
