/** A line under a task thread's title linking to the thread that started it. */
import { href, linkTo } from "../router.js";
import { parentTaskOf } from "./parent-task.js";

export function ParentLink({ metadata }: { metadata: Record<string, unknown> | undefined }) {
  const parent = parentTaskOf(metadata);
  if (!parent) return null;
  return (
    <p class="muted parent-link" data-testid="parent-link">
      Task
      {parent.subagent ? (
        <>
          {" "}
          of <code>{parent.subagent}</code>
        </>
      ) : null}
      , started from thread{" "}
      <a {...linkTo(href.thread(parent.parentThreadId))}>
        <code>{parent.parentThreadId}</code>
      </a>
    </p>
  );
}
