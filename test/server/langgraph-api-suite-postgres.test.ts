// LangGraph's own Agent Server suite (langgraph-api-suite.test.ts) once more, on PostgreSQL
// with the PostgreSQL run queue: every call its tests make through the SDK client, there.
// The suite is imported rather than parametrised so its file stays LangGraph's, test for test.
// It runs on STATEWEAVER_PG_URL (.ci/run sets it), or else on a PostgreSQL server of its own
// (initdb + pg_ctl from this machine's binaries), so it never passes as a skip.
import { afterAll } from "vitest";
import { PrivatePostgres } from "../faults/private-postgres.js";

if (!process.env.STATEWEAVER_PG_URL) {
  const server = await PrivatePostgres.create().catch((error: Error) => {
    throw new Error(
      `This suite runs on PostgreSQL: set STATEWEAVER_PG_URL=postgres://postgres@127.0.0.1:5432/test, or install PostgreSQL's server binaries (under /usr/lib/postgresql) for it to start its own. ${error.message}`,
    );
  });
  // Read by the store fixtures when they load (below); this file's own worker only.
  process.env.STATEWEAVER_PG_URL = server.url();
  afterAll(async () => {
    delete process.env.STATEWEAVER_PG_URL;
    await server.destroy();
  });
}
const { runSuiteOn } = await import("./fixtures/suite-store.js");
runSuiteOn("PostgreSQL");
await import("./langgraph-api-suite.test.js");
