// The protocol's `agent.getTree` answer: a run's (sub)graph namespaces as a tree.

/** A (sub)graph run's lifecycle status, as the protocol's `lifecycle` events name them. */
export type AgentStatus = "started" | "running" | "completed" | "failed" | "interrupted";

/** What a run's protocol events say of one of its namespaces. */
export interface NamespaceStatus {
  namespace: string[];
  status: AgentStatus;
  graph_name: string;
}

/**
 * One node of `agent.getTree`'s answer (`@langchain/protocol`'s `AgentTreeNode`).
 *
 * @example
 * const tree: AgentTreeNode = { namespace: [], status: "completed", graph_name: "nested",
 *   children: [{ namespace: ["child:1"], status: "completed", graph_name: "child" }] };
 */
export interface AgentTreeNode extends NamespaceStatus {
  children?: AgentTreeNode[];
}

const isUnder = (ns: string[], parent: string[]) =>
  ns.length === parent.length + 1 && parent.every((part, i) => ns[i] === part);

/**
 * The tree of `namespaces` under `root`: each namespace's children are those one segment
 * longer that start with it, in namespace order (as LangGraph's server orders them).
 *
 * @example
 * agentTree(root, [root, { namespace: ["child:1"], status: "started", graph_name: "child" }]);
 */
export function agentTree(root: NamespaceStatus, namespaces: NamespaceStatus[]): AgentTreeNode {
  const children = namespaces
    .filter((n) => isUnder(n.namespace, root.namespace))
    .sort((a, b) => JSON.stringify(a.namespace).localeCompare(JSON.stringify(b.namespace)))
    .map((child) => agentTree(child, namespaces));
  return { ...root, ...(children.length > 0 && { children }) };
}
