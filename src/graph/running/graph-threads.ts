// One graph's threads in its checkpointer (`graph.threads`): search and get.
import type {
  Checkpointer,
  SearchThreadsOptions,
  ThreadPage,
  ThreadRecord,
} from "../../checkpoint/checkpointer.js";
import { InvalidConfigError } from "../../errors/index.js";

/**
 * One graph's threads, found through its checkpointer's thread records (`graph.threads`):
 * only threads this graph wrote last are seen. Threads stored before thread records
 * existed have no graph until their next checkpoint; the checkpointer's own
 * `searchThreads` finds them.
 *
 * @example
 * const inbox = await graph.threads.search({ status: "interrupted", limit: 50 });
 * for (const t of inbox.threads) show(t.threadId, t.interrupts);
 */
export class GraphThreads {
  readonly #graph: string;
  readonly #checkpointer: Checkpointer | undefined;

  constructor(graph: string, checkpointer: Checkpointer | undefined) {
    this.#graph = graph;
    this.#checkpointer = checkpointer;
  }

  /** This graph's threads matching `options`, a page at a time (see `Checkpointer.searchThreads`). */
  async search(options: Omit<SearchThreadsOptions, "graph"> = {}): Promise<ThreadPage> {
    return this.#store("search").searchThreads({ ...options, graph: this.#graph });
  }

  /** The thread's record, or `undefined` if it has none or another graph wrote it last. */
  async get(threadId: string): Promise<ThreadRecord | undefined> {
    const record = await this.#store("get").getThread(threadId);
    return record?.graph === this.#graph ? record : undefined;
  }

  #store(what: string): Checkpointer {
    if (this.#checkpointer) return this.#checkpointer;
    throw new InvalidConfigError(
      `graph.threads.${what}() needs a checkpointer: threads are kept by it. Compile the graph with compile({ checkpointer }) (e.g. new MemoryCheckpointer()).`,
    );
  }
}
