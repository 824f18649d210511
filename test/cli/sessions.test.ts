// `stateweaver sessions revoke` on a real PGlite data directory, as a script runs it.
import { describe, expect, it } from "vitest";
import { sessionRevocationsFor } from "../../src/server/index.js";
import { tempDataDir } from "../server/fixtures/server.js";
import { stateweaver } from "./run-bin.js";

describe("stateweaver sessions revoke", () => {
  it("revokes a user's inbox sessions in the store serve uses, and says what it wants otherwise", async () => {
    const data = await tempDataDir();
    try {
      const first = data.open();
      await first.sharedDriver();
      await first.close();
      const env = { STATEWEAVER_DATA_DIR: data.dir };
      const before = Date.now();
      const done = await stateweaver(["sessions", "revoke", "--user", "ana"], env);
      expect(done.stdout).toMatch(/^Revoked ana's inbox sessions signed in until .*Z\.\n$/);
      expect(done.code).toBe(0);
      const checkpointer = data.open();
      try {
        const at = await sessionRevocationsFor(checkpointer).latest([{ identity: "ana" }]);
        expect(at).toBeGreaterThanOrEqual(before);
      } finally {
        await checkpointer.close();
      }
      const neither = await stateweaver(["sessions", "revoke"], env);
      expect(neither.code).toBe(1);
      expect(neither.stderr).toContain("Give either --user <identity> or --everyone.");
    } finally {
      await data.dispose();
    }
  }, 60_000);
});
