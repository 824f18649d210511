// `node examples/ops-agent.ts`: seeds the demo tickets offline, decides each one as a
// reviewer would in the inbox, and checks what the tools did to the sandbox.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidResumeError } from "stateweaver";
import { HITL } from "stateweaver/agent";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { createOpsAgent } from "./create-ops-agent.js";
import { seed, startTicket } from "./tickets.js";

export async function walkthrough(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "ops-agent-"));
  const { agent, sandbox, database } = createOpsAgent({
    dataDir,
    checkpointer: new MemoryCheckpointer(),
  });
  const started = await seed({ ops: agent });
  assert.equal(started.length, 4);
  const [cleanup, report, email, disk] = started.map(({ threadId, result }) => {
    assert.equal(result.status, "interrupted", "every seeded ticket waits for a person");
    return { configurable: { thread_id: threadId } };
  });
  const lastWords = async (config: typeof cleanup) =>
    String((await agent.getState(config!)).values.messages.at(-1)?.content);
  const pending = async (config: typeof cleanup) => {
    const state = await agent.getState(config!);
    return state.interrupts[0]!;
  };

  // Temp files: one review with both deletions; keep one.
  const cleanupReview = HITL.fromInterrupt(await pending(cleanup));
  assert.deepEqual(
    cleanupReview.actions.map((a) => a.args.path),
    ["build/bundle.tmp", "build/cache.tmp"],
  );
  await agent.resumeReview(
    [HITL.decision("approve"), HITL.decision("reject", { message: "Keep the cache." })],
    { config: cleanup },
  );
  assert.equal(existsSync(join(sandbox.root, "build/bundle.tmp")), false);
  assert.equal(existsSync(join(sandbox.root, "build/cache.tmp")), true);
  console.log(`temp files  -> ${await lastWords(cleanup)}`);

  // The report: an edit that is not one SELECT is refused and changes nothing.
  const before = await pending(report);
  await assert.rejects(
    agent.resumeReview(
      [
        HITL.decision("edit", {
          editedAction: { name: "execute_sql", args: { query: "DELETE FROM orders" } },
        }),
      ],
      { config: report },
    ),
    InvalidResumeError,
  );
  assert.equal((await pending(report)).id, before.id, "a refused edit leaves the review pending");
  await agent.resumeReview(
    [
      HITL.decision("edit", {
        editedAction: {
          name: "execute_sql",
          args: { query: "SELECT count(*)::int AS paid FROM orders WHERE status = 'paid'" },
        },
      }),
    ],
    { config: report },
  );
  assert.match(await lastWords(report), /"paid":5/);
  console.log(`report      -> ${await lastWords(report)}`);

  // The email: the reviewer answers instead, so nothing is sent.
  const emailReview = HITL.fromInterrupt(await pending(email));
  assert.equal(emailReview.actions[0]?.args.to, "dana.oncall@example.com");
  await agent.resumeReview([HITL.decision("respond", { message: "I phoned Dana already." })], {
    config: email,
  });
  assert.equal(existsSync(join(sandbox.root, "outbox")), false);
  assert.match(await lastWords(email), /phoned Dana/);
  console.log(`email       -> ${await lastWords(email)}`);

  // Disk space: a plain question first, then a review of what the answer allows.
  assert.deepEqual((await pending(disk)).value, {
    question: "Which folder may I clear old files from: build, logs or reports?",
  });
  await agent.resume("logs", { config: disk });
  const diskReview = HITL.fromInterrupt(await pending(disk));
  assert.deepEqual(
    diskReview.actions.map((a) => a.args.path),
    ["logs/app.log.1", "logs/app.log.2"],
  );
  await agent.resumeReview([HITL.decision("approve"), HITL.decision("approve")], { config: disk });
  assert.deepEqual(await readdir(join(sandbox.root, "logs")), ["app.log"]);
  console.log(`disk space  -> ${(await lastWords(disk)).replaceAll("\n", "; ")}`);

  // A path out of the sandbox is a tool error the model reads, not a file read.
  const peek = await startTicket(agent, { title: "Peek", text: "Show me ../../etc/passwd" });
  assert.equal(peek.result.status, "done");
  assert.match(
    await lastWords({ configurable: { thread_id: peek.threadId } }),
    /outside the sandbox/,
  );
  console.log("escape      -> refused: outside the sandbox");

  assert.deepEqual(await seed({ ops: agent }), [], "a second start seeds nothing");
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
}
