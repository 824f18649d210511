// `stateweaver serve` bundles the config's generative UI before it opens anything: a
// component that does not bundle stops it with the file and esbuild's message.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { stateweaver } from "./run-bin.js";

const graphs = fileURLToPath(new URL("../server/fixtures/cli-graphs.ts", import.meta.url));
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("stops serve, before any store opens, when a ui component does not bundle", async () => {
  dir = await mkdtemp(join(tmpdir(), "stateweaver-serve-ui-"));
  await writeFile(join(dir, "ui.tsx"), "export default { card: <div> };\n");
  await writeFile(
    join(dir, "stateweaver.json"),
    JSON.stringify({ graphs: { ops: `${graphs}:ops` }, ui: { ops: "./ui.tsx" } }),
  );
  const dataDir = join(dir, "data");
  const { code, stdout, stderr } = await stateweaver(
    ["serve", "--config", join(dir, "stateweaver.json"), "--port", "0"],
    { STATEWEAVER_DATA_DIR: dataDir },
  );
  expect(code).not.toBe(0);
  expect(stdout).toBe("");
  expect(stderr).toMatch(/ui\.ops: cannot bundle \.\/ui\.tsx: ui\.tsx:1:\d+: .*"div"/);
  expect(existsSync(dataDir)).toBe(false);
}, 60_000);
