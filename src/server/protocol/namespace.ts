// A subgraph's place in the protocol's namespaces. A checkpoint namespace segment is
// `<node>:<task id>` and our task ids are `<step>:<node>:<index>`; the SDK reads a
// segment's graph name up to its last colon (LangGraph's task ids are UUIDs), so the
// protocol writes the task id's colons as dots. Node names hold neither, so it reverses.

/**
 * The protocol's segment for a checkpoint namespace segment.
 *
 * @example
 * protocolSegment("child:2:child:0"); // "child:2.child.0"
 */
export function protocolSegment(segment: string): string {
  const at = segment.indexOf(":");
  return at < 0
    ? segment
    : `${segment.slice(0, at + 1)}${segment.slice(at + 1).replaceAll(":", ".")}`;
}

/**
 * The checkpoint namespace (`checkpoint_ns`) a protocol namespace names.
 *
 * @example
 * checkpointNamespace(["child:2.child.0"]); // "child:2:child:0"
 */
export function checkpointNamespace(namespace: readonly string[]): string {
  return namespace
    .map((segment) => {
      const at = segment.indexOf(":");
      return at < 0
        ? segment
        : `${segment.slice(0, at + 1)}${segment.slice(at + 1).replaceAll(".", ":")}`;
    })
    .join("|");
}
