/**
 * What opening PGlite costs: wall time to the first answer and peak RSS, each open in a
 * fresh child process (so module loading, WebAssembly compilation and RSS are real).
 *
 *   npm run bench:pglite                        # every variant, 5 runs each, a markdown table
 *   npm run bench:pglite -- --runs 7            # more runs per variant
 *   npm run bench:pglite -- --only store,raw    # variants whose name starts with one of these
 *   npm run bench:pglite -- --json              # one JSON object per line
 *
 * A run is "open, then one query": for `store …` variants `PGliteCheckpointer#getLatest`
 * (connect, table migration, one statement), for `raw …` variants `new PGlite(…)` with the
 * options named, then `select 1`. Three places: `memory://`, a new (empty) directory, an
 * existing directory (made once by an untimed run of the same variant). Figures are medians
 * of the runs: wall ms, CPU ms (user + system; steadier than wall time on a shared machine)
 * and `process.resourceUsage().maxRSS`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

type Place = "memory" | "new dir" | "existing dir";

interface Variant {
  name: string;
  /** `store`: PGliteCheckpointer as shipped; `raw`: PGlite with these options. */
  kind: "store" | "raw";
  /** For `store`: `old` opens PGlite as the store did before prepared images (plain `new PGlite(dir)`, then the store on it). */
  old?: boolean;
  /** Load this prepared image (`gz`: gzipped tarball; `tar`: plain) instead of running initdb. */
  image?: "gz" | "tar";
  /** `-c name=value` settings added to PGlite's default start parameters. */
  settings?: string[];
  /** Extra flags for the child `node`. */
  nodeFlags?: string[];
  places: Place[];
}

interface Child {
  variant: Variant;
  dataDir: string;
  imageFile?: string;
  imageCacheDir?: string;
}

interface Run {
  wallMs: number;
  cpuMs: number;
  rssMb: number;
}

const SMALL = ["shared_buffers=16MB", "max_connections=5"];

const ALL: Place[] = ["memory", "new dir", "existing dir"];
const NEW: Place[] = ["memory", "new dir"];

const variants: Variant[] = [
  { name: "store before (initdb, defaults)", kind: "store", old: true, places: ALL },
  { name: "store after (prepared image, settings)", kind: "store", places: ALL },
  // Settings: measured where no initdb runs, so that they are what differs.
  { name: "raw default", kind: "raw", places: ["existing dir"] },
  {
    name: "raw shared_buffers=16MB",
    kind: "raw",
    settings: ["shared_buffers=16MB"],
    places: ["existing dir"],
  },
  {
    name: "raw max_connections=5",
    kind: "raw",
    settings: ["max_connections=5"],
    places: ["existing dir"],
  },
  { name: "raw small settings", kind: "raw", settings: SMALL, places: ["existing dir"] },
  {
    name: "raw shared_buffers=1MB, max_connections=5",
    kind: "raw",
    settings: ["shared_buffers=1MB", "max_connections=5"],
    places: ["existing dir"],
  },
  {
    name: "raw small settings, node --liftoff-only",
    kind: "raw",
    settings: SMALL,
    nodeFlags: ["--liftoff-only"],
    places: ["existing dir"],
  },
  // Images: what loading one costs instead of initdb.
  { name: "raw image gz (PGlite unzips)", kind: "raw", image: "gz", places: ["memory"] },
  { name: "raw image tar", kind: "raw", image: "tar", places: NEW },
  {
    name: "raw image tar, small settings",
    kind: "raw",
    image: "tar",
    settings: SMALL,
    places: NEW,
  },
];

const here = fileURLToPath(import.meta.url);

