import { randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;

/**
 * A unique, time-ordered checkpoint id in UUIDv7 layout: ids made later sort
 * later as strings, also within one millisecond (a per-process sequence breaks ties).
 */
export function checkpointId(): string {
  const now = Date.now();
  if (now === lastMs) seq++;
  else {
    lastMs = now;
    seq = 0;
  }
  const ms = now.toString(16).padStart(12, "0");
  const s = (seq & 0xfff).toString(16).padStart(3, "0");
  const r = randomBytes(8).toString("hex");
  const variant = ((Number.parseInt(r[0]!, 16) & 0x3) | 0x8).toString(16);
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${s}-${variant}${r.slice(1, 4)}-${r.slice(4, 16)}`;
}
