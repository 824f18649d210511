/** Entry: mounts the inbox. Built by vite into dist/inbox/ (see vite.config.ts). */
import { render } from "preact";
import { App } from "./app.js";
// One stylesheet per area, in cascade order; vite joins them into one file.
import "./styles/base.css";
import "./styles/list.css";
import "./styles/thread.css";
import "./styles/review.css";
import "./styles/controls.css";

render(<App />, document.getElementById("app")!);
