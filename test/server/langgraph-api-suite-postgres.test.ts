// LangGraph's own Agent Server suite (langgraph-api-suite.test.ts) once more, on PostgreSQL
// with the PostgreSQL run queue: every call its tests make through the SDK client, there.
// The suite is imported rather than parametrised so its file stays LangGraph's, test for test.
import { it } from "vitest";
import { runSuiteOn } from "./fixtures/suite-store.js";

if (process.env.STATEWEAVER_PG_URL) {
  runSuiteOn("PostgreSQL");
  await import("./langgraph-api-suite.test.js");
} else if (process.env.CI) {
  // CI must run it: a missing database would otherwise pass as a skip.
  it("runs on PostgreSQL (STATEWEAVER_PG_URL, which .ci/run sets)", () => {
    throw new Error("STATEWEAVER_PG_URL is not set; CI runs this suite on PostgreSQL.");
  });
} else {
  it.skip("needs a PostgreSQL: set STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test", () => {});
}
