export type { InterruptRecord } from "./checkpoint/checkpointer.js";
export {
  Command,
  type CommandInit,
  type GotoTarget,
  isCommand,
  isSend,
  nullResume,
  Send,
} from "./control/index.js";
export * from "./errors/index.js";
export { CompiledGraph } from "./graph/compiled-graph.js";
export { END, START } from "./graph/constants.js";
export type { GraphEdge } from "./graph/declared-edges.js";
export type { DrawnEdge, DrawnNode, GraphDrawing } from "./graph/drawing.js";
export {
  type DrawingLayout,
  layoutDrawing,
  type PlacedEdge,
  type PlacedNode,
} from "./graph/drawing-layout.js";
export { type CompileOptions, Graph, type NodeOptions } from "./graph/graph.js";
export type { GraphThreads } from "./graph/graph-threads.js";
export {
  type ChartState,
  type ChartTransition,
  type InspectionChart,
  inspectionChart,
} from "./graph/inspection-chart.js";
export type {
  InspectionObserver,
  InvokeOptions,
  RunResult,
  StreamEventsResult,
  StreamOptions,
} from "./graph/invoke-options.js";
export { drawingToMermaid } from "./graph/mermaid.js";
export { type RetryPolicy, retriesByDefault } from "./graph/retry-policy.js";
export type { StateSnapshot, TaskView } from "./graph/state-snapshot.js";
export { drawingToSvg } from "./graph/svg-picture.js";
export { whenSaved } from "./graph/thread-machine.js";
export type {
  NodeFn,
  NodeResult,
  NodeRuntime,
  Reducer,
  Router,
  RunConfig,
  State,
  StateUpdate,
  StateWriteForms,
} from "./graph/types.js";
export type { Durability } from "./runtime/checkpoint-writer.js";
export { interrupt, isGraphInterrupt, isParentCommand } from "./runtime/interrupt.js";
export type { StreamEvent } from "./stream/events.js";
export type { MessageChunk, ToolEvent } from "./stream/run-events.js";
export {
  type CheckpointPayload,
  STREAM_MODES,
  type StreamMode,
  type StreamPart,
  type TaskPayload,
} from "./stream/stream-parts.js";
