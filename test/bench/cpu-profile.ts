// The parts of a V8 `.cpuprofile` (from `node --cpu-prof` or the inspector) the bench scripts read.

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A node of a V8 sampling heap profile (`HeapProfiler.stopSampling`). */
export interface SampleNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SampleNode[];
}

/**
 * Prints a sampling heap profile's bytes per operation by allocating function (the `top`
 * largest), under a heading line saying `label`.
 */
export function printAllocations(head: SampleNode, ops: number, top: number, label: string) {
  const bytes = new Map<string, number>();
  let total = 0;
  const visit = (node: SampleNode) => {
    total += node.selfSize;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/.*node_modules\//, "").replace(/.*\/(dist\/)?(?=src\/)/, "");
    const key = `${functionName || "(anonymous)"}  ${where || "(native)"}:${lineNumber + 1}`;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(head);
  console.log(
    `${label}: about ${(total / ops / 1024).toFixed(1)} KB allocated per operation (sampled)`,
  );
  for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const share = ((100 * size) / total).toFixed(1).padStart(5);
    console.log(`${share}%  ${(size / ops).toFixed(0).padStart(6)} B/op  ${key}`);
  }
}
