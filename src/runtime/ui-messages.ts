// Generative UI from a node, as LangGraph's `typedUi` does it: a UI message goes to the
// `custom` stream (what `useStream` hands `onCustomEvent`) and into the state's `ui` key.
import { randomUUID } from "node:crypto";
import { InvalidUpdateError } from "../errors/index.js";
import { currentTask } from "./interrupt.js";
import type { NodeRuntime } from "./node-runtime.js";

/**
 * A component to show: `name` is a key of the components module the server bundles (the
 * config's `ui`), `props` what it is rendered with. LangGraph's `UIMessage`, same shape.
 *
 * @example
 * const shown: UIMessage = { type: "ui", id: "w1", name: "weather", props: { city: "Paris" } };
 */
export interface UIMessage<
  Name extends string = string,
  Props extends Record<string, unknown> = Record<string, unknown>,
> {
  type: "ui";
  id: string;
  name: Name;
  props: Props;
  metadata?: {
    /** Merge these props into the message of the same id rather than replace it. */
    merge?: boolean;
    run_id?: string;
    /** The node that pushed it. */
    name?: string;
    tags?: string[];
    /** The id of the chat message it belongs to (`push(…, { message })`). */
    id?: string;
    [key: string]: unknown;
  };
}

/**
 * Takes the UI message of that id away. LangGraph's `RemoveUIMessage`.
 *
 * @example
 * const removal: RemoveUIMessage = { type: "remove-ui", id: "w1" };
 */
export interface RemoveUIMessage {
  type: "remove-ui";
  id: string;
}

/**
 * The reducer of a `ui` state key, as LangGraph's: a UI message is appended, or replaces the
 * one of its id (its props merged into the old ones with `metadata.merge`); a removal takes
 * its id away. Takes one message or a list, applied in order.
 *
 * @example
 * new Graph<{ messages: Message[]; ui: UIMessage[] }>()
 *   .addReducer("ui", uiMessageReducer, { default: () => [] });
 */
export function uiMessageReducer(
  existing: UIMessage[] | undefined,
  update: UIMessage | RemoveUIMessage | ReadonlyArray<UIMessage | RemoveUIMessage>,
): UIMessage[] {
  let next = (existing ?? []).slice();
  for (const event of Array.isArray(update) ? update : [update]) {
    if (event?.type === "remove-ui") {
      next = next.filter((shown) => shown.id !== event.id);
      continue;
    }
    if (event?.type !== "ui" || typeof event.id !== "string") {
      throw new InvalidUpdateError(
        `The ui key takes UI messages ({ type: "ui", id, name, props } or { type: "remove-ui", id }), got ${JSON.stringify(event)}. Write it through typedUi(runtime).push() or .delete().`,
      );
    }
    const at = next.findIndex((shown) => shown.id === event.id);
    if (at === -1) next.push(event);
    else if (event.metadata?.merge) {
      next[at] = { ...event, props: { ...next[at]!.props, ...event.props } };
    } else next[at] = event;
  }
  return next;
}

/** A function or class component, for typing props by component (React's are both). */
type ComponentLike = ((props: any) => unknown) | (new (props: any) => unknown);
type PropsOf<C> = C extends (props: infer P) => unknown
  ? P
  : C extends new (
        props: infer P,
      ) => unknown
    ? P
    : Record<string, unknown>;

/** What `typedUi` gives a node. */
export interface UiWriter<Components extends Record<string, ComponentLike>> {
  /**
   * Show a component: sent to the `custom` stream now and written to the state's key when
   * the node finishes. `options.message` ties it to a chat message; `merge` updates the
   * message of the same `id` with these props.
   */
  push<K extends keyof Components & string>(
    message: {
      id?: string;
      name: K;
      props: PropsOf<Components[K]>;
      metadata?: Record<string, unknown>;
    },
    options?: { message?: { id?: string }; merge?: false },
  ): UIMessage<K, PropsOf<Components[K]>>;
  push<K extends keyof Components & string>(
    message: {
      id: string;
      name: K;
      props: Partial<PropsOf<Components[K]>>;
      metadata?: Record<string, unknown>;
    },
    options: { message?: { id?: string }; merge: true },
  ): UIMessage<K, Partial<PropsOf<Components[K]>>>;
  /** Take a shown component away. */
  delete(id: string): RemoveUIMessage;
  /** Everything pushed and deleted through this writer, in order. */
  readonly items: Array<UIMessage | RemoveUIMessage>;
}

/**
 * LangGraph's `typedUi` for a stateweaver node: pass the node's `runtime` where LangGraph
 * code passes its `config`. Each push goes to the `custom` stream at once (`useStream` gives
 * it to `onCustomEvent`) and into `options.stateKey` (`"ui"`, reduced by `uiMessageReducer`)
 * with the node's update. The type argument maps component names to components (or any
 * functions of their props), as `typeof` your components module's default export.
 *
 * @example
 * .addNode("weather", async (state, runtime) => {
 *   const ui = typedUi<typeof components>(runtime);
 *   const reply = message.assistant("Sunny in Paris", { id: randomUUID() });
 *   ui.push({ name: "weather-component", props: { city: "Paris" } }, { message: reply });
 *   return { messages: [reply] };
 * })
 */
export function typedUi<
  Components extends Record<string, ComponentLike> = Record<string, ComponentLike>,
>(runtime: NodeRuntime<any>, options: { stateKey?: string } = {}): UiWriter<Components> {
  const stateKey = options.stateKey ?? "ui";
  const items: Array<UIMessage | RemoveUIMessage> = [];
  const send = (event: UIMessage | RemoveUIMessage) => {
    const pad = currentTask.getStore();
    // The write joins the update of the task that runs now, which must be this node's.
    if (pad?.taskId !== runtime.taskId) {
      throw new InvalidUpdateError(
        `typedUi(runtime) of node "${runtime.node}" was used after the node finished or from another node; push and delete while the node runs (in its function or code it awaits).`,
      );
    }
    items.push(event);
    runtime.writer(event);
    pad.sent ??= [];
    pad.sent.push([stateKey, event]);
    return event;
  };
  return {
    push(message, pushOptions) {
      const runId = currentTask.getStore()?.env.thread?.runId;
      return send({
        type: "ui",
        id: message.id ?? randomUUID(),
        name: message.name,
        props: message.props as Record<string, unknown>,
        metadata: {
          ...(pushOptions?.merge && { merge: true }),
          ...(runId !== undefined && { run_id: runId }),
          name: runtime.node,
          ...message.metadata,
          ...(pushOptions?.message && { id: pushOptions.message.id }),
        },
      }) as never;
    },
    delete: (id) => send({ type: "remove-ui", id }) as RemoveUIMessage,
    items,
  };
}
