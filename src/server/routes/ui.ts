import { extname } from "node:path";
import { type Context, Hono } from "hono";
import { getMimeType } from "hono/utils/mime";
import { z } from "zod";
import { parseBody } from "../request-body.js";
import { type UiBundles, type UiFile, uiGlobalName } from "../ui-bundles.js";

const componentRequest = z.object({ name: z.string() });

/** `text` as the value of an attribute in `quote`s: `&`, that quote, `<` and `>` as references. */
const attribute = (text: string, quote: "'" | '"') =>
  text.replace(quote === "'" ? /[&'<>]/g : /[&"<>]/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A `Host` header as URLs have it (name or address, optional port): nothing else goes into the HTML. */
const HOST = /^[A-Za-z0-9.-]+(?::\d+)?$|^\[[0-9A-Fa-f:.]+\](?::\d+)?$/;

const notFound = (c: Context, agent: string) => c.text(`UI not found for agent "${agent}"`, 404);

/**
 * `POST /ui/:agent` with `{ name }`, what `LoadExternalComponent` asks (through the SDK's
 * `client["~ui"].getComponent`): the HTML that loads the agent's bundle into a shadow root,
 * as LangGraph's server answers it (a stylesheet link per CSS file, then the script whose
 * `onload` renders the component). Behind authentication, as LangGraph's.
 *
 * @example
 * app.route("/ui", uiRoutes(await buildUi({ agent: "./ui.tsx" }, { cwd })));
 */
export function uiRoutes(bundles: UiBundles): Hono {
  return new Hono().post("/:agent", async (c) => {
    const agent = c.req.param("agent");
    const { name } = await parseBody(c, componentRequest);
    const files = bundles.get(agent);
    if (!files?.length) return notFound(c, agent);
    const host = c.req.header("host") ?? "";
    if (!HOST.test(host)) return c.text(`The Host header "${host}" is not a host name.`, 400);
    // As LangGraph: plain http on this machine, else the page's own scheme.
    const local = /^(localhost|127\.0\.0\.1)(:\d+)?$/.test(host);
    const base = `${local ? "http:" : ""}//${host}/ui/${agent}`;
    const lines = files
      .filter((file) => extname(file.basename) === ".css")
      .map(
        (file) => `<link rel="stylesheet" href="${attribute(`${base}/${file.basename}`, '"')}" />`,
      );
    const script = files.find((file) => extname(file.basename) === ".js");
    if (script) {
      const render = `${uiGlobalName(agent)}.render(${JSON.stringify(name)}, "{{shadowRootId}}")`;
      lines.push(
        `<script src="${attribute(`${base}/${script.basename}`, '"')}" onload='${attribute(render, "'")}'></script>`,
      );
    }
    return c.body(lines.join("\n"), 200, { "Content-Type": "text/html; charset=utf-8" });
  });
}

/**
 * `GET /ui/:agent/:basename`: the built bundle files. Answered before authentication, as
 * LangGraph's are: the page loads them with a `<script>`/`<link>` tag, which sends no token,
 * and they hold only the components' code (no thread, run or user data). Other origins
 * may load them (the chat UI is often served elsewhere).
 *
 * @example
 * app.route("/ui", uiAssetRoutes(bundles));
 */
export function uiAssetRoutes(bundles: UiBundles): Hono {
  return new Hono().get("/:agent/:basename", (c) => {
    const file: UiFile | undefined = bundles
      .get(c.req.param("agent"))
      ?.find((f) => f.basename === c.req.param("basename"));
    if (!file) return c.text("File not found", 404);
    return c.body(file.contents as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": getMimeType(file.basename) ?? "application/octet-stream",
      "Cross-Origin-Resource-Policy": "cross-origin",
    });
  });
}
