// One protocol WebSocket's session: its subscriptions, the log it replays, its commands in order.
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { WSContext } from "hono/ws";
import type { WebSocket } from "ws";
import { z } from "zod";
import { AccessRefusedError } from "../../errors/index.js";
import { RequestError } from "../errors.js";
import type { ServerContext } from "../server-context.js";
import type { AppWebSockets } from "../server-websockets.js";
import {
  answerCommand,
  type Command,
  CommandRefusal,
  commandBody,
  type EventsFilter,
  eventsFilterFields,
  matchesFilter,
  type ProtocolEvent,
  type ProtocolResponse,
  paramsOf,
  threadProtocolLog,
} from "./thread-protocol.js";

/** The close code of a socket whose thread's events could not be read (an internal error). */
const CLOSE_SERVER_ERROR = 1011;

/** `subscription.subscribe`'s params: the SSE stream's filter (other keys are the protocol's extensions). */
const subscribeParams = z.looseObject(eventsFilterFields);
const unsubscribeParams = z.looseObject({ subscription_id: z.string().min(1) });

/** What the socket route works with besides the server's context. */
export interface SocketRouteOptions {
  websockets: AppWebSockets;
  /** With an auth file: its checks on the socket's commands (see `SocketAccess`). */
  access?: SocketAccess | undefined;
  /** Where errors no one expected go (the server's `onUnexpectedError`). */
  report(error: unknown): void;
}

/**
 * Who may do what on a socket, with an auth file: the upgrade itself was a read of the
 * thread (the API's middleware); each command is checked as it arrives, and a thread made
 * after the socket opened is checked before its first event is sent.
 */
export interface SocketAccess {
  read(c: Context, threadId: string): Promise<void>;
  command(c: Context, threadId: string, command: Command): Promise<Command>;
}

/** Commands outside the frame shape, and refusals, as the protocol's error frame. */
const refusal = (
  id: number | null,
  error: Extract<ProtocolResponse, { type: "error" }>["error"],
  message: string,
): ProtocolResponse => ({ type: "error", id, error, message });

/**
 * One socket's session: its subscriptions, the thread's log read so far (replayed to each
 * new subscription), and its commands, carried out one at a time in the order they came.
 *
 * @example
 * const session = new ThreadSocketSession(c, ctx, threadId, socket, options, true);
 * void session.pump(); // on open
 * session.receive(event.data); // on each message
 * session.end(); // on close
 */
export class ThreadSocketSession {
  readonly #subscriptions = new Map<string, EventsFilter>();
  readonly #log: ProtocolEvent[] = [];
  readonly #stop = new AbortController();
  #commands: Promise<void> = Promise.resolve();

  constructor(
    readonly c: Context,
    readonly ctx: ServerContext,
    readonly threadId: string,
    readonly socket: WSContext<WebSocket>,
    readonly options: SocketRouteOptions,
    readonly threadExisted: boolean,
  ) {}

