/**
 * A node result that is an ordered list of writes rather than an object: how a
 * subgraph hands its nodes' writes to the parent, one by one, so each passes
 * through the parent's reducers exactly as it happened (no list is appended twice).
 */
export class WriteList {
  readonly writes: ReadonlyArray<[string, unknown]>;
  constructor(writes: ReadonlyArray<[string, unknown]>) {
    this.writes = writes;
  }
}
