// Value types several layers share (graph, agent, models): below all of them, importing nothing of ours.
export { type AnyClass, brandClass, hasBrand, isBrandedInstance } from "./brand.js";
export { Command, type CommandInit, type GotoTarget, isCommand } from "./command.js";
export { type NullResume, nullResume } from "./null-resume.js";
export { isSend, Send } from "./send.js";
export type { StateWriteForms } from "./state-write-forms.js";
