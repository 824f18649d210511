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
export { END, START } from "./graph/definition/constants.js";
export type { GraphEdge } from "./graph/definition/declared-edges.js";
export { type RetryPolicy, retriesByDefault } from "./graph/definition/retry-policy.js";
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
} from "./graph/definition/types.js";
export type { DrawnEdge, DrawnNode, GraphDrawing } from "./graph/drawing/drawing.js";
export {
  type DrawingLayout,
  layoutDrawing,
  type PlacedEdge,
  type PlacedNode,
} from "./graph/drawing/drawing-layout.js";
export {
  type ChartState,
  type ChartTransition,
  type InspectionChart,
  inspectionChart,
} from "./graph/drawing/inspection-chart.js";
export {
  type InspectedGraph,
  type InspectionContext,
  type InspectionEvent,
  type InspectionMachine,
  type InspectionMachineOptions,
  type InspectionSnapshot,
  inspectionMachine,
} from "./graph/drawing/inspection-machine.js";
export { drawingToMermaid } from "./graph/drawing/mermaid.js";
export { drawingToSvg } from "./graph/drawing/svg-picture.js";
export { type CompileOptions, Graph, type NodeOptions } from "./graph/graph.js";
export type { GraphThreads } from "./graph/running/graph-threads.js";
export type {
  InspectionObserver,
  InvokeOptions,
  RunResult,
  StreamEventsResult,
  StreamOptions,
} from "./graph/running/invoke-options.js";
export type { StateSnapshot, TaskView } from "./graph/running/state-snapshot.js";
export type { Superstep, SuperstepUpdate } from "./graph/running/supersteps.js";
export { whenSaved } from "./graph/running/thread-machine.js";
export type { Durability } from "./runtime/checkpoint-writer.js";
export { interrupt, isGraphInterrupt, isParentCommand } from "./runtime/interrupt.js";
export {
  type RemoveUIMessage,
  typedUi,
  type UIMessage,
  type UiWriter,
  uiMessageReducer,
} from "./runtime/ui-messages.js";
export type { StreamEvent } from "./stream/events.js";
export type { MessageChunk, ToolEvent } from "./stream/run-events.js";
export {
  type CheckpointPayload,
  STREAM_MODES,
  type StreamMode,
  type StreamPart,
  type TaskPayload,
} from "./stream/stream-parts.js";
