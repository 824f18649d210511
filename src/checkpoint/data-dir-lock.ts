import { randomUUID } from "node:crypto";
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { threadId } from "node:worker_threads";
import { DataDirectoryLockedError } from "../errors/index.js";

/** The lock file's name inside a data directory. */
export const LOCK_FILE = "stateweaver.lock";

/** What a lock file holds: who owns the directory. `token` tells two owners' files apart. */
interface Owner {
  pid: number;
  host: string;
  thread: number;
  token: string;
}

/** Lock files this process holds: path -> token. One exit hook releases them all. */
const held = new Map<string, string>();
let exitHookInstalled = false;

/**
 * Makes this process the one owner of a PGlite data directory, or throws
 * `DataDirectoryLockedError`. Two PGlite instances on one directory both start fine and
 * then lose threads and corrupt indexes, so the second must be refused before it opens.
 *
 * The lock is `<dataDir>/stateweaver.lock`, created with O_EXCL and holding the owner's
 * pid. A lock whose process is gone (killed, crashed) is taken over. It is released by the
 * returned function, and on a normal process exit; after a kill the next owner takes it
 * over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(realpathSync(dataDir), LOCK_FILE);
  if (held.has(file)) {
    throw new DataDirectoryLockedError(dataDir, file, { pid: process.pid, here: true });
  }
  // Each turn either takes the lock, finds a live owner, or clears one stale lock.
  for (let attempt = 0; attempt < 5; attempt++) {
    const me: Owner = { pid: process.pid, host: hostname(), thread: threadId, token: randomUUID() };
    if (create(file, me)) {
      held.set(file, me.token);
      installExitHook();
      return () => release(file, me.token);
    }
    const text = readText(file);
    if (text === undefined) continue; // released meanwhile: try again
    const owner = parseOwner(text);
    if (!isStale(file, owner)) {
      throw new DataDirectoryLockedError(dataDir, file, { pid: owner?.pid });
    }
    // Move the stale lock aside atomically; if what moved is not the file judged stale
    // (another process took over in between), put it back.
    const aside = `${file}.${me.token}.stale`;
    try {
      renameSync(file, aside);
    } catch (error) {
      if (code(error) === "ENOENT") continue;
      throw error;
    }
    if (readText(aside) !== text) {
      try {
        linkSync(aside, file);
      } catch {
        // Someone holds the lock again; the next turn finds them.
      }
    }
    removeFile(aside);
  }
  throw new DataDirectoryLockedError(dataDir, file, {});
}

function create(file: string, me: Owner): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (error) {
    if (code(error) === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(me)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** A lock is stale when its owner is certainly gone; anything in doubt counts as live. */
function isStale(file: string, owner: Owner | undefined): boolean {
  if (!owner) {
    // Created but not yet written, or written by something else: stale only once old.
    const age = Date.now() - (statMtime(file) ?? Date.now());
    return age > 10_000;
  }
  // Another machine's process (a shared volume) cannot be checked from here.
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) {
    // Not in `held`, so not ours: another worker thread here, or a previous process that
    // had our pid (a restarted container's pid 1).
    return owner.thread === threadId;
  }
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    // ESRCH: no such process. EPERM: it exists under another user.
    return code(error) === "ESRCH";
  }
}

function release(file: string, token: string): void {
  if (held.get(file) !== token) return;
  held.delete(file);
  // Only our own lock: a stale-taken-over file is someone else's now.
  if (parseOwner(readText(file) ?? "")?.token === token) removeFile(file);
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Best effort: an exit by signal or kill skips this, and the next owner takes over.
  process.on("exit", () => {
    for (const [file, token] of held) release(file, token);
  });
}

function parseOwner(text: string): Owner | undefined {
  try {
    const owner = JSON.parse(text) as Partial<Owner> | null;
    if (typeof owner?.pid === "number" && typeof owner.token === "string") {
      return {
        pid: owner.pid,
        host: String(owner.host),
        thread: Number(owner.thread),
        token: owner.token,
      };
    }
  } catch {
    // Not ours, or half written.
  }
  return undefined;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if (code(error) === "ENOENT") return undefined;
    throw error;
  }
}

function statMtime(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function code(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}
