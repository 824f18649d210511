import { execFile } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The newest PostgreSQL server binaries on this machine (Debian's layout), if any. */
export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * A PostgreSQL server of a test's own, in a temporary folder, on a free port: something a
 * test may stop (`pg_ctl stop -m immediate`, a crash as far as clients can tell) and
 * start again. initdb and pg_ctl refuse to run as root, so under root they run as the
 * `postgres` user, who then owns the folder.
 */
export class PrivatePostgres {
  readonly dir: string;
  readonly port: number;
  readonly #bin: string;
  /** More server settings (`name=value`), e.g. a benchmark's `shared_preload_libraries`. */
  readonly #settings: readonly string[];

  private constructor(bin: string, dir: string, port: number, settings: readonly string[]) {
    this.#bin = bin;
    this.dir = dir;
    this.port = port;
    this.#settings = settings;
  }

  /** `postgres://postgres@127.0.0.1:<port>/postgres`, with `application_name` if given. */
  url(applicationName?: string): string {
    const base = `postgres://postgres@127.0.0.1:${this.port}/postgres`;
    return applicationName ? `${base}?application_name=${applicationName}` : base;
  }

  static async create(settings: readonly string[] = []): Promise<PrivatePostgres> {
    const bin = postgresBinaries();
    if (!bin) throw new Error("No PostgreSQL server binaries under /usr/lib/postgresql.");
    const dir = mkdtempSync(join(tmpdir(), "stateweaver-pg-"));
    chmodSync(dir, 0o755);
    if (process.getuid?.() === 0) {
      const { stdout } = await run("id", ["-u", "postgres"]);
      const { stdout: gid } = await run("id", ["-g", "postgres"]);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const pg = new PrivatePostgres(bin, dir, await freePort(), settings);
    await pg.#as(join(bin, "initdb"), [
      "-D",
      join(dir, "data"),
      "-U",
      "postgres",
      "--auth=trust",
      "--no-sync",
    ]);
    await pg.start();
    return pg;
  }

  async start(): Promise<void> {
    await this.#as(join(this.#bin, "pg_ctl"), [
      "-D",
      join(this.dir, "data"),
      "-l",
      join(this.dir, "log"),
      "-w",
      "-t",
      "60",
      "-o",
      // No fsync: the faults tested are the server process's, not the machine's, and the
      // kernel keeps what was written. (Not synchronous_commit=off: an immediate stop would
      // then lose commits that clients were told of.)
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200${this.#settings.map((s) => ` -c ${s}`).join("")}`,
      "start",
    ]);
  }

  /** Stop the server without a shutdown checkpoint: clients see their connections drop. */
  async stopImmediately(): Promise<void> {
    await this.#as(join(this.#bin, "pg_ctl"), [
      "-D",
      join(this.dir, "data"),
      "-m",
      "immediate",
      "-w",
      "stop",
    ]);
  }

  async destroy(): Promise<void> {
    await this.stopImmediately().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  async #as(file: string, args: string[]): Promise<void> {
    if (process.getuid?.() === 0) await run("runuser", ["-u", "postgres", "--", file, ...args]);
    else await run(file, args);
  }
}
