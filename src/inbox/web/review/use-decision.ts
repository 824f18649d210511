/**
 * Sends one decision for one pending item. The idempotency key is made once per attempt,
 * so a double click or a retry after a dropped connection is answered once by the server;
 * a refused attempt (400, 409) gets a fresh key because its body will differ.
 */
import { useRef, useState } from "preact/hooks";
import { ApiError, api, stalePending } from "../api.js";
import type { Decision, InboxItem } from "../wire.js";

export type DecisionState =
  | { status: "idle" }
  | { status: "sending" }
  | { status: "sent"; runId: string; decision: Decision }
  | { status: "approved"; approvedBy: number; required: number }
  | { status: "stale"; pending: InboxItem[]; running: boolean }
  | { status: "invalid"; error: ApiError }
  | { status: "failed"; message: string };

const newKey = () => crypto.randomUUID();

// Pauses this tab has answered (or is answering). When one of them leaves the thread, the
// thread page knows the change is the reviewer's own, not someone else's under them.
const answeredHere = new Set<string>();

/**
 * Whether this tab sent the decision on `interruptId` (a refused one does not count).
 *
 * @example
 * if (gone.every(sentFromThisTab)) showLatest(); else sayItChanged();
 */
export function sentFromThisTab(interruptId: string): boolean {
  return answeredHere.has(interruptId);
}

export function useDecision(item: InboxItem, onSent: (runId: string) => void) {
  const [state, setState] = useState<DecisionState>({ status: "idle" });
  // The parent keys this by interrupt id, so one key per item and attempt.
  const key = useRef(newKey());

  const submit = async (answer: unknown, extra: { unexpandedApproveOverride?: boolean } = {}) => {
    if (state.status === "sending" || state.status === "sent" || state.status === "approved")
      return;
    setState({ status: "sending" });
    // Marked before the request: the server's change feed can report the decision before
    // its own answer arrives here.
    answeredHere.add(item.interruptId);
    try {
      const res = await api.decide(item.threadId, {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer,
        idempotencyKey: key.current,
        ...(extra.unexpandedApproveOverride && { unexpandedApproveOverride: true }),
      });
      // A review that needs more approvers keeps waiting: no run started yet.
      if (res.runId === null) {
        const { approvedBy, required } = res.approval;
        setState({ status: "approved", approvedBy: approvedBy.length, required });
        return;
      }
      setState({ status: "sent", runId: res.runId, decision: res.decision });
      onSent(res.runId);
    } catch (e) {
      if (!(e instanceof ApiError)) {
        // The request may or may not have arrived: keep the key so a retry is answered once.
        setState({
          status: "failed",
          message: `Could not reach the server (${String(e)}). Try again.`,
        });
        return;
      }
      key.current = newKey();
      answeredHere.delete(item.interruptId);
      // Only a stale decision gets the page's own explanation; other refusals say their own.
      if (e.code === "STALE_DECISION") setState({ status: "stale", ...stalePending(e) });
      else if (e.status === 400) setState({ status: "invalid", error: e });
      else setState({ status: "failed", message: e.message });
    }
  };
  return { state, submit, reset: () => setState({ status: "idle" }) };
}
