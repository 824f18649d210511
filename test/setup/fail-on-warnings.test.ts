import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const vitest = new URL("../../node_modules/vitest/vitest.mjs", import.meta.url).pathname;

describe("the console guard (test/setup/fail-on-warnings.ts)", () => {
  it("fails each test that prints a warning or error, naming what it printed; an asserted warning passes", async () => {
    const config = new URL("./fixtures/vitest.config.ts", import.meta.url).pathname;
    const failed = await run(process.execPath, [vitest, "run", "--config", config], {
      env: { ...process.env, CI: "", NO_COLOR: "1", FORCE_COLOR: "0" },
    }).then(
      () => expect.fail("the fixture run passed, but two of its tests print"),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed.code).toBe(1);
    const output = failed.stdout + failed.stderr;
    expect(output).toMatch(/Tests +2 failed \| 2 passed/);
    expect(output).toMatch(
      /FAIL .*leaks XState's warning[\s\S]*This test printed 1 warning\(s\)[\s\S]*console\.warn: Event "PING" was sent to stopped actor/,
    );
    expect(output).toMatch(/FAIL .*leaks a console\.error[\s\S]*console\.error: something broke/);
    expect(output).not.toMatch(/FAIL .*asserts the warning it expects/);
  }, 30_000);
});
