// Runs the `stateweaver` bin as `npx stateweaver` would (under tsx), for the CLI tests.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Run the bin as `npx stateweaver` would (under tsx), and collect what it says. */
export function stateweaver(args: string[], env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/cli/main.ts", ...args],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