  #send(frame: ProtocolResponse | ProtocolEvent) {
    if (this.socket.readyState === 1) this.socket.send(JSON.stringify(frame));
  }

  /** Reads the thread's log for as long as the socket is open, sending what a subscription matches. */
  async pump() {
    const { access } = this.options;
    let checked = this.threadExisted || access === undefined;
    try {
      for await (const e of threadProtocolLog(this.ctx, this.threadId, this.#stop.signal)) {
        if (!checked) {
          // Made after the socket opened: by someone whose thread this user may not see?
          await access!.read(this.c, this.threadId);
          checked = true;
        }
        this.#log.push(e);
        for (const filter of this.#subscriptions.values()) {
          if (!matchesFilter(filter, e)) continue;
          this.#send(e);
          break;
        }
      }
    } catch (error) {
      if (this.#stop.signal.aborted || this.ctx.runs.closed) return;
      if (isAccessRefusal(error)) {
        // 4000 + the HTTP status: the SDK ends the stream with it and does not reconnect.
        const status = (error as { status: number }).status;
        this.socket.close(4000 + status, status === 404 ? "Thread not found." : "Refused.");
        return;
      }
      this.options.report(error);
      this.socket.close(CLOSE_SERVER_ERROR, "The thread's events could not be read.");
    }
  }

  /** Queues one frame from the client; its answer is sent after those of the frames before it. */
  receive(data: unknown) {
    // #answer answers every failure itself; nothing is left to reject the chain.
    this.#commands = this.#commands.then(() => this.#answer(data));
  }

  end() {
    this.#stop.abort();
  }

  async #answer(data: unknown) {
    let frame: unknown;
    try {
      frame = JSON.parse(textOf(data));
    } catch {
      return this.#send(
        refusal(
          null,
          "invalid_argument",
          "A frame must be a JSON command: { id, method, params }.",
        ),
      );
    }
    const parsed = commandBody.safeParse(frame);
    if (!parsed.success) {
      const id = (frame as { id?: unknown } | null)?.id;
      const problems = parsed.error.issues
        .map((i) => `${i.path.map(String).join(".") || "the frame"}: ${i.message}`)
        .join("; ");
      return this.#send(
        refusal(
          Number.isInteger(id) && (id as number) >= 0 ? (id as number) : null,
          "invalid_argument",
          `A command is { id: a whole number, method: a string, params }; ${problems}.`,
        ),
      );
    }
    let command = parsed.data;
    try {
      const { access } = this.options;
      if (access) command = await access.command(this.c, this.threadId, command);
      if (command.method === "subscription.subscribe") return this.#subscribe(command);
      if (command.method === "subscription.unsubscribe") return this.#unsubscribe(command);
      this.#send(await answerCommand(this.c, this.ctx, this.threadId, command));
    } catch (error) {
      this.#send({ ...this.#refusalOf(command, error), meta: this.#meta() });
    }
  }

  /** A command's failure as its error frame (by its id, so the client's call ends too). */
  #refusalOf(command: Command, error: unknown): ProtocolResponse {
    if (error instanceof CommandRefusal) return refusal(command.id, error.code, error.message);
    if (isAccessRefusal(error))
      return refusal(command.id, "permission_denied", (error as Error).message);
    // A command still working when the server closed meets closed pools: not a fault.
    if (this.ctx.runs.closed) {
      return refusal(
        command.id,
        "unknown_error",
        "The server is shutting down; send it again to a running one.",
      );
    }
    this.options.report(error);
    return refusal(
      command.id,
      "unknown_error",
      `The server failed to carry out ${command.method} (the error is reported in its log); send it again.`,
    );
  }

  #meta() {
    return { thread_id: this.threadId };
  }

  /**
   * Answers before it replays, and adds the subscription in the same turn as it reads the
   * log, so no event is missed or sent twice between the replay and what follows.
   */
  #subscribe(command: Command) {
    const filter = paramsOf(command, subscribeParams);
    const id = randomUUID();
    const replay = this.#log.filter((e) => matchesFilter(filter, e));
    this.#subscriptions.set(id, filter);
    this.#send({
      type: "success",
      id: command.id,
      result: { subscription_id: id, replayed_events: replay.length },
      meta: this.#meta(),
    });
    for (const e of replay) this.#send(e);
  }

  #unsubscribe(command: Command) {
    const { subscription_id } = paramsOf(command, unsubscribeParams);
    if (!this.#subscriptions.delete(subscription_id)) {
      return this.#send({
        ...refusal(
          command.id,
          "no_such_subscription",
          `No subscription "${subscription_id}" on this socket; it was never made here, or was already ended.`,
        ),
        meta: this.#meta(),
      });
    }
    this.#send({ type: "success", id: command.id, result: {}, meta: this.#meta() });
  }
}

const textOf = (data: unknown) =>
  typeof data === "string"
    ? data
    : data instanceof ArrayBuffer
      ? new TextDecoder().decode(data)
      : String(data);

const isAccessRefusal = (error: unknown): boolean =>
  error instanceof AccessRefusedError ||
  (error instanceof RequestError && (error.status === 401 || error.status === 403));
