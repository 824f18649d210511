// Where revoked inbox sessions are kept: the same duties in memory and in the database.
import { afterAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import {
  MemorySessionRevocations,
  type SessionRevocations,
  sessionRevocationsFor,
} from "../../src/server/auth/session-revocations.js";
import { SqlSessionRevocations } from "../../src/server/auth/sql-session-revocations.js";
import { USER_SESSION_SECONDS } from "../../src/server/auth/user-session.js";

const pglites: PGliteCheckpointer[] = [];
afterAll(async () => {
  for (const c of pglites) await c.close();
});
const pglite = () => {
  const checkpointer = new PGliteCheckpointer("memory://");
  pglites.push(checkpointer);
  return checkpointer;
};

const stores: Array<[string, () => SessionRevocations]> = [
  ["memory", () => new MemorySessionRevocations()],
  ["PGlite", () => sessionRevocationsFor(pglite())],
];

describe.each(stores)("session revocations in %s", (_name, open) => {
  it("answers the latest revocation among the subjects asked about, and nothing for others", async () => {
    const revocations = open();
    const now = Date.now();
    await revocations.revoke({ identity: "ana" }, now + 1);
    await revocations.revoke({ everyone: true }, now + 2);
    await revocations.revoke({ session: "s1" }, now + 3);
    expect(await revocations.latest([{ identity: "ana" }])).toBe(now + 1);
    expect(await revocations.latest([{ identity: "ana" }, { everyone: true }])).toBe(now + 2);
    expect(await revocations.latest([{ session: "s1" }, { identity: "bob" }])).toBe(now + 3);
    expect(await revocations.latest([{ identity: "bob" }, { session: "s2" }])).toBeUndefined();
  });

  it("never moves a subject's revocation back in time", async () => {
    const revocations = open();
    const now = Date.now();
    await revocations.revoke({ identity: "ana" }, now);
    await revocations.revoke({ identity: "ana" }, now - 1000);
    expect(await revocations.latest([{ identity: "ana" }])).toBe(now);
  });
});

describe("session revocations in the database", () => {
  it("forgets revocations older than any session they could refuse", async () => {
    const checkpointer = pglite();
    const revocations = sessionRevocationsFor(checkpointer);
    expect(revocations).toBeInstanceOf(SqlSessionRevocations);
    expect(sessionRevocationsFor(checkpointer)).toBe(revocations);
    const longAgo = Date.now() - 2 * USER_SESSION_SECONDS * 1000;
    await revocations.revoke({ identity: "ana" }, longAgo);
    await revocations.revoke({ identity: "bob" }, Date.now());
    expect(await revocations.latest([{ identity: "ana" }])).toBeUndefined();
    expect(await revocations.latest([{ identity: "bob" }])).toBeDefined();
  });
});
