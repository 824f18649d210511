// Through the package name, so `stateweaver worker` processes load the same stateweaver.
import { END, Graph, interrupt, START } from "stateweaver";

/**
 * One step that asks a question with `interrupt()` and stores the answer: the graph S14
 * pauses and resumes (the same shape as LangGraph's `question` in langgraph-server.ts).
 */
export const question = new Graph<{ q?: string; a?: string }>({ name: "question" })
  .addNode("ask", (s) => ({ a: String(interrupt({ q: s.q })) }))
  .addEdge(START, "ask")
  .addEdge("ask", END)
  .compile();
