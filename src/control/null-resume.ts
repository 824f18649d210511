// The explicit "resume with null" value; a registered symbol, so every copy of stateweaver has the same one.

/** The explicit "resume with `null`" value: `resume(nullResume, { config })`. */
export const nullResume: unique symbol = Symbol.for("stateweaver.nullResume");
export type NullResume = typeof nullResume;