async function child({ variant, dataDir, imageFile, imageCacheDir }: Child): Promise<Run> {
  const start = performance.now();
  if (variant.kind === "store") {
    const { PGliteCheckpointer } = await import("../../src/checkpoint/pglite.js");
    let store: InstanceType<typeof PGliteCheckpointer>;
    let close = async () => {};
    if (variant.old) {
      const { PGlite } = await import("@electric-sql/pglite");
      const db = new PGlite(dataDir);
      store = new PGliteCheckpointer({ db });
      close = () => db.close();
    } else {
      store = new PGliteCheckpointer({ dataDir, ...(imageCacheDir && { imageCacheDir }) });
    }
    await store.getLatest("bench");
    const ready = performance.now();
    await store.close();
    await close();
    return measured(start, ready);
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const image = imageFile
    ? new Blob([await readFile(imageFile)], {
        type: variant.image === "gz" ? "application/x-gzip" : "application/x-tar",
      })
    : undefined;
  const db = new PGlite(dataDir, {
    ...(image && { loadDataDir: image }),
    ...(variant.settings && {
      startParams: [...PGlite.defaultStartParams, ...variant.settings.flatMap((s) => ["-c", s])],
    }),
  });
  await db.query("select 1");
  const ready = performance.now();
  await db.close();
  return measured(start, ready);
}

function measured(start: number, ready: number): Run {
  const usage = process.resourceUsage();
  return {
    wallMs: Math.round(ready - start),
    cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
    rssMb: Math.round(usage.maxRSS / 1024),
  };
}

const execFileAsync = promisify(execFile);

async function spawnChild(spec: Child): Promise<Run> {
  const flags = ["--import", "tsx", "--expose-gc", ...(spec.variant.nodeFlags ?? [])];
  const { stdout } = await execFileAsync(
    process.execPath,
    [...flags, here, "--child", JSON.stringify(spec)],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Run;
}

async function parent(args: string[]): Promise<void> {
  const json = args.includes("--json");
  const runsAt = args.indexOf("--runs");
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
  const onlyAt = args.indexOf("--only");
  const only = onlyAt >= 0 ? args[onlyAt + 1]!.split(",") : undefined;
  const chosen = variants.filter((v) => !only || only.some((o) => v.name.startsWith(o)));
  const scratch = await mkdtemp(join(tmpdir(), "stateweaver-pglite-open-"));
  const log = (text: string) => process.stderr.write(`${text}\n`);
  try {
    const images = chosen.some((v) => v.image) ? await makeImages(scratch) : undefined;
    if (!json) {
      console.log(`PGlite open + first query, medians of ${runs} runs, each in a fresh process`);
      console.log("");
      console.log("| variant | place | wall ms | CPU ms | peak RSS MB |");
      console.log("| --- | --- | ---: | ---: | ---: |");
    }
    for (const variant of chosen) {
      // The store's own image cache: one per variant, filled by an untimed run first.
      const imageCacheDir = await mkdtemp(join(scratch, "cache-"));
      const imageFile = variant.image && images?.[variant.image];
      if (variant.kind === "store" && !variant.old) {
        await spawnChild({ variant, dataDir: "memory://", imageCacheDir });
      }
      const existing = await mkdtemp(join(scratch, "existing-"));
      if (variant.places.includes("existing dir")) {
        await spawnChild({ variant, dataDir: existing, imageFile, imageCacheDir });
      }
      for (const place of variant.places) {
        const results: Run[] = [];
        for (let i = 0; i < runs; i++) {
          const dataDir =
            place === "memory"
              ? "memory://"
              : place === "existing dir"
                ? existing
                : await mkdtemp(join(scratch, "new-"));
          // An image is only for a place with no database yet.
          const image = place === "existing dir" ? undefined : imageFile;
          results.push(await spawnChild({ variant, dataDir, imageFile: image, imageCacheDir }));
          if (place === "new dir") await rm(dataDir, { recursive: true, force: true });
        }
        const row = {
          variant: variant.name,
          place,
          wallMs: median(results.map((r) => r.wallMs)),
          cpuMs: median(results.map((r) => r.cpuMs)),
          rssMb: median(results.map((r) => r.rssMb)),
          runs: results,
        };
        if (json) console.log(JSON.stringify(row));
        else {
          console.log(
            `| ${row.variant} | ${place} | ${row.wallMs} | ${row.cpuMs} | ${row.rssMb} |`,
          );
        }
        log(`${variant.name} / ${place}: ${results.map((r) => r.wallMs).join(", ")} ms`);
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A freshly initdb'd data directory (no tables of ours), dumped both ways. */
async function makeImages(scratch: string): Promise<{ gz: string; tar: string }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const db = new PGlite("memory://");
  await db.query("checkpoint");
  const gz = join(scratch, "image.tar.gz");
  const tar = join(scratch, "image.tar");
  await writeFile(gz, new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer()));
  await writeFile(tar, new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()));
  await db.close();
  return { gz, tar };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

if (process.argv[2] === "--child") {
  const result = await child(JSON.parse(process.argv[3]!) as Child);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  await parent(process.argv.slice(2));
}
