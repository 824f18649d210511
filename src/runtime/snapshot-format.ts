import type { Checkpoint } from "../checkpoint/checkpointer.js";
import { DEFAULT_RUN, type GraphContext, type RunOptions, type TaskRecord } from "./task.js";

/**
 * How a graph actor's persisted snapshot is stored in a checkpoint: XState's
 * `getPersistedSnapshot()` with the channel values lifted out (they are stored
 * once, as `checkpoint.values`) and every field that holds its default left out.
 * Most checkpoints are written at rest, where most fields are defaults, so this
 * roughly halves what a thread keeps. The run's task runner (the `tasks` child,
 * present while the run is active) holds no state, so it is left out too.
 * `expandSnapshot` restores the exact form.
 */

type Persisted = {
  status?: string;
  value: unknown;
  historyValue?: Record<string, unknown>;
  children?: Record<string, unknown>;
  context: GraphContext;
  [key: string]: unknown;
};

/** The persisted form of the task runner child (a callback actor, which keeps no state). */
const RUNNER = {
  src: "taskRunner",
  snapshot: { status: "active" },
  syncSnapshot: false,
};

type StoredTask = Partial<TaskRecord> & Pick<TaskRecord, "id" | "node">;

const isEmpty = (o: object | null | undefined) => {
  if (!o) return true;
  for (const _ in o) return false;
  return true;
};

function compactTask(t: TaskRecord): StoredTask {
  const out: StoredTask = { id: t.id, node: t.node };
  if (t.kind !== "node") out.kind = t.kind;
  if ("arg" in t) out.arg = t.arg;
  if (t.status !== "pending") out.status = t.status;
  if (t.writes) out.writes = t.writes;
  if (t.next) out.next = t.next;
  if (t.interrupts.length > 0) out.interrupts = t.interrupts;
  if (t.resumes.length > 0) out.resumes = t.resumes;
  if (t.nested) out.nested = t.nested;
  if (t.nestedAnswers) out.nestedAnswers = t.nestedAnswers;
  return out;
}

function expandTask(t: StoredTask): TaskRecord {
  const task: TaskRecord = {
    node: t.node,
    kind: t.kind ?? "node",
    id: t.id,
    status: t.status ?? "pending",
    writes: t.writes ?? null,
    next: t.next ?? null,
    interrupts: t.interrupts ?? [],
    resumes: t.resumes ?? [],
  };
  if ("arg" in t) task.arg = t.arg;
  if (t.nested) task.nested = t.nested;
  if (t.nestedAnswers) task.nestedAnswers = t.nestedAnswers;
  return task;
}

/**
 * What `actor.getPersistedSnapshot()` gives for a graph machine in `snapshot`
 * (the live one, or one the run is about to rest in), built straight from it.
 * XState's version copies the snapshot with an object-rest pattern and walks the
 * whole context looking for actor refs — a tenth of a checkpoint write — while a
 * graph's context is plain JSON by construction, its charts have no history
 * states, and its one child, the task runner, is not stored. A test compares the
 * two in every state a run passes through.
 */
export function persistedSnapshotOf(snapshot: {
  status?: string;
  output?: unknown;
  error?: unknown;
  value: unknown;
  context: GraphContext;
}): Persisted {
  return {
    status: snapshot.status ?? "active",
    output: snapshot.output,
    error: snapshot.error,
    value: snapshot.value,
    historyValue: {},
    context: snapshot.context,
  };
}

