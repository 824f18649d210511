/** Server-sent events through EventSource (it sends the session cookie; CSP allows 'self'). */
import { useEffect, useRef } from "preact/hooks";

export type StreamHandlers = Record<string, (data: unknown) => void>;

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

/** Opens `url` while mounted (and while `url` is not null); each named event calls its handler. */
export function useEventStream(url: string | null, handlers: StreamHandlers): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (url === null) return;
    const source = new EventSource(url);
    const names = Object.keys(current.current);
    const listeners = names.map((name) => {
      const listener = (e: Event) => current.current[name]?.(parse((e as MessageEvent).data));
      source.addEventListener(name, listener);
      return [name, listener] as const;
    });
    return () => {
      for (const [name, listener] of listeners) source.removeEventListener(name, listener);
      source.close();
    };
  }, [url]);
}
