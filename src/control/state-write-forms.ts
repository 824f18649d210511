// The forms a node may write to a state value besides the value itself, filled in by the layers that add one.
/**
 * Other forms a node may write to a state value, by the value's type `V`: a table the
 * layers fill by declaration merging (a reducer may take more than it stores, and the graph
 * layer does not know their types). It lives here, below the graph and the models, so a
 * layer that adds a form need not import the graph. `models/remove-message.ts` adds
 * one: a `Message[]` value may also be written `removeMessage(id)` markers.
 *
 * @example
 * type MessagesForm = StateWriteForms<Message[]>["removeMessage"]; // ReadonlyArray<Message | RemoveMessage>
 */
// biome-ignore lint/correctness/noUnusedVariables: V is used by the declarations merged in
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface StateWriteForms<V> {}
