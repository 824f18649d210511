/**
 * The S9–S11 graphs for LangGraph's own dev server (`@langchain/langgraph-api`), which loads
 * graphs by file and export name: the same one-step question graph and the same scripted
 * reply as `server-fixture.ts` gives ours.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  Annotation,
  END,
  interrupt,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { REPLY } from "../server-fixture.js";

const Question = Annotation.Root({ q: Annotation<string>, a: Annotation<string> });

/** Pauses at its one node's `interrupt()`; the resume value becomes `a`. */
export const question = new StateGraph(Question)
  .addNode("ask", (s: typeof Question.State) => ({ a: String(interrupt({ q: s.q })) }))
  .addEdge(START, "ask")
  .addEdge("ask", END)
  .compile();

const model = new FakeListChatModel({ responses: [REPLY] });

/** One model call that streams the scripted reply (the shape of an agent without tools). */
export const chat = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (s: { messages: BaseMessage[] }) => {
    // FakeListChatModel cycles through `responses`, so every run gets the same reply.
    return { messages: [await model.invoke(s.messages)] };
  })
  .addEdge(START, "agent")
  .addEdge("agent", END)
  .compile();
