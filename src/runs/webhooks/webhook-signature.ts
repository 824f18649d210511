// Signing webhook deliveries (HMAC-SHA256 over timestamp and body) and checking them on receipt.
import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries a delivery's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = "stateweaver-signature";

/**
 * How far a signature's timestamp may be from the receiver's clock (5 minutes): an older
 * delivery is refused, so a recorded request cannot be replayed later. Receivers that also
 * remember `stateweaver-delivery` ids refuse replays inside the window too.
 */
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

/** The signature of `body` sent at `timestamp` (unix seconds): HMAC-SHA256 of `<t>.<body>`, hex. */
function signatureOf(secret: string, timestamp: number, body: string | Uint8Array): string {
  return createHmac("sha256", secret)
    .update(`${timestamp}.`)
    .update(typeof body === "string" ? body : Buffer.from(body))
    .digest("hex");
}

/**
 * The `stateweaver-signature` header value for `body` sent now (or at `timestamp`).
 *
 * @example
 * const header = signWebhook("s3cret", JSON.stringify({ event: "run.ended" }));
 * // "t=1767225600,v1=5f2b…"
 */
export function signWebhook(
  secret: string,
  body: string | Uint8Array,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`;
}

/** Headers as `fetch` (`Headers`) or `node:http` (`req.headers`) give them. */
export type WebhookHeaders = Pick<Headers, "get"> | Record<string, string | string[] | undefined>;

/**
 * Whether a received webhook is one stateweaver signed with `secret`, sent within
 * `toleranceSeconds` (5 minutes by default) of now. Pass the body exactly as received (the
 * raw text or bytes, not re-serialized JSON). Several `v1=` values (a secret being rotated)
 * pass if one matches.
 *
 * @example
 * import { verifyWebhookSignature } from "stateweaver/runs";
 * http.createServer(async (req, res) => {
 *   const body = Buffer.concat(await Array.fromAsync(req));
 *   if (!verifyWebhookSignature(process.env.HOOK_SECRET!, req.headers, body)) return res.writeHead(401).end();
 *   const event = JSON.parse(body.toString("utf8"));
 *   res.writeHead(204).end();
 * });
 */
export function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): boolean {
  const header = headerOf(headers, SIGNATURE_HEADER);
  if (!header || !secret) return false;
  let timestamp: number | undefined;
  const given: string[] = [];
  for (const part of header.split(",")) {
    const [name, value] = part.trim().split("=", 2);
    if (name === "t" && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && value) given.push(value);
  }
  if (timestamp === undefined || given.length === 0) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) return false;
  const expected = Buffer.from(signatureOf(secret, timestamp, body), "hex");
  return given.some((v) => {
    const candidate = Buffer.from(v, "hex");
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function")
    return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(",") : value;
}
