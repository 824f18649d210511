import { randomBytes } from "node:crypto";

let lastMs = 0;
let seq = 0;
// 62 random bits drawn once per process keep ids from different processes apart;
// within a process the millisecond and a sequence number order them.
const node = randomBytes(8);
node[0] = (node[0]! & 0x3f) | 0x80; // RFC 4122 variant bits
const nodeHex = node.toString("hex");
const tail = `${nodeHex.slice(0, 4)}-${nodeHex.slice(4, 16)}`;

/**
 * A unique, time-ordered checkpoint id in UUIDv7 layout: ids made later in a
 * process sort later as strings, also within one millisecond.
 *
 * @example
 * checkpointId(); // "01a2375e-360d-7000-ac9e-053ecdded463"
 */
export function checkpointId(): string {
  let now = Date.now();
  if (now <= lastMs) {
    seq++;
    // More than 4096 ids in one millisecond: borrow the next millisecond to stay ordered.
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    now = lastMs;
  } else {
    lastMs = now;
    seq = 0;
  }
  const ms = now.toString(16).padStart(12, "0");
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${seq.toString(16).padStart(3, "0")}-${tail}`;
}

/** The last millisecond read from an id, and its ISO form: ids made together share it. */
let lastPrefix = "";
let lastIso = "";

/**
 * When a `checkpointId()` was made, as an ISO string (the millisecond it holds), or
 * `undefined` for an id of another layout. A checkpoint made with such an id can leave its
 * `createdAt` implicit.
 *
 * @example
 * createdAtOf("01a2375e-360d-7000-ac9e-053ecdded463"); // "2026-12-02T15:27:30.829Z"
 */
export function createdAtOf(id: string): string | undefined {
  if (id.length !== 36 || id[8] !== "-" || id[13] !== "-" || id[14] !== "7") return undefined;
  const prefix = id.slice(0, 13);
  if (prefix !== lastPrefix) {
    const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    if (Number.isNaN(ms)) return undefined;
    lastIso = isoTime(ms);
    lastPrefix = prefix;
  }
  return lastIso;
}

const DAY_MS = 86_400_000;
/** The day `isoTime` last formatted, and its ISO date with the "T" (e.g. "2026-12-06T"). */
let lastDay = Number.NaN;
let lastDayIso = "";

/**
 * `new Date(ms).toISOString()`, for times from 1970 on, at a fraction of its cost (a
 * resumed run reads ids of many milliseconds, and `toISOString` takes ~1 µs): the date is
 * formatted once per day, the time of day by arithmetic.
 *
 * @example
 * isoTime(0); // "1970-01-01T00:00:00.000Z"
 */
export function isoTime(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    const iso = new Date(day * DAY_MS).toISOString();
    lastDayIso = iso.slice(0, iso.indexOf("T") + 1);
    lastDay = day;
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${lastDayIso}${two(hour)}:${two(minute)}:${two(second)}.${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
