// The graph definition indexed for the machine's hot path (GraphInternals).
import type { Channels } from "../definition/channels.js";
import type { ConditionalEdgeSpec, GraphSpec } from "../definition/graph-spec.js";
import type { NodePolicy } from "../definition/retry-policy.js";
import type { NodeFn } from "../definition/types.js";

/** The graph definition indexed for the hot path: lookups by source node, no scans. */
export interface GraphInternals {
  spec: GraphSpec;
  channels: Channels;
  nodeFns: Map<string, NodeFn<any, any>>;
  /** Retry policies and timeouts, for the nodes that have one. */
  policies: Map<string, NodePolicy>;
  edgesFrom: Map<string, string[]>;
  conditionalFrom: Map<string, ConditionalEdgeSpec[]>;
  /** Join edges keyed by `src1+src2>target`. */
  joins: Array<{ key: string; from: readonly string[]; to: string }>;
}
