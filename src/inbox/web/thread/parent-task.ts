/**
 * The parent a thread's metadata names: async subagent tasks carry `parent_thread_id` (the
 * thread whose agent started them) and `async_subagent` (which subagent runs them).
 */
export interface ParentTask {
  parentThreadId: string;
  subagent: string | undefined;
}

/** The thread's parent, when its metadata names one. */
export function parentTaskOf(
  metadata: Record<string, unknown> | undefined,
): ParentTask | undefined {
  const parent = metadata?.parent_thread_id;
  if (typeof parent !== "string" || parent === "") return undefined;
  const subagent = metadata?.async_subagent;
  return { parentThreadId: parent, subagent: typeof subagent === "string" ? subagent : undefined };
}