/** The stored form of a persisted snapshot; returns it together with the lifted-out values. */
export function compactSnapshot(persisted: Persisted): {
  snapshot: unknown;
  values: Record<string, unknown>;
} {
  // Loops rather than rest destructuring: this runs at every checkpoint, and V8's
  // object-rest copy is several times slower than building the object.
  const stored: Record<string, unknown> = {};
  const context = persisted.context;
  for (const key in context) {
    const value = context[key as keyof GraphContext];
    switch (key) {
      case "values":
      case "error":
      case "run":
      case "runSteps": // counted per call: a restored run starts at 0
      case "interrupts": // for the actor's user; a checkpoint keeps its interrupt records
      case "start":
      case "merged": // the step's writes go in the checkpoint's metadata instead
        break;
      case "tasks":
        if (context.tasks.length > 0) stored.tasks = context.tasks.map(compactTask);
        break;
      case "joins":
        if (!isEmpty(context.joins)) stored.joins = value;
        break;
      case "lastRan":
      case "passed":
        if ((value as unknown[]).length > 0) stored[key] = value;
        break;
      case "breakpoint":
      case "journal":
        if (value) stored[key] = value;
        break;
      default:
        stored[key] = value;
    }
  }
  const snapshot: Record<string, unknown> = {};
  for (const key in persisted) {
    const value = persisted[key];
    switch (key) {
      case "context":
      case "children": // the runner, put back by expandSnapshot
        break;
      case "status":
        if (value !== "active") snapshot.status = value;
        break;
      case "historyValue":
        if (!isEmpty(value as object)) snapshot.historyValue = value;
        break;
      default:
        if (value !== undefined) snapshot[key] = value;
    }
  }
  snapshot.context = stored;
  return { snapshot, values: context.values };
}

/**
 * The persisted snapshot a checkpoint was made from, ready for
 * `createActor(machine, { snapshot })`, with this call's `run` options.
 */
export function expandSnapshot(checkpoint: Checkpoint, run: RunOptions = DEFAULT_RUN): unknown {
  const s = checkpoint.snapshot as Record<string, unknown> & { context: Record<string, unknown> };
  const c = s.context as Partial<GraphContext> & { tasks?: StoredTask[] };
  // Built field by field, in one shape: spreading the parsed object and overriding half of
  // its keys was a few per cent of a resume.
  const context: GraphContext = {
    values: checkpoint.values,
    step: c.step ?? 0,
    tasks: c.tasks ? c.tasks.map(expandTask) : [],
    joins: c.joins ?? {},
    lastRan: c.lastRan ?? [],
    runSteps: 0,
    breakpoint: c.breakpoint ?? null,
    passed: c.passed ?? [],
    run,
  };
  if (c.journal) context.journal = c.journal;
  const status = (s.status as string | undefined) ?? "active";
  const snapshot: Record<string, unknown> = {
    status,
    value: s.value,
    historyValue: s.historyValue ?? {},
    children: status === "active" ? { tasks: RUNNER } : {},
    context,
  };
  if (s.output !== undefined) snapshot.output = s.output;
  if (s.error !== undefined) snapshot.error = s.error;
  return snapshot;
}

/** The stored graph context of a checkpoint, with defaults filled in (for views). */
export function contextOf(checkpoint: Checkpoint): GraphContext {
  return (expandSnapshot(checkpoint) as { context: GraphContext }).context;
}

/** Id of the barrier checkpoint whose step this checkpoint belongs to (itself, for a barrier). */
export function stepOriginOf(checkpoint: Checkpoint): string {
  return (checkpoint.metadata.stepOrigin as string | undefined) ?? checkpoint.id;
}

/**
 * A graph machine's state value in its stored form. The executor nests the runtime's states
 * (`{ runtime: "barrier" }`, `{ runtime: { fanout: s } }`) and the nodes (`{ workflow:
 * { node: s } }`); checkpoints keep the form of the executor before it carried the edges
 * (`"barrier"`, `{ stepping: { node | "__fanout__": s } }`), so threads written by either
 * read in both.
 */
export function storedValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const v = value as { workflow?: unknown; runtime?: unknown };
  if (v.workflow !== undefined) return { stepping: v.workflow };
  if (v.runtime === undefined) return value;
  if (typeof v.runtime === "string") return v.runtime;
  return { stepping: { __fanout__: (v.runtime as { fanout: unknown }).fanout } };
}

/** The executor's state value for a stored one (the inverse of `storedValue`). */
export function machineValue(stored: unknown): unknown {
  if (stored === "barrier" || stored === "breakpoint") return { runtime: stored };
  if (typeof stored !== "object" || stored === null) return stored;
  const stepping = (stored as { stepping?: Record<string, unknown> }).stepping;
  if (!stepping) return stored;
  if ("__fanout__" in stepping) return { runtime: { fanout: stepping.__fanout__ } };
  return { workflow: stepping };
}
