// The folder the ops agent's file tools act on. Every path a model sends is resolved
// here, and anything that would land outside the folder is refused.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { StateweaverError } from "stateweaver";

/** A path that would leave the sandbox (`..`, an absolute path, a symlink out). */
export class OutsideSandboxError extends StateweaverError {
  constructor(path: string) {
    super(
      "OUTSIDE_SANDBOX",
      `Path ${JSON.stringify(path)} is outside the sandbox: the ops agent may only touch files inside it. Use a path relative to the sandbox, such as "build/cache.tmp", without "..".`,
    );
  }
}

// What a fresh sandbox holds, so every demo ticket has something to work on.
const STARTER_FILES: Record<string, string> = {
  "README.txt": "Sandbox of the stateweaver ops demo. The agent's file tools cannot leave it.\n",
  "oncall.txt": "On-call this week: Dana Reyes <dana.oncall@example.com>\n",
  "build/app.js": "console.log('hello from the build');\n",
  "build/bundle.tmp": "partial bundle, safe to delete\n",
  "build/cache.tmp": "compiler cache, safe to delete\n",
  "logs/app.log": "2026-11-30T23:59:01Z backup finished\n",
  "logs/app.log.1": "2026-11-29T23:59:03Z backup finished\n",
  "logs/app.log.2": "2026-11-28T23:58:57Z backup FAILED: disk full\n",
  "reports/2026-10.csv": "status,orders,revenue\npaid,3,420.00\n",
};

/**
 * The sandbox folder: created with its starter files the first time a tool needs it,
 * then left as the tools change it (a restart keeps its files).
 */
export class Sandbox {
  readonly root: string;
  #ready: Promise<string> | undefined;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Lists the files under `dir`, recursively, as sandbox-relative paths. */
  async list(dir: string): Promise<string[]> {
    const full = await this.#resolve(dir);
    const found: string[] = [];
    const walk = async (folder: string) => {
      for (const entry of await readdir(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.isFile()) found.push(relative(this.root, path).split(sep).join("/"));
      }
    };
    await walk(full);
    return found.sort();
  }

  async read(path: string): Promise<string> {
    return readFile(await this.#resolve(path), "utf8");
  }

  async write(path: string, content: string): Promise<void> {
    const full = await this.#resolve(path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  }

  /** Deletes one file; folders are refused. */
  async remove(path: string): Promise<void> {
    const full = await this.#resolve(path);
    if ((await stat(full)).isDirectory()) {
      throw new Error(`${JSON.stringify(path)} is a folder; remove_file deletes single files.`);
    }
    await unlink(full);
  }

  /** The sandbox's real path, after creating it with its starter files if it is missing. */
  ready(): Promise<string> {
    this.#ready ??= (async () => {
      if (!existsSync(this.root)) {
        for (const [path, content] of Object.entries(STARTER_FILES)) {
          await mkdir(dirname(join(this.root, path)), { recursive: true });
          await writeFile(join(this.root, path), content);
        }
      }
      return realpath(this.root);
    })();
    return this.#ready;
  }

  // Resolves lexically first, then through symlinks, so neither "../x" nor a link that
  // points outside gets through.
  async #resolve(path: string): Promise<string> {
    const root = await this.ready();
    if (typeof path !== "string" || isAbsolute(path) || path.includes("\0")) {
      throw new OutsideSandboxError(String(path));
    }
    const full = resolve(root, path);
    if (!isInside(root, full)) throw new OutsideSandboxError(path);
    let existing = full;
    while (!existsSync(existing)) existing = dirname(existing);
    if (!isInside(root, await realpath(existing))) throw new OutsideSandboxError(path);
    return full;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
