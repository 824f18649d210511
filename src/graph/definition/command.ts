// Command, Send and nullResume live in src/control/ (below graph, agent and models, which all use them); re-exported for graph code.
export {
  Command,
  type CommandInit,
  type GotoTarget,
  isCommand,
  isSend,
  type NullResume,
  nullResume,
  Send,
} from "../../control/index.js";
