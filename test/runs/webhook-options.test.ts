import { describe, expect, it } from "vitest";
import { WebhookConfigError } from "../../src/errors/index.js";
import { WEBHOOK_EVENTS, webhookOptionsOf } from "../../src/runs/index.js";

describe("webhook settings", () => {
  it("a list of endpoints is enough: every event, the defaults for retries", () => {
    const options = webhookOptionsOf([{ url: "https://hooks.example.com/a", secret: "s" }]);
    expect(options).toEqual({
      endpoints: [{ url: "https://hooks.example.com/a", events: WEBHOOK_EVENTS, secret: "s" }],
      inboxUrl: undefined,
      runWebhookSecret: undefined,
      attempts: 8,
      initialDelayMs: 1000,
      maxDelayMs: 300_000,
      timeoutMs: 10_000,
    });
  });

  it("secrets named by environment variable are read from the environment given", () => {
    const options = webhookOptionsOf(
      {
        inboxUrl: "https://reviews.example.com/",
        endpoints: [
          {
            url: "https://hooks.example.com/a",
            events: ["review.waiting"],
            secretEnv: "HOOK_SECRET",
          },
        ],
        runWebhook: { secretEnv: "RUN_HOOK_SECRET" },
      },
      { HOOK_SECRET: "from-env", RUN_HOOK_SECRET: "run-secret" },
    );
    expect(options.endpoints[0]!.secret).toBe("from-env");
    expect(options.runWebhookSecret).toBe("run-secret");
    expect(options.inboxUrl).toBe("https://reviews.example.com");
  });

  it("bad settings are one WebhookConfigError that lists every problem by its path", () => {
    const problems = () =>
      webhookOptionsOf({
        endpoints: [
          { url: "ftp://hooks.example.com", events: ["review.waiting", "review.lost"] },
          { url: "https://hooks.example.com/b", secret: "a", secretEnv: "B" },
        ],
        attempts: 0,
        retries: 3,
      });
    expect(problems).toThrow(WebhookConfigError);
    expect(problems).toThrow(/webhooks\.endpoints\[0\]\.url: an http:\/\/ or https:\/\/ URL/);
    expect(problems).toThrow(/webhooks\.endpoints\[0\]\.events\[1\]/);
    expect(problems).toThrow(/webhooks\.endpoints\[1\]: give secret or secretEnv, not both/);
    expect(problems).toThrow(/webhooks\.attempts/);
    expect(problems).toThrow(/retries/);
  });

  it("a secret's environment variable that is not set is named in the error", () => {
    expect(() =>
      webhookOptionsOf(
        { endpoints: [{ url: "https://hooks.example.com/a", secretEnv: "NOPE" }] },
        {},
      ),
    ).toThrow(
      "The webhook settings are not usable: webhooks.endpoints[0].secretEnv: NOPE is not set (or empty).",
    );
  });
});
