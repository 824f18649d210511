import { describe, expect, it } from "vitest";
import {
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  signWebhook,
  verifyWebhookSignature,
} from "../../src/runs/index.js";

const secret = "whsec-test";
const body = JSON.stringify({ event: "review.waiting", thread_id: "t1" });
const sentAt = new Date("2026-01-01T12:00:00.000Z");
const t = Math.floor(sentAt.getTime() / 1000);
const headers = (signature: string) => ({ "stateweaver-signature": signature });

describe("webhook signatures", () => {
  it("a body signed with the secret verifies, from plain headers or a Headers object", () => {
    const signature = signWebhook(secret, body, t);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(secret, headers(signature), body, { now: sentAt })).toBe(true);
    const fetched = new Headers({ "Stateweaver-Signature": signature });
    expect(verifyWebhookSignature(secret, fetched, Buffer.from(body), { now: sentAt })).toBe(true);
  });

  it("a changed body, another secret or a changed timestamp does not verify", () => {
    const signature = signWebhook(secret, body, t);
    const now = { now: sentAt };
    expect(verifyWebhookSignature(secret, headers(signature), `${body} `, now)).toBe(false);
    expect(verifyWebhookSignature("other", headers(signature), body, now)).toBe(false);
    const moved = signature.replace(`t=${t}`, `t=${t + 1}`);
    expect(verifyWebhookSignature(secret, headers(moved), body, now)).toBe(false);
  });

  it("a delivery older than the replay window is refused, one inside it is not", () => {
    const signature = signWebhook(secret, body, t);
    const secondsLater = (s: number) => ({ now: new Date(sentAt.getTime() + s * 1000) });
    expect(DEFAULT_SIGNATURE_TOLERANCE_SECONDS).toBe(300);
    expect(verifyWebhookSignature(secret, headers(signature), body, secondsLater(299))).toBe(true);
    expect(verifyWebhookSignature(secret, headers(signature), body, secondsLater(301))).toBe(false);
    expect(
      verifyWebhookSignature(secret, headers(signature), body, {
        ...secondsLater(3000),
        toleranceSeconds: 3600,
      }),
    ).toBe(true);
  });

  it("a missing or malformed header does not verify", () => {
    const now = { now: sentAt };
    expect(verifyWebhookSignature(secret, {}, body, now)).toBe(false);
    expect(verifyWebhookSignature(secret, headers("v1=abc"), body, now)).toBe(false);
    expect(verifyWebhookSignature(secret, headers(`t=${t}`), body, now)).toBe(false);
    expect(verifyWebhookSignature("", headers(signWebhook("x", body, t)), body, now)).toBe(false);
  });

  it("while a secret is rotated, a header carrying both signatures verifies with either", () => {
    const next = signWebhook("new-secret", body, t).split(",")[1]!;
    const both = `${signWebhook(secret, body, t)},${next}`;
    expect(verifyWebhookSignature(secret, headers(both), body, { now: sentAt })).toBe(true);
    expect(verifyWebhookSignature("new-secret", headers(both), body, { now: sentAt })).toBe(true);
  });
});
