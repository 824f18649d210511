// The types a graph is written in: state, node functions, routers, reducers and what a node may return.

import type { StateWriteForms } from "../../control/index.js";
import type { NodeRuntime } from "../../runtime/node-runtime.js";
import type { Command, GotoTarget } from "./command.js";

export type { StateWriteForms } from "../../control/index.js";
export type { NodeRuntime, RunConfig, WriterFn } from "../../runtime/node-runtime.js";

/** Any graph state: a plain object of channels. */
export type State = Record<string, any>;

/**
 * What a node may write to a state `S`: any of its keys, each with a value of its type or
 * one of that type's `StateWriteForms`.
 *
 * @example
 * const update: StateUpdate<MessagesState> = { messages: [removeMessage("msg_1")] };
 */
export type StateUpdate<S extends State> = {
  [K in keyof S]?: S[K] | StateWriteForms<S[K]>[keyof StateWriteForms<S[K]>];
};

/** What a node may return: a partial update, a `Command`, or nothing. */
export type NodeResult<S extends State> =
  | StateUpdate<S>
  | Command<StateUpdate<S>>
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a node written as `() => { … }` returns void
  | void;

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
