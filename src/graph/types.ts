import type { NodeRuntime } from "../runtime/node-runtime.js";
import type { Command, GotoTarget } from "./command.js";

export type { NodeRuntime, RunConfig, WriterFn } from "../runtime/node-runtime.js";

/** Any graph state: a plain object of channels. */
export type State = Record<string, any>;

/** What a node may return: a partial update, a `Command`, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a node written as `() => { … }` returns void
export type NodeResult<S extends State> = Partial<S> | Command<Partial<S>> | undefined | void;

export type NodeFn<S extends State = State, C = unknown> = (
  state: S,
  runtime: NodeRuntime<C>,
) => NodeResult<S> | Promise<NodeResult<S>>;

/** A conditional edge's router: returns node names, `END`, or `Send`s. */
export type Router<S extends State = State, C = unknown> = (
  state: S,
  runtime: NodeRuntime<C>,
) => GotoTarget | Promise<GotoTarget>;

/** A reducer merges a written value into the channel's current value. */
export type Reducer<V = any, U = any> = (existing: V, update: U) => V;
